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
import type { ApiCallFn, RequestResult } from '../client/index.js';
import type { Clock, SecretMask, TimeScale } from '../core/index.js';
import { type RequestEvent, shift } from '../engine/index.js';
import {
  type DocumentRecord,
  type DocumentSink,
  type EventRecord,
  formatDocumentLine,
  toEventRecord,
} from '../judge/index.js';
import { documentOfSeq, holdsDocument, type Plan } from '../plan/index.js';
import type { SentDocument, TextSource } from '../texts/index.js';
import { documentPhi } from './document-phi.js';
import {
  type DocumentBase,
  type Identified,
  identifiedPieces,
  notIdentifiedRecord,
  obfuscatedRecord,
} from './document-record.js';

interface DeidChainOptions {
  readonly plan: Plan;
  readonly texts: TextSource;
  /** The obfuscation endpoint's client (createApiCall). */
  readonly obfuscate: ApiCallFn;
  readonly style: 'tag' | 'mask';
  readonly concurrency: number;
  /** The run's model clock. */
  readonly clock: Clock;
  /** The run's time scale: our own gaps along a document's chain are counted once, in wall time. */
  readonly scale: TimeScale;
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
  /** Pieces waiting for a slot, each resumed with the piece whose answer freed it. */
  readonly waiting: ((release: Release) => void)[];
  /** Which piece's answer released each piece that waited (seq → seq). */
  readonly releasedBy: Map<number, number>;
  /** Its first piece was dropped at maxInFlight: so are the others. */
  dropped: boolean;
}

/** The piece whose answer freed a slot, and how long a time-scaled mock held that answer (model ms). */
interface Release {
  readonly seq: number;
  readonly lagMs: number;
}

export class DeidChain {
  private readonly open = new Map<number, OpenDocument>();
  private readonly pending = new Set<Promise<void>>();
  private readonly documents;
  /** The run's start on the clock (the engine's): event times are from it. */
  private startMs = 0;
  private waitingNow = 0;

  constructor(private readonly options: DeidChainOptions) {
    this.documents = options.plan.documents!;
    // A shard's texts draw every document to keep the whole plan's texts; those of other shards are neither kept nor
    // counted as this shard's.
    for (let d = 0; d < this.documents.count; d++) if (!holdsDocument(options.plan, d)) options.texts.skip(d);
  }

  /** The engine's start (EngineOptions.onStart). */
  start(startMs: number): void {
    this.startMs = startMs;
  }

  /**
   * Pieces handed over by the engine and held here, not yet sent: not in flight at the service (EngineOptions.queued).
   */
  get queued(): number {
    return this.waitingNow;
  }

  /**
   * A document is admitted or dropped whole (EngineOptions.admission): its first piece by maxInFlight, the
   * rest as it went. A dropped document sends nothing; an admitted one is never cut short by the cap.
   */
  admission(seq: number): 'decide' | 'admit' | 'drop' {
    const d = documentOfSeq(this.documents, seq);
    if (this.documents.firstSeq[d] === seq) return 'decide';
    return this.documentOf(d).dropped ? 'drop' : 'admit';
  }

  /**
   * Wraps identification: a document's pieces go `concurrency` at a time. A piece that waits is free
   * to go when an earlier piece's answer comes: its latency runs from then (RequestResult.readyAtMs),
   * and a time-scaled mock is told it is due at that answer's model time (less the mock's hold).
   */
  identify(
    send: (text: string, seq: number, dueAtMs?: number) => Promise<RequestResult | undefined>,
  ): (text: string, seq: number, dueAtMs?: number) => Promise<RequestResult | undefined> {
    return async (text, seq, dueAtMs) => {
      const doc = this.documentOf(documentOfSeq(this.documents, seq));
      if (doc.running < this.options.concurrency) {
        doc.running++;
        return this.sent(doc, seq, await send(text, seq, dueAtMs));
      }
      this.waitingNow++;
      const release = await new Promise<Release>((resolve) => doc.waiting.push(resolve));
      this.waitingNow--;
      doc.releasedBy.set(seq, release.seq);
      const readyAtMs = this.options.clock.nowMs();
      doc.running++;
      const result = this.sent(doc, seq, await send(text, seq, readyAtMs - release.lagMs));
      return result === undefined ? undefined : { ...result, readyAtMs };
    };
  }

  /** A piece's answer came (or none will): its slot goes to the next piece waiting. */
  private sent(doc: OpenDocument, seq: number, result: RequestResult | undefined): RequestResult | undefined {
    doc.running--;
    doc.waiting.shift()?.({ seq, lagMs: result?.tries.at(-1)?.lagMs ?? 0 });
    return result;
  }

  /** Each identification event, as soon as the engine emits it. */
  observe(e: RequestEvent): void {
    const d = documentOfSeq(this.documents, e.seq);
    const doc = this.documentOf(d);
    const first = this.documents.firstSeq[d]!;
    doc.events[e.seq - first] = e;
    doc.received++;
    if (e.outcome === 'dropped') doc.dropped = true;
    if (doc.received < doc.events.length) return;
    this.open.delete(d);
    const done = this.finish(d, doc.events as RequestEvent[], doc.releasedBy).finally(() => this.pending.delete(done));
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
      doc = {
        events: new Array(n).fill(undefined),
        received: 0,
        running: 0,
        waiting: [],
        releasedBy: new Map(),
        dropped: false,
      };
      this.open.set(d, doc);
    }
    return doc;
  }

  /** Every piece has its fate: the document's line, after its obfuscation call when every piece was identified. */
  private async finish(
    d: number,
    events: readonly RequestEvent[],
    releasedBy: ReadonlyMap<number, number>,
  ): Promise<void> {
    const o = this.options;
    const phase = o.plan.phases[events[0]!.phase]!;
    const document = o.texts.document(d);
    o.texts.release(d);
    const records = events.map((e) => toEventRecord(phase.name, e, o.scale.k));
    const firstSeq = this.documents.firstSeq[d]!;
    const pieces = identifiedPieces({
      d,
      phase: phase.name,
      firstSeq,
      events,
      records,
      document,
      releasedBy,
      scale: o.scale,
    });
    const record =
      pieces.identified === undefined
        ? { ...notIdentifiedRecord(pieces.base, events), ...documentPhi(document, undefined, undefined) }
        : await this.obfuscate(pieces.base, phase.name, records, pieces.identified, document);
    o.sink.add(record);
    o.write(o.secrets.redact(formatDocumentLine(record)));
  }

  /** The obfuscation call of a document whose pieces were all identified, and the document's line from its answer. */
  private async obfuscate(
    base: DocumentBase,
    phaseName: string,
    records: readonly EventRecord[],
    identified: Identified,
    document: SentDocument | undefined,
  ): Promise<DocumentRecord> {
    const o = this.options;
    const readyAtMs = o.clock.nowMs() - this.startMs;
    const body = JSON.stringify({ text: identified.text, entities: identified.entities, style: o.style });
    // Due at the last answer's model time: a time-scaled mock held it for its lag, which a real service does not.
    const heldMs = Math.max(0, ...records.map((r) => r.tries.at(-1)?.lagMs ?? 0));
    const result = await o.obfuscate(body, Buffer.byteLength(body), base.firstSeq, this.startMs + readyAtMs - heldMs);
    if (result === undefined) {
      const phi = documentPhi(document, undefined, undefined);
      return {
        ...base,
        obfuscation: null,
        endAtMs: null,
        latencyMs: null,
        outcome: 'unsent',
        failedStage: null,
        ...phi,
      };
    }
    // Read from the answer only when it is the document's whole output (a 2xx).
    const output = result.outcome === 'ok' ? result.output : undefined;
    const phi = documentPhi(document, identified.entities, output);
    const r = toEventRecord(
      phaseName,
      {
        seq: base.firstSeq,
        intendedAtMs: readyAtMs,
        outcome: result.outcome,
        firedAtMs: result.sentAtMs - this.startMs,
        result: shift(result, this.startMs),
      },
      o.scale.k,
    );
    return { ...obfuscatedRecord(base, r, readyAtMs, records, identified.latencyMs, o.scale), ...phi };
  }
}
