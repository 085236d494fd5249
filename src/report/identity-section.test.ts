import { describe, expect, it } from 'vitest';

import type { ReportInput } from './content-types.js';
import { identity } from './identity-section.js';

/** A run against the mock at k = 20, as far as the identity table reads it. */
const input = (timeScale: number, startAt: string | null = null): ReportInput =>
  ({
    summary: {
      verdict: { status: 'pass' },
      exitCode: 0,
      partial: false,
      shard: null,
      mergedFrom: null,
      environment: 'mock',
      target: { kind: 'embedded-mock', profile: 'nominal' },
      scenario: 'capacity-step',
      description: 'steps',
      counts: { planned: 10 },
      planIdentity: 'sha256:abc',
      payload: null,
      startAt,
      startLateMs: startAt === null ? null : 12,
      startedAt: '2026-11-26T02:00:00.000Z',
      endedAt: '2026-11-26T02:00:55.000Z',
      reportedAt: '2026-11-26T02:00:56.000Z',
      modelDurationS: 1080,
      timeScale,
      loadproofVersion: '0.1.0',
      judgedBy: '0.1.0',
    },
    run: { scenarioFile: 'scenario.yaml', scenarioSource: 'x.yaml', scenarioSha256: 'sha256:def' },
    scenario: {},
  }) as unknown as ReportInput;

const row = (rows: string[][], name: string): string => rows.find((r) => r[0] === name)![1]!;

describe("report's Run details", () => {
  it('labels each time with its unit: the run window in wall time, the schedule in model time', () => {
    const rows = identity(input(20, '2026-11-26T01:59:59.000Z'));
    expect(row(rows, 'Run window')).toBe(
      '2026-11-26 02:00:00 UTC – 2026-11-26 02:00:55 UTC (wall clock: 55s of wall time; its schedule 18m of model time)',
    );
    expect(row(rows, 'Start')).toBe(
      '--start-at 2026-11-26 01:59:59 UTC (wall clock), 12 wall ms late (in the send lag)',
    );
    // No claim that every time in the table is model time: the rows above are wall time.
    expect(row(rows, 'Time scale')).toBe(
      "20 (against the mock: the schedule ran 20 times faster than model time; the report's durations, rates and latencies outside this table are model time)",
    );
    expect(rows.flat().join('\n')).not.toContain('every time here');
    expect(row(identity(input(1)), 'Run window')).toBe(
      '2026-11-26 02:00:00 UTC – 2026-11-26 02:00:55 UTC (wall clock: 55s of wall time; at time scale 1, model time is wall time)',
    );
  });
});
