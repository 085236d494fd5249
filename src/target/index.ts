export { readCredentials, type CredentialOptions, type Credentials, type CredentialsRead } from './credentials.js';
export { resolveCallTarget, targetScenario } from './call-target.js';
export { announceCheck, formatCheck } from './check-table.js';
export { runCheck } from './check.js';
export { type ResolvedTarget, resolveTarget } from './resolve.js';
