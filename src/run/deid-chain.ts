/**
 * The de-identification chain in a deid run. The engine sends every piece of a document as a planned
 * identification request (its events.ndjson line, judged as in any run); this module
 *  - holds a document's pieces to `concurrency` at a time (1: in order), a piece that waited being
 *    intended when it was free to go (RequestResult.readyAtMs), so identification latency is the
 *    service's and the wait is the document's;
 *  - once every piece has its fate, merges their entities at document offsets and sends the
 *    obfuscation call (its own connections, its own limits), unless a piece failed: then the
 *    document failed at identification;
 *  - writes the document's line of documents.ndjson and feeds the DocumentSink.
 * Entities past a piece's output cap (`truncated`) are not asked for again in a load run: that would
 * send requests the plan and the guard did not count. The document says so (identification.truncated).
 */
import type { ApiCallFn, RequestResult } from '../client/api.js';
import type { Clock } from '../core/clock.js';
import type { SecretMask } from '../core/redact.js';
import { mergeEntities } from '../deid/index.js';
import { type RequestEvent, shift } from '../engine/index.js';
import { type DocumentRecord, type DocumentSink, formatDocumentLine, toEventRecord } from '../judge/index.js';
import type { TextSource } from '../payload/index.js';
import { type Plan, documentOfSeq } from '../plan/index.js';

export interface DeidChainOptions {
  readonly plan: Plan;
  readonly texts: TextSource;
  /** The obfuscation endpoint's client (createApiCall). */
  readonly obfuscate: ApiCallFn;
  readonly style: 'tag' | 'mask';
  readonly concurrency: number;
  /** The run's model clock. */
  readonly clock: Clock;
  readonly sink: DocumentSink;
  readonly secrets: SecretMask;
  /** Takes each line of documents.ndjson. */
  readonly write: (line: string) => void;
}

interface OpenDocument {
  readonly events: (RequestEvent | undefined)[];
  received: number;
  /** Pieces sent or waiting for a slot. */
  running: number;
  readonly waiting: (() => void)[];
}

export class DeidChain {
  private readonly open = new Map<number, OpenDocument>();
  private readonly pending = new Set<Promise<void>>();
  private readonly documents;
  /** The run's start on the clock (the engine's): event times are from it. */
  private startMs = 0;

  constructor(private readonly options: DeidChainOptions) {
    this.documents = options.plan.documents!;
  }

  /** The engine's start (EngineOptions.onStart). */
  start(startMs: number): void {
    this.startMs = startMs;
  }

  /** Wraps identification: a document's pieces go `concurrency` at a time. */
  identify(send: (text: string, seq: number, dueAtMs?: number) => Promise<RequestResult | undefined>): (text: string, seq: number, dueAtMs?: number) => Promise<RequestResult | undefined> {
    return async (text, seq, dueAtMs) => {
      const doc = this.documentOf(documentOfSeq(this.documents, seq));
      if (doc.running >= this.options.concurrency) {
        await new Promise<void>((resolve) => doc.waiting.push(resolve));
        const readyAtMs = this.options.clock.nowMs();
        doc.running++;
        const result = await send(text, seq, readyAtMs).finally(() => this.free(doc));
        return result === undefined ? undefined : { ...result, readyAtMs };
      }
      doc.running++;
      return send(text, seq, dueAtMs).finally(() => this.free(doc));
    };
  }

  /** Each identification event, as soon as the engine emits it. */
  observe(e: RequestEvent): void {
    const d = documentOfSeq(this.documents, e.seq);
    const doc = this.documentOf(d);
    const first = this.documents.firstSeq[d]!;
    doc.events[e.seq - first] = e;
    doc.received++;
    if (doc.received < doc.events.length) return;
    this.open.delete(d);
    const done = this.finish(d, doc.events as RequestEvent[]).finally(() => this.pending.delete(done));
    this.pending.add(done);
  }

  /** Resolves once every obfuscation call started has ended. */
  async drain(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  private documentOf(d: number): OpenDocument {
    let doc = this.open.get(d);
    if (doc === undefined) {
      const n = this.documents.firstSeq[d + 1]! - this.documents.firstSeq[d]!;
      doc = { events: new Array(n).fill(undefined), received: 0, running: 0, waiting: [] };
      this.open.set(d, doc);
    }
    return doc;
  }

  private free(doc: OpenDocument): void {
    doc.running--;
    doc.waiting.shift()?.();
  }

  private async finish(d: number, events: readonly RequestEvent[]): Promise<void> {
    const o = this.options;
    const k = o.plan.timeScale;
    const phase = o.plan.phases[events[0]!.phase]!;
    const intendedAtMs = events[0]!.intendedAtMs;
    const document = o.texts.document(d);
    o.texts.release(d);
    const outcomes: Record<string, number> = {};
    for (const e of events) outcomes[e.outcome] = (outcomes[e.outcome] ?? 0) + 1;
    const records = events.map((e) => toEventRecord(phase.name, e, k));
    const identified = records.every((r) => r.outcome === 'ok') && document !== undefined;
    // The identification stage: the last piece's answer, from the document's intended time (model ms, overheads once).
    const identificationMs = identified ? Math.max(...records.map((r) => r.intendedAtMs - intendedAtMs + r.latencyMs!)) : null;
    const entities = identified
      ? mergeEntities(events.flatMap((e, i) => (e.result?.entities ?? []).map((x) => ({ ...x, start: x.start + document.pieces[i]!.offset, end: x.end + document.pieces[i]!.offset }))))
      : [];
    const base = {
      doc: d,
      phase: phase.name,
      intendedAtMs,
      firstSeq: this.documents.firstSeq[d]!,
      pieces: events.length,
      characters: document?.text.length ?? 0,
      identification: { outcomes, latencyMs: identificationMs, truncated: events.filter((e) => e.result?.truncated === true).length },
      entities: entities.length,
    };
    let record: DocumentRecord;
    if (!identified) {
      const unsent = events.some((e) => e.outcome === 'unsent');
      record = { ...base, obfuscation: null, endAtMs: null, latencyMs: null, outcome: unsent ? 'unsent' : 'failed', failedStage: unsent ? null : 'identification' };
    } else {
      const readyAtMs = o.clock.nowMs() - this.startMs;
      const body = JSON.stringify({ text: document.text, entities, style: o.style });
      const result = await o.obfuscate(body, Buffer.byteLength(body), base.firstSeq, this.startMs + readyAtMs);
      if (result === undefined) {
        record = { ...base, obfuscation: null, endAtMs: null, latencyMs: null, outcome: 'unsent', failedStage: null };
      } else {
        const r = toEventRecord(phase.name, { seq: base.firstSeq, intendedAtMs: readyAtMs, outcome: result.outcome, firedAtMs: result.sentAtMs - this.startMs, result: shift(result, this.startMs) }, k);
        const ok = r.outcome === 'ok';
        record = {
          ...base,
          obfuscation: { readyAtMs: r.intendedAtMs, sentAtMs: r.firedAtMs, endAtMs: r.endAtMs, latencyMs: r.latencyMs, outcome: r.outcome, status: r.status, tries: r.tries },
          endAtMs: r.endAtMs,
          latencyMs: ok && identificationMs !== null && r.latencyMs !== null ? Math.round((identificationMs + accountedGap(readyAtMs, records, k) + r.latencyMs) * 1000) / 1000 : null,
          outcome: ok ? 'ok' : 'failed',
          failedStage: ok ? null : 'obfuscation',
        };
      }
    }
    o.sink.add(record);
    o.write(o.secrets.redact(formatDocumentLine(record)));
  }
}

/** The wall time between the last piece's answer and the obfuscation's readiness, counted once at k > 1 (it is our own). */
function accountedGap(readyAtMs: number, records: readonly { readonly endAtMs: number | null }[], k: number): number {
  const lastEnd = Math.max(...records.map((r) => r.endAtMs ?? 0));
  return Math.max(0, readyAtMs - lastEnd) / k;
}


