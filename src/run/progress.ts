/**
 * Live progress of a run on stderr: on a terminal one line that updates every second; elsewhere (CI,
 * a file) a plain line every 10 s of wall time; `--quiet`, none. Each says how far the run is (model
 * time), the phase and its offered rate, the rate sent and the p95 of the latencies (as the definition counts
 * them) since the last line, the requests awaiting an answer, and the counts so far. Measured nothing: it reads
 * what the run records.
 */
import { type Clock, formatMs } from '../core/index.js';
import { countedLatencyMs, type EventRecord } from '../judge/index.js';
import { arrivalsDueBy, type Plan } from '../plan/index.js';
import { MsHistogram } from '../recorder/index.js';
import { formatDuration } from '../scenario/index.js';

export type ProgressMode = 'tty' | 'lines' | 'off';

/** Wall ms between lines: a terminal's line is rewritten every second; a log gets one line every 10 s. */
const PROGRESS_EVERY_WALL_MS: Record<Exclude<ProgressMode, 'off'>, number> = { tty: 1000, lines: 10_000 };

const ERASE_LINE = '\r\x1b[2K';

export class Progress {
  /** Latencies since the last line, as the latency definition counts them (model ms). */
  private recent = MsHistogram.create();
  private sentSince = 0;
  /** The run's t = 0 on the clock (model ms): when start() was called. */
  private startMs: number;
  private lastLineAtMs: number;
  private sent = 0;
  private resolved = 0;
  private readonly counts = { ok: 0, http429: 0, http504: 0, failed: 0 };
  private timer: NodeJS.Timeout | undefined;
  /** A terminal line is on screen (not yet erased). */
  private shown = false;

  constructor(
    private readonly plan: Plan,
    private readonly clock: Clock,
    private readonly mode: ProgressMode,
    private readonly write: (text: string) => void,
    /** A terminal's width: its line is cut to fit, since only the last row of a wrapped line can be rewritten. */
    private readonly columns: () => number | undefined = () => undefined,
  ) {
    this.startMs = clock.nowMs();
    this.lastLineAtMs = this.startMs;
  }

  /** A request's fate, as the run records it. */
  record(r: EventRecord): void {
    // Its fate is known: it no longer awaits an answer, whatever it was (a drop included).
    this.resolved++;
    const latencyMs = countedLatencyMs(r);
    if (latencyMs !== undefined) this.recent.recordMs(latencyMs);
    if (r.outcome === 'dropped' || r.outcome === 'unsent' || r.outcome === 'abandoned') return;
    this.sent++;
    this.sentSince++;
    if (r.outcome === 'ok') this.counts.ok++;
    else if (r.outcome === 'http_429') this.counts.http429++;
    else if (r.outcome === 'http_504') this.counts.http504++;
    // A stale connection is the client's, not a failure of the service.
    else if (r.outcome !== 'stale_connection') this.counts.failed++;
  }

  /** The line for model time `nowMs`, and a fresh start for the figures since the last line. */
  line(nowMs: number): string {
    const elapsedMs = Math.max(0, nowMs - this.startMs);
    const phase = this.plan.phases.find((p) => elapsedMs < p.startMs + p.durationMs) ?? this.plan.phases.at(-1);
    const sinceMin = (nowMs - this.lastLineAtMs) / 60_000;
    const offered = phase === undefined ? '' : ` · ${phase.name} at ${rpmAt(phase, elapsedMs)} rpm`;
    const sentRpm = sinceMin > 0 ? rounded(this.sentSince / sinceMin) : 0;
    const p95 = this.recent.count === 0 ? '—' : formatMs(this.recent.percentileMs(95));
    const awaiting = Math.max(0, arrivalsDueBy(this.plan, elapsedMs) - this.resolved);
    const c = this.counts;
    const text = `loadproof: ${formatDuration(elapsedMs)} of ${formatDuration(this.plan.durationMs)}${offered} · sent ${sentRpm} rpm, p95 ${p95} (since last line) · awaiting ${awaiting} · 2xx ${c.ok} 429 ${c.http429} 504 ${c.http504} errors ${c.failed}`;
    this.recent = MsHistogram.create();
    this.sentSince = 0;
    this.lastLineAtMs = nowMs;
    return text;
  }

  /** From `startMs` on the clock (now by default): the run's t = 0. */
  start(startMs: number = this.clock.nowMs()): void {
    this.startMs = startMs;
    this.lastLineAtMs = this.startMs;
    if (this.mode === 'off') return;
    this.timer = setInterval(() => this.show(), PROGRESS_EVERY_WALL_MS[this.mode]);
    this.timer.unref();
  }

  /** Stops the lines; a terminal's line is erased, so the table after it starts clean. */
  stop(): void {
    if (this.timer === undefined) return;
    clearInterval(this.timer);
    this.timer = undefined;
    this.clear();
  }

  /** Erases a terminal's line (before another line is written to stderr); the next second draws it again. */
  clear(): void {
    if (!this.shown) return;
    this.write(ERASE_LINE);
    this.shown = false;
  }

  private show(): void {
    const text = this.line(this.clock.nowMs());
    const width = this.columns();
    const fitted = width !== undefined && width > 1 && text.length >= width ? `${text.slice(0, width - 2)}…` : text;
    this.write(this.mode === 'tty' ? `${ERASE_LINE}${fitted}` : `${text}\n`);
    this.shown = this.mode === 'tty';
  }
}

/** A phase's offered rate at a time of the run: its rate, or a ramp's at that point. */
function rpmAt(phase: Plan['phases'][number], elapsedMs: number): number {
  const f = phase.durationMs === 0 ? 0 : Math.min(1, Math.max(0, (elapsedMs - phase.startMs) / phase.durationMs));
  return rounded(phase.fromRpm + (phase.toRpm - phase.fromRpm) * f);
}

/** A rate as read at a glance: whole above 10 a minute, one decimal below (0.5 rpm is not 1). */
const rounded = (rpm: number): number => (rpm >= 10 ? Math.round(rpm) : Math.round(rpm * 10) / 10);
