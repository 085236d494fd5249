/**
 * A document's line of documents.ndjson in a deid run, from its pieces' identification events and its
 * obfuscation call; and the document's end-to-end time, in which our own gaps along the chain count once.
 */
import type { FoundEntity } from '../client/index.js';
import type { TimeScale } from '../core/index.js';
import { mergeEntities } from '../deid/index.js';
import type { RequestEvent } from '../engine/index.js';
import type { DocumentRecord, EventRecord } from '../judge/index.js';
import type { SentDocument } from '../texts/index.js';

/** A document's line before its obfuscation: what its identification came to. */
export type DocumentBase = Omit<DocumentRecord, 'obfuscation' | 'endAtMs' | 'latencyMs' | 'outcome' | 'failedStage'>;

/** A document whose every piece was identified, and whose entities merged: what its obfuscation call takes. */
export interface Identified {
  readonly text: string;
  /** Its pieces' entities at document offsets, merged. */
  readonly entities: FoundEntity[];
  /** The identification stage (model ms, from the document's intended time). */
  readonly latencyMs: number;
}

interface DocumentPieces {
  readonly d: number;
  readonly phase: string;
  readonly firstSeq: number;
  readonly events: readonly RequestEvent[];
  /** The events as events.ndjson has them. */
  readonly records: readonly EventRecord[];
  /** Its text and pieces, as the texts sent them; undefined when none were kept. */
  readonly document: SentDocument | undefined;
  readonly releasedBy: ReadonlyMap<number, number>;
  readonly scale: TimeScale;
}

/** The document's line so far, and what obfuscation takes when it can go on (identified undefined: it cannot). */
export function identifiedPieces(p: DocumentPieces): { base: DocumentBase; identified: Identified | undefined } {
  const { events, records, document } = p;
  const outcomes: Record<string, number> = {};
  for (const e of events) outcomes[e.outcome] = (outcomes[e.outcome] ?? 0) + 1;
  // What could not go through the chain: a piece dropped at maxInFlight (ours), one without a 2xx (the service's),
  // entities outside their piece (an answer the chain cannot use), or texts that are not the plan's (a bug).
  const problem =
    document === undefined || document.pieces.length !== events.length
      ? `the document's pieces (${document?.pieces.length ?? 'none kept'}) are not its ${events.length} planned requests`
      : entityProblem(events, document);
  const answered = records.every((r) => r.outcome === 'ok');
  const identified =
    answered && problem === undefined
      ? {
          text: document!.text,
          entities: documentEntities(events, document!),
          latencyMs: identificationStageMs(records, p.releasedBy, p.scale),
        }
      : undefined;
  const base: DocumentBase = {
    doc: p.d,
    phase: p.phase,
    intendedAtMs: events[0]!.intendedAtMs,
    firstSeq: p.firstSeq,
    pieces: events.length,
    characters: document?.text.length ?? 0,
    identification: {
      outcomes,
      latencyMs: identified?.latencyMs ?? null,
      truncated: events.filter((e) => e.result?.truncated === true).length,
    },
    entities: identified?.entities.length ?? 0,
    problem: answered ? (problem ?? null) : null,
  };
  return { base, identified };
}

/** Its pieces' entities moved to document offsets, then merged. */
function documentEntities(events: readonly RequestEvent[], document: SentDocument): FoundEntity[] {
  return mergeEntities(
    events.flatMap((e, i) =>
      (e.result?.entities ?? []).map((x) => ({
        ...x,
        start: x.start + document.pieces[i]!.offset,
        end: x.end + document.pieces[i]!.offset,
      })),
    ),
  );
}

/** The line of a document that went no further than identification: unsent, dropped or failed there. */
export function notIdentifiedRecord(base: DocumentBase, events: readonly RequestEvent[]): DocumentRecord {
  const unsent = events.some((e) => e.outcome === 'unsent');
  const dropped = events.some((e) => e.outcome === 'dropped');
  const outcome = unsent ? 'unsent' : dropped ? 'dropped' : 'failed';
  return {
    ...base,
    obfuscation: null,
    endAtMs: null,
    latencyMs: null,
    outcome,
    failedStage: outcome === 'failed' ? 'identification' : null,
  };
}

/** The line of a document whose obfuscation call was answered (`r`, as events.ndjson would have it). */
export function obfuscatedRecord(
  base: DocumentBase,
  r: EventRecord,
  readyAtMs: number,
  records: readonly EventRecord[],
  identificationMs: number,
  scale: TimeScale,
): DocumentRecord {
  const ok = r.outcome === 'ok';
  return {
    ...base,
    obfuscation: {
      readyAtMs: r.intendedAtMs,
      sentAtMs: r.firedAtMs,
      endAtMs: r.endAtMs,
      latencyMs: r.latencyMs,
      outcome: r.outcome,
      status: r.status,
      tries: r.tries,
    },
    endAtMs: r.endAtMs,
    latencyMs:
      ok && r.latencyMs !== null
        ? Math.round((identificationMs + accountedGap(readyAtMs, records, scale) + r.latencyMs) * 1000) / 1000
        : null,
    outcome: ok ? 'ok' : 'failed',
    failedStage: ok ? null : 'obfuscation',
  };
}

/**
 * The identification stage of a document in model ms from its intended time: each piece is done at its
 * ready time plus its latency (accounted, overheads once); a piece that waited was ready when the piece
 * that freed its slot was done, plus our own gap between that answer and its send ÷ k. At k = 1 this is
 * the last answer's raw time; at k > 1 a mock's hold and the loopback overheads of each hop do not add up
 * k times along the chain.
 */
export function identificationStageMs(
  pieces: readonly {
    readonly seq: number;
    readonly intendedAtMs: number;
    readonly readyAtMs?: number;
    readonly endAtMs: number | null;
    readonly latencyMs: number | null;
  }[],
  releasedBy: ReadonlyMap<number, number>,
  scale: TimeScale,
): number {
  const bySeq = new Map(pieces.map((p) => [p.seq, p]));
  const done = new Map<number, number>();
  const doneAt = (seq: number): number => {
    const known = done.get(seq);
    if (known !== undefined) return known;
    const p = bySeq.get(seq)!;
    const by = releasedBy.get(seq);
    const releaser = by === undefined ? undefined : bySeq.get(by);
    const ready =
      releaser === undefined
        ? p.intendedAtMs - pieces[0]!.intendedAtMs
        : doneAt(releaser.seq) + scale.toWallMs(Math.max(0, (p.readyAtMs ?? p.intendedAtMs) - (releaser.endAtMs ?? 0)));
    const at = ready + (p.latencyMs ?? 0);
    done.set(seq, at);
    return at;
  };
  return Math.round(Math.max(...pieces.map((p) => doneAt(p.seq))) * 1000) / 1000;
}

/** Why a document's entities cannot be merged (one outside the piece it was found in), or undefined. */
function entityProblem(events: readonly RequestEvent[], document: SentDocument): string | undefined {
  for (const [i, e] of events.entries()) {
    const length = document.pieces[i]!.text.length;
    for (const x of e.result?.entities ?? []) {
      if (!(x.start >= 0 && x.start < x.end && x.end <= length))
        return `piece ${i + 1}: an entity at [${x.start}, ${x.end}) outside its ${length} characters`;
    }
  }
  return undefined;
}

/**
 * The wall time between the last piece's answer and the obfuscation's readiness, counted once at k > 1 (it is our own).
 */
function accountedGap(
  readyAtMs: number,
  records: readonly { readonly endAtMs: number | null }[],
  scale: TimeScale,
): number {
  const lastEnd = Math.max(...records.map((r) => r.endAtMs ?? 0));
  return scale.toWallMs(Math.max(0, readyAtMs - lastEnd));
}
