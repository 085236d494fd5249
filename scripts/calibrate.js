// npm run calibrate — the calibration table of the mock's profiles (docs/guides/mock.md, "Profiles and their
// calibration"), from the latency model on a virtual clock: constant arrivals of generated notes at each documented
// rate, inside the envelope (100 rpm for 10 min, 200 rpm for 5 min, 300 rpm for 2 min). No sockets.
import { PROFILES } from '../dist/mock/index.js';
import { latenciesOf, quantile, simulateIdentification } from '../dist/mock/simulate.js';
import { latencyBandFor } from '../dist/spec/index.js';

const CASES = [
  { rpm: 100, minutes: 10 },
  { rpm: 200, minutes: 5 },
  { rpm: 300, minutes: 2 },
];
const s = (ms) => (ms / 1000).toFixed(2);

console.log('| profile | rate | requests | p50 s | p95 s | p99 s | target p95 | 429 | 504 |');
console.log('|---|---|---|---|---|---|---|---|---|');
for (const name of ['nominal', 'degraded', 'tight', 'stall']) {
  for (const { rpm, minutes } of CASES) {
    const result = simulateIdentification(PROFILES[name], rpm, minutes * 60_000);
    const latencies = latenciesOf(result);
    const count = (kinds) => result.outcomes.filter((o) => kinds.includes(o.outcome.kind)).length;
    const target = latencyBandFor(rpm).p95TargetMs;
    const p95 = quantile(latencies, 0.95);
    console.log(
      `| ${name} | ${rpm} rpm × ${minutes} min | ${result.outcomes.length} | ${s(quantile(latencies, 0.5))} | ${s(p95)} | ${s(quantile(latencies, 0.99))} | < ${s(target)} ${p95 < target ? '✓' : '✗'} | ${count(['rate_limited', 'concurrency_limited'])} | ${count(['timeout'])} |`,
    );
  }
}
