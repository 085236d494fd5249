/** The service's endpoints (shared/spec/api-spec.md, "Endpoints"), relative to the base URL. */
export const API_PATHS = {
  token: '/oauth/token',
  session: '/precision/normalize/session',
  identification: '/entityextraction/pipelines/vendor-phi-identification',
  obfuscation: '/transformation/v1/pipelines/vendor-phi-obfuscation',
} as const;

export type ApiEndpoint = keyof typeof API_PATHS;

/** The only grant type the token endpoint accepts. */
export const GRANT_TYPE = 'client_credentials';
