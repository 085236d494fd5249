/** The flags every command that reaches a target shares: how to trust it, the credentials, and the tests' switch. */

export const CA_OPTION = {
  type: 'string',
  requiresArg: true,
  describe:
    "PEM file of a private CA to trust (besides Node's own and NODE_EXTRA_CA_CERTS) for an https target; overrides target.tls.ca",
} as const;

export const CREDENTIALS_OPTION = {
  type: 'string',
  requiresArg: true,
  describe:
    'JSON file {"clientId", "clientSecret"} (instead of the environment variables in target.credentials); keep it chmod 600',
} as const;

export const LOOPBACK_AS_REAL_OPTION = {
  type: 'boolean',
  default: false,
  describe:
    "[loadproof's own tests only] judge a sandbox/production target at a loopback URL as real instead of refusing it (a tunnel to one: target.tunnel in the scenario)",
} as const;
