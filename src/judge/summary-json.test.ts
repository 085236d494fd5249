import { describe, expect, it } from 'vitest';

import type { Summary } from './summary.js';
import { summaryJson } from './summary-json.js';

/** A summary-shaped object: summaryJson reads only its JSON and its timeline. */
const fake = (windows: number): Summary =>
  ({
    schemaVersion: 3,
    scenario: 'a "quoted"\nname',
    phases: [{ name: 'p', timeline: [], latencyMs: { p50: 1.5, p95: null } }],
    timeline: Array.from({ length: windows }, (_, i) => ({
      startS: i * 10,
      sentRpm: 6,
      latencyMs: { p50: i, p95: null, p99: 'unanswered' },
    })),
    token: { calls: 1 },
  }) as unknown as Summary;

describe('summary.json text (summaryJson)', () => {
  it.each([0, 1, 511, 512, 513, 8640])('parses back to the summary, one timeline window per line (%i windows)', (n) => {
    const summary = fake(n);
    const pieces = [...summaryJson(summary)];
    const text = pieces.join('');
    expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(summary)));
    expect(pieces.every((p) => p.endsWith('\n'))).toBe(true);
    const lines = text.split('\n');
    const rows = lines.filter((l) => l.startsWith('    {"startS":'));
    expect(rows).toHaveLength(n);
    // Everything else is indented as JSON.stringify(summary, null, 2) indents it.
    expect(text.replace(/\n {4}\{"startS".*/g, '')).toBe(
      `${JSON.stringify({ ...summary, timeline: [] }, null, 2).replace('\n  "timeline": []', '\n  "timeline": [\n  ]')}\n`,
    );
    // Pieces of at most 512 rows: the text is never built whole.
    expect(pieces.length).toBe(2 + Math.ceil(n / 512));
  });
});
