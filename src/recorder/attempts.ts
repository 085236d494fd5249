/**
 * Every attempt put on the wire, in compact form, for the rate-limit envelope's judge: the send
 * time of each attempt the server did not refuse with a 429 (8 bytes), and the send time, answer
 * time and phase of each 429 (24 bytes). Typed arrays that double as they fill, so a plan of 10
 * million requests costs about 80 MB here, not 10 million objects. Times are model ms.
 */
import type { RecordableEvent } from './recorder.js';

/** A Float64Array that grows by doubling. */
class Float64List {
  private data = new Float64Array(1024);
  length = 0;

  push(value: number): void {
    if (this.length === this.data.length) {
      const bigger = new Float64Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.length++] = value;
  }

  at(i: number): number {
    return this.data[i]!;
  }

  /** A copy of the values, in the order pushed. */
  copy(): Float64Array {
    return this.data.slice(0, this.length);
  }
}

export class AttemptLog {
  private readonly admitted = new Float64List();
  private readonly refusedSent = new Float64List();
  private readonly refusedEnd = new Float64List();
  private readonly refusedPhase = new Float64List();
  /** The largest send lag (fired − intended) of any request, model ms; 0 before any was sent. */
  maxSendLagMs = 0;

  /**
   * Adds the attempts of one event. Every attempt that did not get a 429 counts as admitted, those
   * without an answer too (the server may have taken them): the judge then never counts fewer
   * requests than the server did. An event without `tries` (written before they were recorded)
   * stands for its final attempt only.
   */
  add(event: RecordableEvent): void {
    const r = event.result;
    if (event.firedAtMs === undefined || r === undefined) return;
    this.maxSendLagMs = Math.max(this.maxSendLagMs, event.firedAtMs - event.intendedAtMs);
    const tries = r.tries ?? [{ sentAtMs: r.lastSentAtMs, endAtMs: r.endAtMs, ...(r.status === undefined ? {} : { status: r.status }) }];
    for (const t of tries) {
      if (t.status === 429) {
        this.refusedSent.push(t.sentAtMs);
        this.refusedEnd.push(t.endAtMs);
        this.refusedPhase.push(event.phase);
      } else {
        this.admitted.push(t.sentAtMs);
      }
    }
  }

  /** Attempts that were not refused with a 429. */
  get admittedCount(): number {
    return this.admitted.length;
  }

  /** 429 answers received. */
  get refusedCount(): number {
    return this.refusedSent.length;
  }

  /** Send times of the attempts not refused, ascending (a sorted copy). */
  admittedSentAtMs(): Float64Array {
    return this.admitted.copy().sort();
  }

  /** The i-th 429 (in the order recorded): its send and answer times and its request's phase. */
  refused(i: number): { readonly sentAtMs: number; readonly endAtMs: number; readonly phase: number } {
    return { sentAtMs: this.refusedSent.at(i), endAtMs: this.refusedEnd.at(i), phase: this.refusedPhase.at(i) };
  }
}
