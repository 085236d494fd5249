/** What a run is given (its options, from the CLI), what the guard let through (prepared), and what it ends with. */
import type { FileResult, LoadproofError, SecretMask, SendPermit, TimeScale } from '../core/index.js';
import type { GuardDecision } from '../guard/index.js';
import type { BaselineComparison, ComparedRun, HostRecord, Summary } from '../judge/index.js';
import type { Plan, Shard } from '../plan/index.js';
import type { Scenario } from '../scenario/index.js';
import type { ProfileName } from '../spec/index.js';
import type { UserTexts } from '../texts/index.js';
import type { ProgressMode } from './progress.js';

export interface RunOptions {
  readonly scenarioFile: string;
  /** --time-scale, checked where it came in. */
  readonly timeScale: TimeScale;
  readonly mockProfile: ProfileName | undefined;
  /** Folder under which the run's report folder is made. */
  readonly outDir: string;
  /** --run-dir: the exact folder for this run's files, instead of a new one under outDir. */
  readonly runDir: string | undefined;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Aborted on SIGINT/SIGTERM. */
  readonly signal: AbortSignal;
  /** --credentials <file>. */
  readonly credentialsFile: string | undefined;
  /** --ca <file>: a private CA trusted besides Node's own (overrides target.tls.ca). */
  readonly caFile?: string | undefined;
  /** Tests only (--allow-loopback-as-real): a real environment at a loopback URL is judged as real. */
  readonly loopbackAsReal: boolean;
  /** --verbose: a line per token call and per request (never a header or a body). */
  readonly verbose: boolean;
  /** Secrets are added here as soon as they are known; everything written passes through it. */
  readonly secrets: SecretMask;
  /** The machine and command line, for the manifest (src/run/host.ts). */
  readonly host: HostRecord;
  /** False with --no-charts: the PNG charts are not drawn (`loadproof report` draws them later). */
  readonly pngCharts?: boolean;
  /**
   * --baseline: the run folder to compare this run with, judged already (a bad one was refused before anything was
   * sent).
   */
  readonly baseline?: { readonly dir: string; readonly run: ComparedRun; readonly tolerance: number };
  /** `--shard i/n`: send only this shard of the plan (src/plan/shard.ts). */
  readonly shard?: Shard;
  /** `--start-at` (epoch ms): the schedule's t = 0, shared by every shard; lateness is send lag. */
  readonly startAtMs?: number;
  /** `--idle-before` (model ms): the client sent nothing to the service this long before the run (in run.json). */
  readonly idleBeforeMs?: number;
  /** `--capacity-429-share`: recorded in run.json, for the capacity findings (see RunRecord). */
  readonly capacity429Share?: number;
  /** `--brief-client-id`: the client_id brief.md names (never named unless given). */
  readonly briefClientId?: string;
  /** `--metrics-port`: serve live metrics for a scraper while the run lasts (loopback unless `host` says otherwise). */
  readonly metrics?: { readonly host: string; readonly port: number };
  /** Progress lines (stderr). */
  readonly log: (line: string) => void;
  /**
   * Live progress on stderr while the load runs: an updating line on a terminal, a line every 10 s elsewhere, or none
   * (`--quiet`).
   */
  readonly progress?: ProgressMode;
  /** Where the live progress goes (stderr). */
  readonly progressWrite?: (text: string) => void;
  /** The terminal's width: a progress line longer than it would wrap, and only its last row be rewritten. */
  readonly progressColumns?: () => number | undefined;
}

export interface RunOutcome {
  readonly exitCode: number;
  readonly reportDir: string;
  readonly summary: Summary;
  /** What ended the run early and made it fail (exit 4), if anything did. */
  readonly failure: LoadproofError | undefined;
  /** SHA-256 of the run folder's manifest.json (what a ticket quotes), or null when it could not be written. */
  readonly manifestSha256: string | null;
  /** Output files that could not be written whole (exit 4). */
  readonly writeFailures: readonly FileResult[];
  /** summary.json's path, or null when it could not be written (the terminal then names no file that is not there). */
  readonly summaryPath: string | null;
  /** The comparison with --baseline, when there was one. */
  readonly comparison: BaselineComparison | undefined;
}

/** A run the guard let through: what steps 2 to 4 start from. */
export interface PreparedRun {
  readonly scenario: Scenario;
  /** The scenario file's text as read: the copy kept in the run folder is the very text that was run. */
  readonly scenarioText: string;
  /** What this process sends: the whole plan, or its shard's share of it (`--shard`). */
  readonly plan: Plan;
  /** planIdentity() of the whole plan, which every shard of it shares. */
  readonly planIdentity: string;
  readonly guard: GuardDecision;
  /** The guard's permit to send this plan (only an allowed decision gives one). */
  readonly permit: SendPermit;
  /** The user's texts, when `payload.source` names them: read and checked before anything is sent. */
  readonly userTexts: UserTexts | undefined;
}
