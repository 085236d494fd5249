/**
 * The scenario's `target:` block: where the requests go (the embedded mock, a mock at a loopback URL, a real
 * environment, one reached through a loopback tunnel), how to trust it, its credentials' variable names and how long
 * a connection to it may sit idle.
 */
import * as z from 'zod';

import { PROFILE_NAMES } from '../spec/index.js';
import { SCENARIO_BOUNDS as B } from './bounds.js';
import { formatDuration } from './duration.js';
import { duration, envName, NO_USERINFO, withoutUserinfo } from './schema-fields.js';

export const TargetSchema = z
  .strictObject({
    environment: z
      .enum(['mock', 'sandbox', 'production'])
      .default('mock')
      .describe('mock = the embedded mock server (or a loopback one); sandbox and production are real'),
    baseUrl: z
      .url({ protocol: /^https?$/, error: 'expected an http(s) URL like https://api.example.com' })
      .refine(withoutUserinfo, { error: NO_USERINFO })
      .optional()
      .describe('Absent with mock: start the embedded mock'),
    audience: z
      .url({ error: 'expected a URL' })
      .refine(withoutUserinfo, { error: NO_USERINFO })
      .optional()
      .describe('Token audience; defaults to baseUrl'),
    profile: z.enum(PROFILE_NAMES).optional().describe('Mock profile (mock only); default nominal'),
    tunnel: z
      .boolean()
      .optional()
      .describe(
        'true: baseUrl is a loopback tunnel (SSH, port-forward, sidecar) to the real environment named here; every rule of that environment applies',
      ),
    credentials: z
      .strictObject({
        clientIdEnv: envName.default('LOADPROOF_CLIENT_ID'),
        clientSecretEnv: envName.default('LOADPROOF_CLIENT_SECRET'),
      })
      .default({ clientIdEnv: 'LOADPROOF_CLIENT_ID', clientSecretEnv: 'LOADPROOF_CLIENT_SECRET' })
      .describe('Names of the environment variables holding the credentials (never the secrets)'),
    idleConnection: duration(
      'idleConnection',
      B.idleConnectionMs.max,
      `expected a duration from ${formatDuration(B.idleConnectionMs.min)} to ${formatDuration(B.idleConnectionMs.max)}`,
      B.idleConnectionMs.min,
    )
      .optional()
      .describe(
        'Longest a kept-alive connection may sit idle and still carry a request (wall time; default 1.5s); keep it under the server’s keep-alive timeout',
      ),
    tls: z
      .strictObject({
        ca: z
          .string()
          .min(1, { error: 'expected the path of a PEM file of CA certificates' })
          .describe(
            "A private CA's certificate(s), PEM, trusted besides Node's own CAs (--ca overrides); a path relative to the scenario file",
          ),
      })
      .optional()
      .describe('TLS trust for an https baseUrl; verification is never skipped'),
  })
  .superRefine((target, ctx) => {
    if (target.environment !== 'mock' && target.baseUrl === undefined) {
      ctx.addIssue({ code: 'custom', path: ['baseUrl'], message: `a ${target.environment} target needs baseUrl` });
    }
    if (target.environment === 'mock' && target.tunnel === true) {
      ctx.addIssue({
        code: 'custom',
        path: ['tunnel'],
        message:
          'a tunnel forwards to a real environment: declare target.environment sandbox or production with it (a mock at a loopback baseUrl needs no tunnel)',
      });
    }
    if (target.environment !== 'mock' && target.profile !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['profile'],
        message: `a mock profile only applies to environment mock, not ${target.environment}`,
      });
    } else if (target.baseUrl !== undefined && target.profile !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['profile'],
        message: `the profile applies to the embedded mock (no baseUrl); the server at baseUrl runs its own (start it with loadproof mock --profile ${target.profile})`,
      });
    }
  });
