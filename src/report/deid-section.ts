/** mode deid: the documents through the chain. */
import type { Summary } from '../judge/index.js';
import type { ReportContent } from './content-types.js';
import { ms, plural } from './figure-text.js';

/** The chain's figures: documents by fate and stage, end-to-end and obfuscation latency. */
export function deidSection(d: NonNullable<Summary['deid']>): NonNullable<ReportContent['deid']> {
  type Slice = (typeof d.phases)[number] | typeof d.overall;
  const row = (name: string, rate: string, x: Slice): string[] => [
    name,
    rate,
    String(x.documents),
    String(x.ok),
    String(x.failed.identification),
    String(x.failed.obfuscation),
    String(x.dropped),
    String(x.unsent),
    ms(x.identification.latencyMs.p50),
    ms(x.identification.latencyMs.p95),
    ms(x.identification.latencyMs.p99),
    ms(x.documentLatencyMs.p50),
    ms(x.documentLatencyMs.p95),
    ms(x.documentLatencyMs.p99),
    String(x.obfuscation.calls),
    ms(x.obfuscation.latencyMs.p95),
    String(x.obfuscation.outcomes.http_429 ?? 0),
    String(x.truncated),
  ];
  const o = d.overall;
  const lines = [
    `${plural(o.ok, 'document')} of ${o.planned} went through the whole chain; ${o.failed.identification} failed at identification (a piece without a 2xx, or entities outside their piece), ${o.failed.obfuscation} at obfuscation, ${o.dropped} had a piece dropped by the client at its maxInFlight, ${o.unsent} were cut short (the run stopped before all their pieces, or their obfuscation, were sent). Identification and end-to-end percentiles count a document that did not go through that far as unanswered, and are of the steady state after each phase's warm-up.`,
    'Obfuscation has its own limits: its 429s are counted here and never against the identification SLA, which the phase table above judges on the identification requests alone.',
  ];
  if (o.truncated > 0)
    lines.push(
      `${plural(o.truncated, 'document')} had a piece whose entities were cut at the service's output cap: PHI may remain in them. A larger payload.split.margin sends smaller pieces.`,
    );
  return {
    intro: `Each document was split into pieces under the identification limit, its pieces identified ${d.concurrency === 1 ? 'one after another' : `${d.concurrency} at a time`}, their entities merged at document offsets, and the whole document obfuscated (${d.style}). The identification stage runs from the document's intended time to its last piece's answer, end to end to the obfuscation's answer; both in model time.`,
    table: {
      head: [
        'Phase',
        'Docs/min',
        'Documents',
        'OK',
        'Failed: identification',
        'Failed: obfuscation',
        'Dropped (client)',
        'Unsent',
        'Identification p50',
        'p95',
        'p99',
        'End to end p50',
        'p95',
        'p99',
        'Obfuscation calls',
        'Obfuscation p95',
        'Obfuscation 429',
        'Cut at the output cap',
      ],
      rows: [
        ...d.phases.map((p) => row(p.name, p.documentRpm === null ? '' : String(p.documentRpm), p)),
        row('overall', '', o),
      ],
      numeric: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17],
    },
    lines,
  };
}
