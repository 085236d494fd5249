/**
 * The verdict is a pure function of (plan, events). Judging a finished run again from
 * its folder (what `loadproof report` does) must give the summary.json the run wrote, field for
 * field, apart from `reportedAt`. The CLI tests call this on every run folder they read.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { expect } from 'vitest';

import { judgeFolder } from '../../src/run-folder/index.js';

const withoutReportedAt = (summary: Record<string, unknown>): Record<string, unknown> => {
  const { reportedAt: _, ...rest } = summary;
  return rest;
};

export async function expectSameWhenJudgedAgain(dir: string): Promise<void> {
  const written = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as Record<string, unknown>;
  // No PNG charts: drawing them costs ~0.3 s of CPU and is not what is compared (test/cli/report.test.ts draws them).
  const again = await judgeFolder(dir, { now: () => new Date(0), pngCharts: false });
  expect(again.notes).toEqual([]);
  expect(withoutReportedAt(JSON.parse(JSON.stringify(again.summary)) as Record<string, unknown>)).toEqual(
    withoutReportedAt(written),
  );
  expect(again.exitCode).toBe(written.exitCode);
}
