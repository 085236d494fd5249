// Time to issue tokens as the mock's token store fills: batches of 5,000 issues, up to 30,000
// tokens (3,600 s lifetime, so none expires). Before issue 9's fix the store scanned every token on
// each issue once 10,000 were held (quadratic); now it does one look per issue plus one per token
// forgotten or evicted (at most 10,000 are held). The ratio of the last batch to the first is the
// number to compare. Usage: npm run bench:mock-tokens
import { ScaledClock } from '../dist/core/clock.js';
import { TokenStore } from '../dist/mock/auth.js';

const BATCH = 5000;
const BATCHES = Number(process.env.BENCH_BATCHES ?? 6);
const store = new TokenStore(new ScaledClock(1), 3600);
const times = [];
for (let b = 0; b < BATCHES; b++) {
  const start = process.hrtime.bigint();
  for (let i = 0; i < BATCH; i++) store.issue('bench-client');
  times.push(Number(process.hrtime.bigint() - start) / 1e6);
  console.log(`tokens ${b * BATCH}–${(b + 1) * BATCH}: ${times[b].toFixed(1)} ms (held after: ${store.size ?? 'n/a'})`);
}
console.log(`last batch / first batch: ${(times[BATCHES - 1] / times[0]).toFixed(2)}×`);
