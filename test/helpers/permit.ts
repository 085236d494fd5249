/**
 * A guard permit for tests that drive the client directly against a server on loopback: issued by the
 * guard itself (authorize), for the embedded-mock target it allows on any loopback port. Nothing else
 * makes a permit (src/core/send-permit.ts).
 */
import { authorize } from '../../src/guard/index.js';
import { buildPlan } from '../../src/plan/index.js';
import { parseScenario } from '../../src/scenario/index.js';

const scenario = parseScenario(
  'name: client-test\ndescription: a client test on loopback\ntarget: { environment: mock }\nphases: [{ name: one, duration: 1s, rpm: 60 }]\n',
  '(test)',
);

export const LOOPBACK_PERMIT = authorize(buildPlan(scenario, { timeScale: 1 }), { startAtMs: Date.now() }).permit;
