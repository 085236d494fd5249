/**
 * Coordinated omission, checked against a computed truth. The `stall` mock answers in 20 ms, except
 * that nothing leaves during [8 s, 10 s) of every 10 s of its clock. From each request's arrival on
 * the mock's clock (its request log, matched by seq) the true latency is known; the open-model run
 * must report the same p95/p99. A closed loop against the same mock (one request at a time, each
 * waiting for the previous answer) sends almost nothing during a stall, so it reports far less: its
 * latencies are computed from the mock's log in the same way, so the comparison does not depend on
 * how fast this machine is.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';

import { stallTruthMs } from '../../src/mock/gateway.js';
import { type MockServer, PROFILES, startMockServer } from '../../src/mock/index.js';
import { quantile } from '../../src/mock/simulate.js';
import { API_PATHS } from '../../src/spec/index.js';
import { runCli } from '../helpers/cli.js';

const K = 20;
/** The closed loop's mock: see below. */
const CLOSED_K = 2;
let server: MockServer | undefined;
let server2: MockServer | undefined;
afterEach(async () => {
  await server?.close();
  await server2?.close();
  server = undefined;
  server2 = undefined;
});

describe('coordinated omission (stall profile)', () => {
  // The run's child may take up to its 60 s limit on a busy machine, and the closed loop up to 20 s.
  it('reports the p95/p99 computed from the stalls, which a closed loop misses', { timeout: 90_000 }, async () => {
    const s = (server = await startMockServer({ profile: 'stall', timeScale: K }));
    const dir = mkdtempSync(join(tmpdir(), 'loadproof-co-'));
    const file = join(dir, 'stall.yaml');
    writeFileSync(
      file,
      `name: stall\ndescription: stalls\ntarget: { environment: mock, baseUrl: "${s.url}" }\nphases:\n  - { name: steady, duration: 2m, rpm: 100 }\ntimeout: 1m\nthresholds: { documentedTargets: false }\n`,
    );
    // A timeout of 1 minute (3 s of wall time at k = 20): the stalls hold answers 2 s, and with the default 16 s
    // (800 ms of wall time) this mock, on this test's starved thread beside two CPU hogs, timed out 3 of 200.
    const { code, stderr } = await runCli([
      'run',
      '--no-charts',
      file,
      '--time-scale',
      String(K),
      '--out',
      join(dir, 'out'),
    ]);
    expect(code, stderr).toBe(0);
    const runDir = join(dir, 'out', readdirSync(join(dir, 'out'))[0]!);
    const events = readFileSync(join(runDir, 'events.ndjson'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { seq: number; latencyMs: number; intendedAtMs: number; lastSentAtMs: number });

    // The truth: each request's arrival on the mock's clock, its 20 ms of service, then the stall hold.
    const stall = PROFILES.stall.stall;
    const log = (await (await request(`${s.url}/__mock/log`)).body.json()) as {
      entries: { seq: number; arrivedAtMs: number }[];
    };
    const arrival = new Map(log.entries.map((e) => [e.seq, e.arrivedAtMs]));
    const truth = events.map((e) => stallTruthMs(arrival.get(e.seq)!, 20, stall));
    const measured = events.map((e) => e.latencyMs);
    // Measured = the generator's own delay before the wire (send lag, which the run reports) + the
    // server's time (the truth) + loopback transit. So without its own delay the open model matches
    // the truth within the timers' resolution (1 ms of wall time is K ms of model time, on both sides)
    // plus transit; a closed loop, below, misses the stalls by far.
    const withoutOwnDelay = events.map((e) => e.latencyMs - (e.lastSentAtMs - e.intendedAtMs));
    for (const q of [0.95, 0.99]) {
      // Never below the truth but for the timers' and transit's slack (a bound of K, 1 wall ms, failed
      // once beside other load at 1425 vs 1438 model ms: how close it comes is bench:co's figure).
      expect(quantile(measured, q)).toBeGreaterThanOrEqual(quantile(truth, q) - (5 * K + 30));
      // Loopback transit and the event loop cost a few wall ms each way on a busy machine, × K in model
      // time: a loose bound here (how close it comes is measured by the benchmarks, not asserted).
      expect(Math.abs(quantile(withoutOwnDelay, q) - quantile(truth, q))).toBeLessThan(
        5 * K + 30 + 0.2 * quantile(truth, q),
      );
    }
    expect(quantile(truth, 0.95)).toBeGreaterThan(1000); // the stalls matter at p95
    const stalledShare = (xs: number[]) => xs.filter((x) => x > 500).length / xs.length;
    expect(stalledShare(truth)).toBeGreaterThan(0.1); // the open model waits through every stall, as clients would

    // A closed loop on the same mock profile: one request at a time, each waiting for the previous answer. Its own
    // mock runs at k = 2, where a stall period is 5 s of wall time: how many requests a loop fits between two stalls
    // (and so whether one stalled request in each reaches its p95) is the machine's speed. Beside two CPU hogs and
    // other work it was not enough at k = 20 (0.5 s a period), nor at k = 5 (2 s: 223 requests in 20 s, 11 stalls).
    // Latencies are in model time at any k, computed from the mock's log.
    const closedMock = (server2 = await startMockServer({ profile: 'stall', timeScale: CLOSED_K }));
    const token = (await (
      await request(closedMock.url + API_PATHS.token, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          client_id: closedMock.clientId,
          client_secret: closedMock.clientSecret,
          audience: closedMock.audience,
          grant_type: 'client_credentials',
        }),
      })
    ).body.json()) as { access_token: string };
    // The closed loop's requests carry seq numbers from CLOSED_SEQ on, so the mock's log can tell
    // them apart. Their latencies are computed the same way as the truth above, from the mock's
    // own arrival times: what a closed-loop tool reports on an ideal machine, whatever this one's speed.
    const CLOSED_SEQ = 1_000_000;
    let sent = 0;
    const started = closedMock.stats().uptimeS;
    // At least 6 s of wall time (12 s of model time: a stall at least) and 200 requests; at most 20 s.
    const until = performance.now() + 6000;
    const hardStop = performance.now() + 20_000;
    while ((performance.now() < until || sent < 200) && performance.now() < hardStop && sent < 5000) {
      const res = await request(closedMock.url + API_PATHS.identification, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${token.access_token}`,
          'x-loadproof-seq': String(CLOSED_SEQ + sent),
        },
        body: JSON.stringify({ text: 'Seen John Smith on 01/02/2026.' }),
      });
      await res.body.dump();
      sent++;
    }
    const closedLog = (await (await request(`${closedMock.url}/__mock/log`)).body.json()) as {
      entries: { seq: number; arrivedAtMs: number; status: number }[];
    };
    // A closed loop this fast also meets the rate limiter: its 429s are answered at once, never held.
    const closed = closedLog.entries
      .filter((e) => e.seq >= CLOSED_SEQ)
      .map((e) => (e.status === 429 ? 0 : stallTruthMs(e.arrivedAtMs, 20, stall)));
    expect(closed).toHaveLength(sent);
    expect(sent).toBeGreaterThanOrEqual(200);
    // One request at a time: at most one waits through each stall the loop spanned, so the stalls
    // hardly reach its percentiles.
    const stallsSpanned = Math.ceil((closedMock.stats().uptimeS - started) / (stall!.periodMs / 1000)) + 1;
    expect(closed.filter((x) => x > 500).length).toBeLessThanOrEqual(stallsSpanned);
    expect(quantile(closed, 0.95)).toBeLessThan(0.25 * quantile(truth, 0.95));
  });
});
