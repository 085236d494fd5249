/**
 * run.json: what a run folder needs, besides its events and its scenario copy, to be judged again.
 * Written when the load starts (`end: null`) and again when it ends. A folder whose run.json has no
 * end was left by a run that did not finish (a second Ctrl-C, a crash, a kill): it can still be
 * judged, from the events it wrote, and its summary is marked partial.
 */
import type { EffectiveLimits } from '../plan/index.js';
import type { TargetKind } from '../scenario/index.js';
import type { PayloadRecord } from '../texts/index.js';

export const RUN_RECORD_SCHEMA_VERSION = 1;

/**
 * What ended the firing before the plan did: a stop signal (exit 130), a failure (exit 4), or nothing known (a partial
 * run).
 */
export interface StopReason {
  readonly by: 'signal' | 'failure' | 'threshold' | 'unknown';
  /** The error code, e.g. INTERRUPTED, AUTH_FAILED, TARGET_UNREACHABLE, THRESHOLD_ABORT, PARTIAL. */
  readonly code: string;
  readonly message: string;
}

/**
 * The guard's decision as reported (evaluated once, when the run started): the part of the guard's decision that
 * the run records, by shape, so that judging a folder does not depend on the guard's code.
 */
export interface GuardRecord {
  readonly allowed: boolean;
  readonly real: boolean;
  readonly startAt: string;
  readonly plannedEndAt: string;
  /** The planned traffic the guard measured (its peaks and stretches), carried into summary.json as it was. */
  readonly traffic: object;
  readonly limits: EffectiveLimits;
  readonly checks: readonly { readonly rule: string; readonly status: string; readonly message: string }[];
}

/** What the engine reports at the end (see engine's EngineResult). */
export interface EngineRecord {
  readonly fired: number;
  readonly dropped: number;
  readonly unsent: number;
  readonly abandoned: number;
  readonly interrupted: boolean;
  readonly elapsedMs: number;
}

/** How far the embedded mock itself fell behind (src/mock/loop-lag.ts). */
export interface MockLagRecord {
  readonly p99WallMs: number;
  readonly maxWallMs: number;
  /** The model's lag window (wall ms): a delay within it does not change the model's course. */
  readonly windowWallMs: number;
  /** The most the delay could have added to a request's latency (model ms): (max − window) × k. */
  readonly modelMs: number;
}

export interface RunEnd {
  readonly endedAt: string;
  readonly engine: EngineRecord;
  /** Why the firing ended early, or null when the plan ran to its end. */
  readonly stop: StopReason | null;
  /** Token calls made; null when unknown (a partial run). */
  readonly tokenCalls: number | null;
  /** Token-call durations (model ms), an encoded HDR histogram. */
  readonly tokenLatency: string;
  /** Event-loop delay (wall ms, the monitor's resolution taken off); null when nothing was sampled. */
  readonly eventLoopDelayP99Ms: number | null;
  readonly eventLoopDelayMaxMs: number | null;
  /**
   * The embedded mock's own lag over the load (its thread's event-loop delay, wall ms; what it could add to latency,
   * model ms); absent against any other target and in runs written before it was recorded.
   */
  readonly mockLag?: MockLagRecord;
  /** `--start-at`: how late the schedule started after it (wall ms; 0 when on time); absent without one. */
  readonly startLateMs?: number;
  /** The texts sent, by size; absent in runs written before it was recorded, and in a partial run. */
  readonly payload?: PayloadRecord;
  /**
   * The first redirect the service answered, as the run said it (its status and Location, sanitized: "307 to
   * https://…"); absent when none was met, and in runs written before it was recorded.
   */
  readonly firstRedirect?: string;
  /** The run folder's files written before run.json's end (relative paths) and any write error. */
  readonly files: readonly { readonly file: string; readonly error: string | null }[];
}

/** The machine and command that made a run (manifest.json shows it). */
export interface HostRecord {
  /** process.version. */
  readonly node: string;
  /** OS type, release and architecture. */
  readonly os: string;
  /** The first CPU's model × the number of CPUs. */
  readonly cpu: string;
  /** `loadproof` and its arguments (secrets masked). */
  readonly commandLine: readonly string[];
  /** The commit checked out in the git work tree the run was started in, or null. */
  readonly gitCommit: string | null;
}

export interface RunRecord {
  readonly schemaVersion: number;
  readonly loadproofVersion: string;
  /** The scenario copy in the run folder (relative path), and the path it was run from. */
  readonly scenarioFile: string;
  readonly scenarioSource: string;
  /** SHA-256 of the scenario copy's text: its thresholds and limits judge the run, so a changed copy is refused. */
  readonly scenarioSha256: string;
  /** planIdentity() of the plan that ran. */
  readonly planIdentity: string;
  readonly timeScale: number;
  readonly environment: string;
  readonly target: {
    readonly baseUrl: string;
    readonly kind: TargetKind;
    readonly profile: string | null;
    /** A real environment reached through a loopback tunnel at baseUrl (target.tunnel); absent otherwise. */
    readonly tunnel?: boolean;
    /** The proxy the run went through (host:port, never its credentials); absent when it went directly. */
    readonly proxy?: string;
  };
  readonly startedAt: string;
  readonly guard: GuardRecord;
  /** Absent in runs written before it was recorded. */
  readonly host?: HostRecord;
  /**
   * mode deid: the pieces each document was sent in (base64 of 32-bit counts, in document order): the plan is rebuilt
   * from them.
   */
  readonly documentPieces?: string;
  /** `--shard i/n`: this run sent shard i of n of the plan (planIdentity is the whole plan's); absent otherwise. */
  readonly shard?: { readonly index: number; readonly count: number };
  /** `--start-at`: the instant every shard's schedule started from (ISO); absent otherwise. */
  readonly startAt?: string;
  /** `loadproof merge`: the shard folders this run folder was merged from; absent otherwise. */
  readonly mergedFrom?: readonly MergedShard[];
  /**
   * `--idle-before`: how long the client sent nothing to the service before the run, as the user declared it, and when
   * (on run, or after it on report, which judges the folder again): the envelope judges the bucket's start from it.
   * Absent when not declared (then nothing is known of it).
   */
  readonly idleBefore?: IdleDeclaration;
  /** The idle time as folders written before `idleBefore` record it (model ms): who declared it is not known. */
  readonly idleBeforeMs?: number;
  /**
   * `--capacity-429-share`: the largest share (0–1) of a step's requests that may end with a 429 for the step to hold
   * in the capacity findings; absent for none (0).
   */
  readonly capacity429Share?: number;
  /** `--baseline`: the run folder it was compared with (its comparison is comparison.json); absent without one. */
  readonly baseline?: string;
  readonly end: RunEnd | null;
}

/** `--idle-before` as run.json records it. */
export interface IdleDeclaration {
  /** Model ms. */
  readonly ms: number;
  /** `loadproof run` as it started, or `loadproof report` after the run. */
  readonly declaredBy: 'run' | 'report';
  /** When it was declared (ISO). */
  readonly at: string;
}

/** One shard of a merged run, as run.json of the merge records it. */
export interface MergedShard {
  readonly index: number;
  /** The shard's folder, as given to merge. */
  readonly dir: string;
  readonly startedAt: string;
  readonly endedAt: string | null;
  /** How late its schedule started after --start-at (wall ms). */
  readonly startLateMs?: number;
  /** SHA-256 of its manifest.json, checked intact when merged. */
  readonly manifestSha256?: string;
  readonly host?: HostRecord;
}

/** The recorded part of a guard decision (anything of GuardRecord's shape, the guard's decision among them). */
export function guardRecord(d: GuardRecord): GuardRecord {
  return {
    allowed: d.allowed,
    real: d.real,
    startAt: d.startAt,
    plannedEndAt: d.plannedEndAt,
    traffic: d.traffic,
    limits: d.limits,
    checks: d.checks,
  };
}
