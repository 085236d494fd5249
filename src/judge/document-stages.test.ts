import { describe, expect, it } from 'vitest';

import { type DocumentRecord, DocumentSink, documentSliceSummary } from './documents.js';

/** A document's line with what the identification stage's percentiles read. */
function doc(d: number, over: Partial<DocumentRecord> & { idMs: number | null }): DocumentRecord {
  const { idMs, ...rest } = over;
  return {
    doc: d,
    phase: 'steady',
    intendedAtMs: 1000 * d,
    firstSeq: d,
    pieces: 1,
    characters: 100,
    identification: { outcomes: { ok: 1 }, latencyMs: idMs, truncated: 0 },
    entities: 3,
    problem: null,
    obfuscation: null,
    endAtMs: null,
    latencyMs: null,
    outcome: 'ok',
    failedStage: null,
    ...rest,
  };
}

describe('the identification stage of a deid run', () => {
  const sink = (): DocumentSink => new DocumentSink([{ name: 'steady', steady: { fromMs: 0, toMs: 100_000 } }], 10_000);

  it('has its own percentiles, in model ms, beside end to end and obfuscation', () => {
    const s = sink();
    // 100 documents whose identification took 1 … 100 ms and whose chain took 1 s more.
    for (let i = 1; i <= 100; i++) s.add(doc(i, { idMs: i, latencyMs: i + 1000 }));
    const summary = documentSliceSummary(s.overall);
    const { count, p50, p95, p99, max } = summary.identification.latencyMs;
    expect(count).toBe(100);
    // HDR histograms: to within their precision.
    expect([p50, p95, p99, max].map((v) => Math.round(v as number))).toEqual([50, 95, 99, 100]);
    // End to end is another figure.
    expect(summary.documentLatencyMs.p50).toBeGreaterThan(1000);
  });

  it('counts a document failed at identification, or dropped, as unanswered; one failed at obfuscation by its stage time; an unsent one not at all', () => {
    const s = sink();
    s.add(doc(0, { idMs: 40, outcome: 'failed', failedStage: 'obfuscation' }));
    s.add(doc(1, { idMs: null, outcome: 'failed', failedStage: 'identification' }));
    s.add(doc(2, { idMs: null, outcome: 'dropped' }));
    s.add(doc(3, { idMs: null, outcome: 'unsent' }));
    const stage = documentSliceSummary(s.overall).identification.latencyMs;
    expect(stage.count).toBe(3);
    expect(stage.p99).toBe('unanswered');
    expect(stage.p50).toBe('unanswered');
    const onlyObfuscationFailed = sink();
    onlyObfuscationFailed.add(doc(0, { idMs: 40, outcome: 'failed', failedStage: 'obfuscation' }));
    expect(Math.round(documentSliceSummary(onlyObfuscationFailed.overall).identification.latencyMs.p50 as number)).toBe(
      40,
    );
  });

  it('judges the steady state: a document intended during the warm-up is not in the steady slice', () => {
    const s = new DocumentSink([{ name: 'steady', steady: { fromMs: 5000, toMs: 100_000 } }], 10_000);
    s.add(doc(1, { idMs: 10 }));
    s.add(doc(9, { idMs: 90 }));
    expect(documentSliceSummary(s.phases[0]!, s.steady[0]!).identification.latencyMs.count).toBe(1);
  });
});
