/**
 * Answers over MAX_ANSWER_BYTES through a whole run: each is counted `too_large`, never `ok`,
 * in events.ndjson, summary.json (outcomes and the errors breakdown), the error check and report.md, and
 * the run goes on (the small answers after them are `ok`). The same when the folder is judged again.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { MAX_ANSWER_BYTES } from '../../src/client/http1/index.js';
import { API_PATHS } from '../../src/spec/index.js';
import { runFolders, runMain, scenarioWorkspace } from '../helpers/cli.js';
import { expectSameWhenJudgedAgain } from '../helpers/rejudge.js';
import { serversFor } from '../helpers/servers.js';

const { stub } = serversFor(1);

describe('answers over the cap in a run', () => {
  it('every other answer over the cap: too_large in every record, the error check fails (exit 1), the others ok', async () => {
    const big = { entities: [], pad: 'x'.repeat(MAX_ANSWER_BYTES) };
    const s = await stub({
      identify: (n) => (n % 2 === 1 ? { status: 200, body: big } : { status: 200, body: { entities: [] } }),
    });
    const { file, out } = scenarioWorkspace(
      `name: big-answers\ndescription: answers over the cap\ntarget: { environment: mock, baseUrl: "${s.url}" }\nphases:\n  - { name: steady, duration: 2s, rpm: 300 }\n`,
    );
    const { code, stdout, stderr } = await runMain(['run', '--no-charts', file, '--out', out]);
    expect(code, stdout + stderr).toBe(1);
    const [folder] = runFolders(out);
    const dir = join(out, folder!);
    const events = readFileSync(join(dir, 'events.ndjson'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(events.filter((e) => e.outcome === 'too_large')).toHaveLength(5);
    expect(events.filter((e) => e.outcome === 'ok')).toHaveLength(5);
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
    expect(summary.overall.outcomes).toMatchObject({ ok: 5, too_large: 5 });
    expect(summary.overall.errors.too_large).toBe(5);
    expect(summary.phases[0].errors.too_large).toBe(5);
    expect(summary.verdict.checks.find((c: any) => c.id === 'error_rate')).toMatchObject({
      status: 'fail',
      reason: '5 of 10 (50.00 %)',
    });
    expect(stdout).toContain('errors: rate < 1%: 5 of 10');
    expect(readFileSync(join(dir, 'report.md'), 'utf8')).toContain('5 answers larger than loadproof reads (too_large');
    await expectSameWhenJudgedAgain(dir);
  });

  it('a token answer over the cap: exit 4 naming the cap, no identification sent', async () => {
    const s = await stub({
      token: (n) => ({
        status: 200,
        body: { access_token: `lpmock_at_${n}_${'x'.repeat(24)}`, expires_in: 3600, pad: 'x'.repeat(MAX_ANSWER_BYTES) },
      }),
    });
    const { file, out } = scenarioWorkspace(
      `name: big-token\ndescription: a token answer over the cap\ntarget: { environment: mock, baseUrl: "${s.url}" }\nphases:\n  - { name: steady, duration: 2s, rpm: 300 }\n`,
    );
    const { code, stderr } = await runMain(['run', '--no-charts', file, '--out', out]);
    expect(code).toBe(4);
    expect(stderr).toContain(`its answer is larger than ${MAX_ANSWER_BYTES} bytes (too_large)`);
    expect(s.counts.identification).toBe(0);
  });

  it('probe: answers over the cap are counted too_large (not ok, not malformed) and end the probe as errors; the step goes on', async () => {
    const big = { entities: [], pad: 'x'.repeat(MAX_ANSWER_BYTES) };
    // Every third answer over the cap: the others keep the connections busy, and answered, after each cut.
    const s = await stub({
      identify: (n) => (n % 3 === 1 ? { status: 200, body: big } : { status: 200, body: { entities: [] } }),
    });
    const { file, out } = scenarioWorkspace(
      `name: big-probe\ndescription: a probe meeting answers over the cap\ntarget: { environment: mock, baseUrl: "${s.url}" }\nphases:\n  - { name: one, duration: 1m, rpm: 60 }\ntimeout: 10s\n`,
    );
    const { code, stdout } = await runMain([
      'probe',
      file,
      '--endpoint',
      'identification',
      '--connections',
      '1,2',
      '--step',
      '2s',
      '--max-rpm',
      '300',
      '--out',
      out,
    ]);
    expect(code).toBe(0);
    const report = JSON.parse(readFileSync(join(out, runFolders(out)[0]!, 'probe.json'), 'utf8'));
    const step = report.result.steps[0];
    expect(report.result.endedBy).toBe('errors');
    expect(step.tooLarge).toBeGreaterThan(0);
    expect(step.malformed).toBe(0);
    // A cut answer is not an answer: only the small ones are counted as 2xx.
    expect(step.ok).toBe(s.counts.identification - step.tooLarge - step.cut);
    expect(stdout).toContain(`${step.tooLarge} answers over the ${MAX_ANSWER_BYTES}-byte cap (too_large, not read on)`);
  });

  it("a server whose /__mock/stats answer is over the cap is not loadproof's mock (it runs in real time), not an unreachable target", async () => {
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const path = (req.url ?? '').split('?')[0];
        res.setHeader('content-type', 'application/json');
        if (path === API_PATHS.token)
          res.end(JSON.stringify({ access_token: `lpmock_at_stats_${'x'.repeat(24)}`, expires_in: 3600 }));
        else if (path === API_PATHS.identification) res.end('{"entities":[]}');
        else {
          res.statusCode = 404;
          res.end(JSON.stringify({ error: 'not_found', pad: 'x'.repeat(MAX_ANSWER_BYTES) }));
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const { file, out } = scenarioWorkspace(
        `name: big-stats\ndescription: a 404 page over the cap\ntarget: { environment: mock, baseUrl: "${url}" }\nphases:\n  - { name: steady, duration: 2s, rpm: 300 }\n`,
      );
      const { code, stderr } = await runMain(['run', '--no-charts', file, '--out', out]);
      expect(stderr).not.toContain('TARGET_UNREACHABLE');
      expect([0, 5]).toContain(code);
      const summary = JSON.parse(readFileSync(join(out, runFolders(out)[0]!, 'summary.json'), 'utf8'));
      expect(summary.overall.outcomes.ok).toBe(10);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
