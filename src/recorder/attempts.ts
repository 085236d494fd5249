/**
 * Every attempt put on the wire, in compact form, for the rate-limit envelope's judge: the send and
 * answer times of each attempt the server did not refuse with a 429 (16 bytes), and the send time,
 * answer time and phase of each 429 (18 bytes). Typed arrays that double as they fill, so a plan of
 * 10 million requests costs about 160 MB here, not 10 million objects. Times are model ms.
 */
import type { RecordableEvent, RecordedTry } from './event.js';

/** A typed array that grows by doubling. */
class GrowingArray<A extends Float64Array | Uint16Array> {
  private data: A;
  length = 0;

  constructor(private readonly make: (length: number) => A) {
    this.data = make(1024);
  }

  push(value: number): void {
    if (this.length === this.data.length) {
      const bigger = this.make(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.length++] = value;
  }

  /** A copy of the values, in the order pushed. */
  copy(): A {
    return this.data.slice(0, this.length) as A;
  }
}

/** The 429s of a run, as parallel arrays in the order recorded. */
export interface RefusedAttempts {
  /** When each was sent (model ms). */
  readonly sentAtMs: Float64Array;
  /** When its 429 came back (model ms). */
  readonly endAtMs: Float64Array;
  /** The phase index of its request. */
  readonly phase: Uint16Array;
  /** Its error code: 0 when its body named none, else 1 + its index in `codes`. */
  readonly code: Uint16Array;
  /** The error codes the 429s named, each once. */
  readonly codes: readonly string[];
}

/**
 * When the attempts a server admitted were sent, and the latest each may have reached it: two sorted lists, not pairs
 * (the judge needs only counts).
 */
export interface AdmittedTimes {
  readonly sentAtMs: Float64Array;
  readonly endAtMs: Float64Array;
}

export class AttemptLog {
  private readonly admittedSent = new GrowingArray((n) => new Float64Array(n));
  private readonly admittedEnd = new GrowingArray((n) => new Float64Array(n));
  /** 1 where the admitted attempt got no answer (its end is when the client gave up, not an answer). */
  private readonly admittedUnanswered = new GrowingArray((n) => new Uint16Array(n));
  private readonly refusedSent = new GrowingArray((n) => new Float64Array(n));
  private readonly refusedEnd = new GrowingArray((n) => new Float64Array(n));
  private readonly refusedPhase = new GrowingArray((n) => new Uint16Array(n));
  private readonly refusedCode = new GrowingArray((n) => new Uint16Array(n));
  /** The distinct error codes of 429s, and each one's position (a run sees one or two). */
  private readonly codes: string[] = [];
  private readonly codeIndex = new Map<string, number>();

  /**
   * Adds the attempts of one event. Every attempt that did not get a 429 counts as admitted, those
   * without an answer too (the server may have taken them): the judge then never counts fewer
   * requests than the server did. An event without `tries` (written before they were recorded)
   * stands for its final attempt only.
   */
  add(event: RecordableEvent): void {
    const r = event.result;
    if (event.firedAtMs === undefined || r === undefined) return;
    if (!(event.phase >= 0 && event.phase <= 0xffff))
      throw new RangeError(`phase index ${event.phase}: expected 0 to 65535`);
    const tries: readonly RecordedTry[] = r.tries ?? [
      { sentAtMs: r.lastSentAtMs, endAtMs: r.endAtMs, ...(r.status === undefined ? {} : { status: r.status }) },
    ];
    for (const t of tries) {
      if (t.status === 429) {
        this.refusedSent.push(t.sentAtMs);
        this.refusedEnd.push(t.endAtMs);
        this.refusedPhase.push(event.phase);
        this.refusedCode.push(this.codeNumber(t.errorCode));
      } else {
        this.admittedSent.push(t.sentAtMs);
        this.admittedEnd.push(t.endAtMs);
        this.admittedUnanswered.push(typeof t.status === 'number' ? 0 : 1);
      }
    }
  }

  /** Attempts that were not refused with a 429. */
  get admittedCount(): number {
    return this.admittedSent.length;
  }

  /** 429 answers received. */
  get refusedCount(): number {
    return this.refusedSent.length;
  }

  /**
   * The attempts not refused: their send times and the latest they may have reached the server, each
   * sorted ascending on its own (copies). An answer bounds that; an attempt without one (timeout,
   * reset, …) may have been taken after the client gave up, up to `unansweredWithinMs` after its send.
   */
  admittedTimes(unansweredWithinMs: number): AdmittedTimes {
    const sent = this.admittedSent.copy();
    const end = this.admittedEnd.copy();
    const unanswered = this.admittedUnanswered.copy();
    for (let i = 0; i < end.length; i++)
      if (unanswered[i] === 1) end[i] = Math.max(end[i]!, sent[i]! + unansweredWithinMs);
    return { sentAtMs: sent.sort(), endAtMs: end.sort() };
  }

  /**
   * Every attempt, 429s included, as the client saw it: its send and its end (the answer, or when the
   * client gave up), each sorted ascending on its own (copies): what in-flight counts need.
   */
  clientTimes(): AdmittedTimes {
    const sent = new Float64Array(this.admittedSent.length + this.refusedSent.length);
    sent.set(this.admittedSent.copy());
    sent.set(this.refusedSent.copy(), this.admittedSent.length);
    const end = new Float64Array(sent.length);
    end.set(this.admittedEnd.copy());
    end.set(this.refusedEnd.copy(), this.admittedEnd.length);
    return { sentAtMs: sent.sort(), endAtMs: end.sort() };
  }

  /** The 429s, in the order recorded (copies). */
  refusedAttempts(): RefusedAttempts {
    return {
      sentAtMs: this.refusedSent.copy(),
      endAtMs: this.refusedEnd.copy(),
      phase: this.refusedPhase.copy(),
      code: this.refusedCode.copy(),
      codes: [...this.codes],
    };
  }

  /** 0 for no code, else 1 + the code's index (a new code is added; past 65,534 of them they count as none). */
  private codeNumber(code: string | undefined): number {
    if (code === undefined) return 0;
    let index = this.codeIndex.get(code);
    if (index === undefined) {
      if (this.codes.length >= 0xfffe) return 0;
      index = this.codes.push(code) - 1;
      this.codeIndex.set(code, index);
    }
    return index + 1;
  }
}
