export { readCredentials, type CredentialOptions, type Credentials, type CredentialsRead } from './read.js';
