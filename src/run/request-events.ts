/**
 * What a run does with each request's fate as soon as it is known: its line of events.ndjson (the
 * source of truth), its numbers in the Recorder (from that very record, so a re-judged run sees the
 * same), and the watch for a target that stopped answering. A class of its own so that the warm-up
 * rehearses the very code the run then runs (warm-up.ts).
 */
import type { SecretMask } from '../core/index.js';
import type { RequestEvent } from '../engine/index.js';
import { ErrorSampler, type EventRecord, type EventSink, formatEventLine, toEventRecord } from '../judge/index.js';
import type { Plan } from '../plan/index.js';
import type { TargetWatch } from './target-watch.js';

interface RequestEventsOptions {
  readonly plan: Plan;
  readonly sink: EventSink;
  readonly watch: TargetWatch;
  readonly secrets: SecretMask;
  /** Takes each line of events.ndjson, in the order the fates are known. */
  readonly write: (line: string) => void;
  /** Called, once per request that shows it, with why the target is taken as gone. */
  readonly onTargetGone: (why: string) => void;
  /** With --verbose: each line, for the terminal. */
  readonly verboseLog?: ((line: string) => void) | undefined;
  /** Each record as it is made (the live progress reads them). */
  readonly onRecord?: (record: EventRecord) => void;
}

export class RequestEvents {
  /** Each phase's name as JSON, once: every line carries it. */
  private readonly phaseJson: readonly string[];
  /** A failed request's error and, first in its group, what was said: masked before the record is made. */
  private readonly errors: ErrorSampler;

  constructor(private readonly options: RequestEventsOptions) {
    this.phaseJson = options.plan.phases.map((p) => JSON.stringify(p.name));
    this.errors = new ErrorSampler(options.secrets);
  }

  handle(e: RequestEvent): void {
    const o = this.options;
    const error = this.errors.recordOf(e.outcome, e.result?.status, e.result?.failure);
    const record = toEventRecord(o.plan.phases[e.phase]!.name, e, o.plan.timeScale, error);
    o.sink.add(record);
    o.onRecord?.(record);
    const gone = o.watch.observe(record);
    if (gone !== undefined) o.onTargetGone(gone);
    const line = o.secrets.redact(formatEventLine(record, this.phaseJson[e.phase]!));
    o.write(line);
    o.verboseLog?.(`request: ${line.trimEnd()}`);
  }
}
