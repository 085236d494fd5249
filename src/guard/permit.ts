/**
 * The one way to a SendPermit (src/core/send-permit.ts): the guard's decision on the traffic a command
 * will send. Refused: a GuardRefusal (exit 3) before anything is opened or sent, not even a token call.
 */
import { GuardRefusal, issueSendPermit, type SendPermit } from '../core/index.js';
import type { Plan } from '../plan/index.js';
import type { GuardContext, GuardDecision } from './decision.js';
import { evaluateGuard } from './evaluate.js';
import { isLoopbackUrl } from './loopback.js';

interface Authorized {
  readonly decision: GuardDecision;
  readonly permit: SendPermit;
}

/** The guard's decision on `plan`, and the permit to send it when allowed; a GuardRefusal when not. */
export function authorize(plan: Plan, context: GuardContext): Authorized {
  const decision = evaluateGuard(plan, context);
  if (!decision.allowed) throw new GuardRefusal(decision.reasons);
  const { environment, baseUrl } = plan.scenario.target;
  const origin = baseUrl === undefined ? undefined : new URL(baseUrl).origin;
  // The embedded mock's port is known once it listens: any loopback origin; otherwise the judged origin alone.
  const allows = (url: string): boolean =>
    origin === undefined ? environment === 'mock' && isLoopbackUrl(url) : new URL(url).origin === origin;
  return { decision, permit: issueSendPermit({ environment, baseUrl, allows }) };
}

/**
 * A permit for a server of this process on loopback (a run's warm-up of its own client against a stub
 * it listens with), given only to what holds the guard's permit for the run itself.
 */
export function ownLoopbackPermit(run: SendPermit, url: string): SendPermit {
  const origin = new URL(url).origin;
  if (!isLoopbackUrl(url)) throw new Error(`internal: ${origin} is not loopback`);
  return issueSendPermit({ environment: run.environment, baseUrl: url, allows: (u) => new URL(u).origin === origin });
}
