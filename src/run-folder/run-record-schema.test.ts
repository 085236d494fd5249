/**
 * run.json's encoded fields are decoded when it is checked: a bad one is refused naming the field, never a TypeError
 * later.
 */
import { describe, expect, it } from 'vitest';

import { MsHistogram } from '../recorder/histogram.js';
import { checkRunRecord } from './run-record-schema.js';

const record = (change: (r: any) => void): unknown => {
  const r: any = {
    schemaVersion: 1,
    loadproofVersion: '0.1.0',
    scenarioFile: 'scenario.yaml',
    scenarioSource: 's.yaml',
    scenarioSha256: 'sha256:0',
    planIdentity: 'p',
    timeScale: 1,
    environment: 'mock',
    target: { baseUrl: 'http://127.0.0.1:1', kind: 'embedded-mock', profile: null },
    startedAt: '2026-11-27T00:00:00.000Z',
    guard: {
      allowed: true,
      real: false,
      startAt: 'x',
      plannedEndAt: 'x',
      traffic: {},
      limits: { sustainedRpm: 1, burstRpm: 1, burstMinutes: 1, spikeRpm: 1, maxInFlight: 1, reference: null },
      checks: [],
    },
    documentPieces: Buffer.from(new Uint32Array([1, 2, 3]).buffer).toString('base64'),
    end: {
      endedAt: 'x',
      engine: { fired: 0, dropped: 0, unsent: 0, abandoned: 0, interrupted: false, elapsedMs: 0 },
      stop: null,
      tokenCalls: 0,
      tokenLatency: MsHistogram.create().encode(),
      eventLoopDelayP99Ms: null,
      eventLoopDelayMaxMs: null,
      files: [],
    },
  };
  change(r);
  return r;
};

describe('run.json: encoded fields', () => {
  it('takes them as loadproof writes them', () => {
    expect(() =>
      checkRunRecord(
        record(() => {}),
        'run.json',
      ),
    ).not.toThrow();
  });

  it.each([
    'garbage!!',
    'AAAA',
    '',
    'HISTggg=',
    Buffer.from([0x1c, 0x84, 0x93, 0x14, 0x7f, 0xff, 0xff, 0xff, 1, 2]).toString('base64'),
  ])('end.tokenLatency %j: exit 2 naming the file and field', (value) => {
    const error = (() => {
      try {
        checkRunRecord(
          record((r) => (r.end.tokenLatency = value)),
          'dir/run.json',
        );
      } catch (e) {
        return e as { exitCode?: number; message: string };
      }
      return undefined;
    })();
    expect(error?.exitCode).toBe(2);
    expect(error?.message).toContain('dir/run.json: end.tokenLatency: ');
  });

  it.each(['garbage!!', 'AAA', 'AAAAAA==', '', 'AAAAAA'])(
    'documentPieces %j: exit 2 naming the file and field',
    (value) => {
      expect(() =>
        checkRunRecord(
          record((r) => (r.documentPieces = value)),
          'dir/run.json',
        ),
      ).toThrow(/dir\/run\.json: documentPieces: /);
    },
  );
});

describe('run.json: the idle time declared before the run', () => {
  it('takes a duration in model ms, and refuses one that is not, naming the field', () => {
    expect(() =>
      checkRunRecord(
        record((r) => (r.idleBeforeMs = 600_000)),
        'run.json',
      ),
    ).not.toThrow();
    for (const bad of [-1, '10m', Number.POSITIVE_INFINITY])
      expect(() =>
        checkRunRecord(
          record((r) => (r.idleBeforeMs = bad)),
          'run.json',
        ),
      ).toThrow(/^run\.json: idleBeforeMs: /);
  });
});

describe('run.json: who declared the idle time, and when', () => {
  it('takes run or report with an instant, and refuses any other declarer, naming the field', () => {
    for (const declaredBy of ['run', 'report'])
      expect(
        checkRunRecord(
          record((r) => (r.idleBefore = { ms: 600_000, declaredBy, at: '2026-11-27T18:00:00.000Z' })),
          'run.json',
        ).idleBefore,
      ).toEqual({ ms: 600_000, declaredBy, at: '2026-11-27T18:00:00.000Z' });
    expect(() =>
      checkRunRecord(
        record((r) => (r.idleBefore = { ms: 600_000, declaredBy: 'someone', at: '2026-11-27T18:00:00.000Z' })),
        'run.json',
      ),
    ).toThrow(/^run\.json: idleBefore\.declaredBy: /);
  });
});
