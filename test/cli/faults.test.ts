/**
 * Faults, end to end through the CLI ("nothing measured is lost"), part 1: signals during
 * the token call, mid-run, mid-retry and in the drain, each to a real child process. In every case
 * the exit code is 130, every planned request has exactly one line in events.ndjson, and the counts
 * reconcile: planned = sent + dropped + unsent, and the attempts recorded equal what the server saw.
 * Part 2 (the other faults) is faults-run.test.ts: two files so that their waits overlap.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { type CliProcess, scenarioWorkspace, startCli } from '../helpers/cli.js';
import { expectReconciled, onlyRun, scenarioAt, until } from '../helpers/reconcile.js';
import { serversFor } from '../helpers/servers.js';

const K = 20;
const { mock, stub } = serversFor(K);

async function signalWhen(
  cli: CliProcess,
  condition: () => boolean,
  what: string,
  signal: NodeJS.Signals,
): Promise<Awaited<CliProcess['exited']>> {
  await until(condition, what);
  cli.child.kill(signal);
  return cli.exited;
}

describe('signals: exit 130, every planned request accounted for', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)(
    '%s during a token call that hangs: nothing sent, every request unsent',
    async (signal) => {
      const s = await stub({ token: () => 'hang' });
      const { file, out } = scenarioWorkspace(scenarioAt(s.url, '  - { name: steady, duration: 10s, rpm: 60 }\n'));
      const cli = startCli(['run', '--no-charts', file, '--out', out]);
      const { code } = await signalWhen(cli, () => s.counts.token === 1, 'the token call', signal);
      expect(code).toBe(130);
      const r = await onlyRun(out);
      expect(r.summary).toMatchObject({
        interrupted: true,
        stopped: { by: 'signal', code: 'INTERRUPTED' },
        exitCode: 130,
        counts: { planned: 10, sent: 0, unsent: 10 },
      });
      expectReconciled(r, s.counts.identification);
      expect(s.counts.identification).toBe(0);
    },
  );

  it('SIGTERM mid-run on the mock', async () => {
    const s = await mock();
    const { file, out } = scenarioWorkspace(scenarioAt(s.url, '  - { name: long, duration: 10m, rpm: 100 }\n'));
    const cli = startCli(['run', '--no-charts', file, '--time-scale', String(K), '--out', out]);
    const { code, stderr } = await signalWhen(
      cli,
      () => s.stats().requests.identification.received >= 20,
      '20 requests',
      'SIGTERM',
    );
    expect(code).toBe(130);
    expect(stderr).toContain('SIGTERM: no new requests');
    const r = await onlyRun(out);
    expect(r.summary.counts.unsent).toBeGreaterThan(0);
    expectReconciled(r, s.stats().requests.identification.received);
  });

  it.each(['SIGINT', 'SIGTERM'] as const)(
    '%s mid-retry: no attempt starts after the signal, and every attempt the server saw is on a line',
    async (signal) => {
      // 30 rpm with no burst room, offered 240 rpm, retries up to 10 attempts waiting up to 10 minutes (model): a
      // client that went on retrying would send them up to 30 s of wall time after the signal.
      const s = await mock({ limits: { sustainedRpm: 30, burstRpm: 30 } });
      const { file, out } = scenarioWorkspace(
        scenarioAt(
          s.url,
          '  - { name: steady, duration: 5m, rpm: 240 }\n',
          'on429: { policy: retry, maxAttempts: 10, baseDelay: 1s, maxDelay: 10m }\n',
        ),
      );
      const cli = startCli(['run', '--no-charts', file, '--time-scale', String(K), '--out', out]);
      await until(() => (s.stats().requests.identification.byStatus['429'] ?? 0) >= 30, '30 429s');
      const signalledAtMs = s.stats().uptimeS * 1000; // the mock's clock (model ms)
      cli.child.kill(signal);
      const { code } = await cli.exited;
      expect(code).toBe(130);
      // Retries wait up to 10 minutes (model): without the stop they would keep arriving for that long. Allow 5 s of
      // wall time (5·K s of model time) for the signal to be handled and a starved mock to read what was sent before
      // it: beside a CPU hog, 1 s was not enough.
      const log = (await (await fetch(`${s.url}/__mock/log`)).json()) as {
        entries: { attempt: number; arrivedAtMs: number }[];
      };
      const lateRetries = log.entries.filter((e) => e.attempt > 1 && e.arrivedAtMs > signalledAtMs + 5000 * K);
      expect(lateRetries).toEqual([]);
      const seen = s.stats().requests.identification.received;
      const r = await onlyRun(out);
      expect(r.events.some((e) => e.attempts > 1)).toBe(true);
      expectReconciled(r, seen);
    },
  );

  it.each(['SIGINT', 'SIGTERM'] as const)(
    '%s after the last arrival, while the last answers are awaited: the drain, then exit 130',
    async (signal) => {
      // Every answer is held 30 s (model) and the plan fires its 4 arrivals in 2 s.
      const s = await mock({ profile: 'zero', faults: { slowRate: 1, slowExtraMs: 30_000 } });
      const { file, out } = scenarioWorkspace(
        scenarioAt(s.url, '  - { name: short, duration: 2s, rpm: 120 }\n', 'timeout: 60s\n'),
      );
      const cli = startCli(['run', '--no-charts', file, '--time-scale', String(K), '--out', out]);
      const { code } = await signalWhen(
        cli,
        () => s.stats().requests.identification.received === 4,
        'the 4 requests',
        signal,
      );
      expect(code).toBe(130);
      const r = await onlyRun(out);
      expect(r.summary).toMatchObject({ interrupted: true, counts: { planned: 4, sent: 4, unsent: 0 } });
      expectReconciled(r, 4);
    },
  );

  it('exits as soon as the report is written at time scale 1, not when the last request deadline would have passed', async () => {
    // Answers come after 1 s; the client deadline, and so the drain, is 60 s.
    const s = await stub({ identify: () => ({ status: 200, body: { entities: [] }, delayMs: 1000 }) });
    const { file, out } = scenarioWorkspace(
      scenarioAt(s.url, '  - { name: steady, duration: 1m, rpm: 60 }\n', 'timeout: 60s\n'),
    );
    const cli = startCli(['run', '--no-charts', file, '--out', out], {}, 90_000);
    await until(() => s.counts.identification >= 1, 'the first request');
    cli.child.kill('SIGINT');
    const { code } = await cli.exited;
    const exitedAtMs = Date.now();
    expect(code).toBe(130);
    const r = await onlyRun(out);
    // Lingering until the deadlines (60 s) would put a minute between the report and the exit.
    expect(exitedAtMs - statSync(join(r.dir, 'summary.json')).mtimeMs).toBeLessThan(15_000);
    expectReconciled(r, s.counts.identification);
  });
});
