/**
 * The checks of where a run goes and how fast its clock runs: a mock on loopback, a real service in real time, reached
 * at its own address or through a declared loopback tunnel.
 */
import type { Plan } from '../plan/index.js';
import type { GuardCheck, GuardContext } from './decision.js';
import { isLoopbackUrl } from './loopback.js';

export function targetCheck(plan: Plan, context: GuardContext): GuardCheck {
  const t = plan.scenario.target;
  const ok = (message: string): GuardCheck => ({ rule: 'target', status: 'ok', message });
  const refused = (message: string): GuardCheck => ({ rule: 'target', status: 'refused', message });
  if (t.environment === 'mock') {
    if (t.baseUrl === undefined) return ok('the embedded mock, on loopback');
    if (isLoopbackUrl(t.baseUrl)) return ok(`a mock on loopback (${t.baseUrl})`);
    return refused(
      `target.baseUrl ${t.baseUrl} is not loopback, but target.environment is mock (the default when none is declared); a mock runs on loopback (127.0.0.0/8, 0.0.0.0, ::1, ::, those IPv4 addresses inside IPv6, localhost, *.localhost) — to test a real service, declare target.environment: sandbox or production`,
    );
  }
  const url = t.baseUrl ?? '';
  const loopback = isLoopbackUrl(url);
  if (t.tunnel === true)
    return loopback
      ? ok(
          `${t.environment} at ${url}, a loopback tunnel to the real ${t.environment} (target.tunnel): every rule of ${t.environment} applies`,
        )
      : refused(
          `target.tunnel is true, but target.baseUrl ${url} is not loopback: a tunnel is reached at a loopback address (127.0.0.0/8, ::1, localhost); to test ${url} directly, drop target.tunnel`,
        );
  if (!loopback) return ok(`${t.environment} at ${url}`);
  if (context.loopbackAsReal === true)
    return ok(
      `${t.environment} at ${url}: a loopback URL judged as a real environment (--allow-loopback-as-real, a switch for loadproof's own tests)`,
    );
  return refused(
    `target.baseUrl ${url} is loopback, but target.environment is ${t.environment}: a real environment is not on this machine; if this address is a tunnel or port-forward to the real ${t.environment}, declare target.tunnel: true (every rule of ${t.environment} then applies); for a local mock declare target.environment: mock`,
  );
}

export function timeScaleCheck(plan: Plan): GuardCheck {
  const env = plan.scenario.target.environment;
  if (env === 'mock')
    return {
      rule: 'time-scale',
      status: 'ok',
      message: plan.timeScale === 1 ? 'real time' : `time scale ${plan.timeScale} (mock only)`,
    };
  if (plan.timeScale === 1) return { rule: 'time-scale', status: 'ok', message: 'real time' };
  return {
    rule: 'time-scale',
    status: 'refused',
    message: `--time-scale ${plan.timeScale} against ${env}: a real service runs in real time (rates × ${plan.timeScale} would be sent); drop --time-scale (or set it to 1)`,
  };
}
