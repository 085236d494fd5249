/** What a TokenProvider is given: where to ask, with which credentials, and whom to tell what happened. */
import type { Clock, RunFailure, SendPermit } from '../core/index.js';
import type { HttpProxy } from './http1/proxy-env.js';

export interface TokenSettings {
  /** The guard's permit to send to baseUrl. */
  readonly permit: SendPermit;
  readonly baseUrl: string;
  /** The proxy to reach baseUrl through, if any (ResolvedTarget.proxy). */
  readonly proxy?: HttpProxy | undefined;
  /** A private CA (PEM) trusted besides Node's own (--ca, target.tls.ca). */
  readonly ca?: string | undefined;
  readonly audience: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Where the credentials came from, for messages (e.g. "$LOADPROOF_CLIENT_ID / $LOADPROOF_CLIENT_SECRET"). */
  readonly credentialSource: string;
  /** The run's model clock. */
  readonly clock: Clock;
  /** Wall-clock deadline of one token call (ms). */
  readonly timeoutMs: number;
  /** The run's stop signal: it aborts a token call in progress and every wait for a token (Interrupted). */
  readonly signal?: AbortSignal;
  /** Called after every fetch with its duration on the model clock, for the report (not part of the load). */
  readonly onFetch?: (latencyMs: number, status: number | 'failed') => void;
  /** Called with each new access token before it is used, so it can be masked in every output. */
  readonly onToken?: (token: string) => void;
  /** Called once, mid-run, when no token can be had any more: the run must end (exit 4). */
  readonly onFatal?: (failure: RunFailure) => void;
  /** Called with things the user should know (a lifetime below the floor). */
  readonly onWarning?: (message: string) => void;
}
