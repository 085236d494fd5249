/**
 * documents.ndjson, a deid run's second record: one line per planned document — its pieces'
 * identification (the requests themselves are in events.ndjson), its obfuscation call, and its end
 * to end time — and what the judge makes of them: per phase, the obfuscation latency and the
 * document latency as HDR histograms, and the documents' fates by stage. Identification's own
 * figures, and the verdict on them, come from events.ndjson as in any run.
 */
import { isUnanswered, UNANSWERED_MS } from '../core/index.js';
import type { PhiTally } from '../phi/index.js';
import { MsHistogram, TIME_BLOCKS } from '../recorder/index.js';
import type { TryRecord } from './events.js';
import { PhiSlice } from './phi-slice.js';

/**
 * ok: through the whole chain; failed: at a stage (failedStage); dropped: a piece dropped by the client at maxInFlight;
 * unsent: cut short, the run stopped before all its pieces (or its obfuscation) were sent.
 */
export type DocumentOutcome = 'ok' | 'failed' | 'dropped' | 'unsent';
export type ChainStage = 'identification' | 'obfuscation';

/** One line of documents.ndjson. Times are model ms from the run start. */
export interface DocumentRecord {
  /** 0-based position among the plan's documents. */
  readonly doc: number;
  readonly phase: string;
  readonly intendedAtMs: number;
  /** Its identification requests (events.ndjson seqs firstSeq … firstSeq + pieces − 1). */
  readonly firstSeq: number;
  readonly pieces: number;
  readonly characters: number;
  /** How its pieces ended, by outcome (only those that occurred). */
  readonly identification: {
    readonly outcomes: Readonly<Record<string, number>>;
    readonly latencyMs: number | null;
    readonly truncated: number;
  };
  /** Entities found in all its pieces, merged. */
  readonly entities: number;
  /** Why answered pieces could not be merged (an entity outside its piece), or null. */
  readonly problem?: string | null;
  /** Its obfuscation call; null when it was not made (identification failed, or the run stopped). */
  readonly obfuscation: {
    readonly readyAtMs: number;
    readonly sentAtMs: number | null;
    readonly endAtMs: number | null;
    readonly latencyMs: number | null;
    readonly outcome: string;
    readonly status: number | null;
    readonly tries: readonly TryRecord[];
  } | null;
  readonly endAtMs: number | null;
  /**
   * End to end (model ms): identification of every piece, then obfuscation; null unless it ended ok (a failed or
   * dropped one counts as unanswered in the percentiles).
   */
  readonly latencyMs: number | null;
  readonly outcome: DocumentOutcome;
  /** The stage that failed it: a piece not identified, or the obfuscation call. */
  readonly failedStage: ChainStage | null;
  /** Known PHI items it held (its ground truth); null when nothing is known of it (absent before recall was read). */
  readonly phiPlanted?: number | null;
  /**
   * What became of them, counts only (never the PHI): null unless its obfuscation answered with an output to read.
   */
  readonly phi?: PhiTally | null;
}

/** A span of model time, split in TIME_BLOCKS for the percentile intervals (as the Recorder's slices). */
interface DocumentSpan {
  readonly fromMs: number;
  readonly toMs: number;
}

/** One phase's documents, as the judge counts them. */
export class DocumentSlice {
  readonly latency = MsHistogram.create();
  /** The identification stage: from the document's intended time to its last piece's answer. */
  readonly identificationLatency = MsHistogram.create();
  readonly obfuscationLatency = MsHistogram.create();
  /** The two latencies per time block of the span, by the document's intended time (none without a span). */
  readonly latencyBlocks: readonly MsHistogram[];
  readonly obfuscationLatencyBlocks: readonly MsHistogram[];
  /** Obfuscation answers by status. */
  readonly obfuscationStatus: Record<string, number> = {};
  documents = 0;
  ok = 0;
  unsent = 0;
  dropped = 0;
  failedIdentification = 0;
  failedObfuscation = 0;
  /** Documents with a piece whose entity list was cut at the output cap: PHI may remain in them. */
  truncated = 0;
  /** Obfuscation calls by outcome. */
  readonly obfuscationOutcomes: Record<string, number> = {};
  obfuscationCalls = 0;
  /** Their known PHI. */
  readonly phi = new PhiSlice();

  constructor(private readonly span?: DocumentSpan) {
    const blocks = span === undefined || !(span.toMs > span.fromMs) ? 0 : TIME_BLOCKS;
    this.latencyBlocks = Array.from({ length: blocks }, () => MsHistogram.create());
    this.obfuscationLatencyBlocks = Array.from({ length: blocks }, () => MsHistogram.create());
  }

  private block(atMs: number): number {
    const { fromMs, toMs } = this.span!;
    return Math.min(TIME_BLOCKS - 1, Math.max(0, Math.floor(((atMs - fromMs) / (toMs - fromMs)) * TIME_BLOCKS)));
  }

  add(r: DocumentRecord): void {
    this.documents++;
    if (r.outcome === 'ok') this.ok++;
    else if (r.outcome === 'unsent') this.unsent++;
    else if (r.outcome === 'dropped') this.dropped++;
    else if (r.failedStage === 'obfuscation') this.failedObfuscation++;
    else this.failedIdentification++;
    if (r.identification.truncated > 0) this.truncated++;
    this.phi.add(r);
    const blocks = this.latencyBlocks.length > 0;
    // A document that did not go through counts as unanswered, as a request without an answer does: its percentiles
    // never leave it out.
    const latencyMs = r.latencyMs ?? (r.outcome === 'failed' || r.outcome === 'dropped' ? UNANSWERED_MS : null);
    if (latencyMs !== null) {
      this.latency.recordMs(latencyMs);
      if (blocks) this.latencyBlocks[this.block(r.intendedAtMs)]!.recordMs(latencyMs);
    }
    const identificationMs = identificationStageMs(r);
    if (identificationMs !== null) this.identificationLatency.recordMs(identificationMs);
    const o = r.obfuscation;
    if (o !== null && o.sentAtMs !== null) {
      this.obfuscationCalls++;
      this.obfuscationOutcomes[o.outcome] = (this.obfuscationOutcomes[o.outcome] ?? 0) + 1;
      if (o.status !== null) this.obfuscationStatus[o.status] = (this.obfuscationStatus[o.status] ?? 0) + 1;
      if (o.latencyMs !== null && o.outcome !== 'http_429') {
        this.obfuscationLatency.recordMs(o.latencyMs);
        if (blocks) this.obfuscationLatencyBlocks[this.block(r.intendedAtMs)]!.recordMs(o.latencyMs);
      }
    }
  }
}

/**
 * A document's identification stage (model ms), as the percentiles count it: unanswered when the stage failed it or
 * a piece was dropped (as end to end), none when the run stopped before it ended.
 */
function identificationStageMs(r: DocumentRecord): number | null {
  if (r.identification.latencyMs !== null) return r.identification.latencyMs;
  const stageFailed = (r.outcome === 'failed' && r.failedStage === 'identification') || r.outcome === 'dropped';
  return stageFailed ? UNANSWERED_MS : null;
}

/** The documents intended in one window of the timeline. */
class DocumentWindow {
  readonly latency = MsHistogram.create();
  documents = 0;
  ok = 0;
  failed = 0;
  unsent = 0;
  obfuscation429 = 0;

  add(r: DocumentRecord): void {
    this.documents++;
    if (r.outcome === 'ok') this.ok++;
    else if (r.outcome === 'failed' || r.outcome === 'dropped') this.failed++;
    else this.unsent++;
    if (r.obfuscation?.outcome === 'http_429') this.obfuscation429++;
    if (r.latencyMs !== null) this.latency.recordMs(r.latencyMs);
    else if (r.outcome !== 'unsent') this.latency.recordMs(UNANSWERED_MS);
  }
}

/** The documents of a deid run, per phase (all, and the steady state after its warm-up), per window and overall. */
export class DocumentSink {
  readonly phases: DocumentSlice[];
  /** Each phase's documents intended after its warm-up: what stage thresholds judge. */
  readonly steady: DocumentSlice[];
  readonly overall = new DocumentSlice();
  /** By intended time, `windowMs` each (the run's timeline windows); made as documents come. */
  readonly windows: DocumentWindow[] = [];
  private readonly index: ReadonlyMap<string, number>;

  constructor(
    private readonly phaseSpans: readonly { readonly name: string; readonly steady: DocumentSpan }[],
    readonly windowMs: number,
  ) {
    this.phases = phaseSpans.map(() => new DocumentSlice());
    this.steady = phaseSpans.map((p) => new DocumentSlice(p.steady));
    this.index = new Map(phaseSpans.map((p, i) => [p.name, i]));
  }

  add(r: DocumentRecord): void {
    const i = this.index.get(r.phase);
    if (i === undefined) throw new Error(`documents.ndjson: phase ${JSON.stringify(r.phase)} is not in the plan`);
    this.phases[i]!.add(r);
    if (r.intendedAtMs >= this.phaseSpans[i]!.steady.fromMs) this.steady[i]!.add(r);
    this.overall.add(r);
    const w = Math.max(0, Math.floor(r.intendedAtMs / this.windowMs));
    for (let k = this.windows.length; k <= w; k++) this.windows.push(new DocumentWindow());
    this.windows[w]!.add(r);
  }
}

/** The record's line of documents.ndjson. */
export function formatDocumentLine(r: DocumentRecord): string {
  return `${JSON.stringify(r)}\n`;
}

/**
 * A line of documents.ndjson back, checked for every field the judge reads; throws naming what is wrong (the caller
 * adds file and line).
 */
export function parseDocumentLine(line: string): DocumentRecord {
  let value: DocumentRecord;
  try {
    value = JSON.parse(line) as DocumentRecord;
  } catch {
    throw new Error('not a JSON line');
  }
  const problem = documentProblem(value);
  if (problem !== undefined) throw new Error(problem);
  return value;
}

/** Why a value is not a document record, or undefined when it is one. */
function documentProblem(v: DocumentRecord): string | undefined {
  const finite = (x: unknown): boolean => typeof x === 'number' && Number.isFinite(x);
  const finiteOrNull = (x: unknown): boolean => x === null || finite(x);
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return 'not a JSON object';
  if (!Number.isSafeInteger(v.doc) || v.doc < 0) return 'doc: expected a whole number ≥ 0';
  if (typeof v.phase !== 'string') return 'phase: expected a phase name';
  if (!finite(v.intendedAtMs)) return 'intendedAtMs: expected a number';
  if (!['ok', 'failed', 'dropped', 'unsent'].includes(v.outcome))
    return 'outcome: expected ok, failed, dropped or unsent';
  if (!finiteOrNull(v.latencyMs)) return 'latencyMs: expected a number or null';
  const i = v.identification;
  if (typeof i !== 'object' || i === null || !Number.isSafeInteger(i.truncated))
    return 'identification: expected {outcomes, latencyMs, truncated}';
  const o = v.obfuscation;
  if (
    o !== null &&
    (typeof o !== 'object' ||
      typeof o.outcome !== 'string' ||
      !finiteOrNull(o.latencyMs) ||
      !finiteOrNull(o.sentAtMs) ||
      !finiteOrNull(o.status))
  ) {
    return 'obfuscation: expected null or {outcome, status, sentAtMs, latencyMs, …}';
  }
  if (v.failedStage !== null && v.failedStage !== 'identification' && v.failedStage !== 'obfuscation')
    return 'failedStage: expected identification, obfuscation or null';
  if (v.phiPlanted !== undefined && v.phiPlanted !== null && !Number.isSafeInteger(v.phiPlanted))
    return 'phiPlanted: expected a whole number or null';
  if (v.phi !== undefined && v.phi !== null && (typeof v.phi !== 'object' || typeof v.phi.overall !== 'object'))
    return 'phi: expected null or {overall, byKind, byLengthClass, straddling, method}';
  return undefined;
}

const stat = (v: number): number | 'unanswered' | null =>
  !Number.isFinite(v) ? null : isUnanswered(v) ? 'unanswered' : Math.round(v * 1000) / 1000;
const latencyStats = (h: MsHistogram) => {
  const s = h.summary();
  return { count: s.count, p50: stat(s.p50), p95: stat(s.p95), p99: stat(s.p99), max: stat(s.max) };
};

/** The windows as summary.json's deid.timeline shows them. */
export function documentTimeline(sink: DocumentSink) {
  return sink.windows.map((w, i) => ({
    startS: (i * sink.windowMs) / 1000,
    documents: w.documents,
    ok: w.ok,
    failed: w.failed,
    unsent: w.unsent,
    obfuscation429: w.obfuscation429,
    documentLatencyMs: { p50: stat(w.latency.summary().p50), p95: stat(w.latency.summary().p95) },
  }));
}

/**
 * A phase as summary.json shows it: counts of all its documents, latencies of its steady state (after the warm-up), as
 * the identification table.
 */
export function documentSliceSummary(all: DocumentSlice, steady: DocumentSlice = all) {
  return {
    documents: all.documents,
    ok: all.ok,
    failed: { identification: all.failedIdentification, obfuscation: all.failedObfuscation },
    dropped: all.dropped,
    unsent: all.unsent,
    truncated: all.truncated,
    documentLatencyMs: latencyStats(steady.latency),
    identification: { latencyMs: latencyStats(steady.identificationLatency) },
    obfuscation: {
      calls: all.obfuscationCalls,
      outcomes: { ...all.obfuscationOutcomes },
      latencyMs: latencyStats(steady.obfuscationLatency),
    },
  };
}
