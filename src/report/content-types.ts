/**
 * What a report takes (the run folder's summary, run record and scenario) and what it says, for report.md and
 * report.html to render.
 */
import type { BaselineComparison, RunRecord, Summary } from '../judge/index.js';
import type { Scenario } from '../scenario/index.js';
import type { ChartSpec } from './chart-config.js';

export interface ReportInput {
  readonly summary: Summary;
  readonly run: RunRecord;
  readonly scenario: Scenario;
  /** The comparison with a baseline run (`run --baseline`), when there was one. */
  readonly comparison?: BaselineComparison;
  /** False with --no-charts: the PNG charts are not drawn (report.html still draws its own). */
  readonly pngCharts?: boolean;
  /** The client_id the brief names, only when the user asked for it (`--brief-client-id`). */
  readonly briefClientId?: string;
}

export interface ReportTable {
  readonly head: readonly string[];
  readonly rows: readonly (readonly string[])[];
  /** Columns of figures, aligned right. */
  readonly numeric: readonly number[];
}

/** A report's content; its texts may hold `code` spans (backquotes), nothing else of Markdown. */
export interface ReportContent {
  readonly title: string;
  /** The verdict and why, in one sentence: the first thing a reader sees. */
  readonly headline: string;
  /** The key figures in one row (requests, goodput, p95 per load band against its target, 429s, 504s, errors). */
  readonly kpis: ReportTable;
  /** The run's details (what, where, when, which version), after the results. Two columns: what, and its value. */
  readonly identity: ReportTable;
  /** How to read the phase table. */
  readonly phasesNote: string;
  readonly phases: ReportTable;
  /** The checks that decided a verdict other than pass, one short line each: the evidence opens with them. */
  readonly shortReasons: readonly string[];
  /** The same checks in full (the detail below the short lines). */
  readonly reasons: readonly string[];
  /** Paragraphs. */
  readonly evidence: readonly string[];
  /** The largest groups of failed requests, each with a sample of what was said; absent when none failed. */
  readonly errors?: { readonly intro: string; readonly table: ReportTable };
  /** The generator's lateness, a note a phase: folded under the evidence's one sentence about it; null when on time. */
  readonly lateness: { readonly summary: string; readonly lines: readonly string[] } | null;
  readonly guard: ReportTable;
  /** Against the baseline (`run --baseline`): what it was, the table, the rule, the outcome, the findings and notes. */
  readonly baseline?: {
    readonly intro: string;
    readonly table: ReportTable;
    readonly rule: string;
    readonly outcome: string;
    readonly lines: readonly string[];
  };
  readonly charts: readonly ChartSpec[];
  /** Whether charts/*.png were drawn (not with --no-charts): report.md shows them or says how to draw them. */
  readonly pngCharts: boolean;
  readonly files: string;
  /** A run that steps the rate up: each step against its target, and what that shows of capacity. */
  readonly capacity?: { readonly table: ReportTable; readonly lines: readonly string[] };
  /** mode deid: the documents through the chain, per phase, beside identification's figures. */
  readonly deid?: { readonly intro: string; readonly table: ReportTable; readonly lines: readonly string[] };
  /** mode deid: what became of the documents' known PHI (recall), per phase, by kind and by length class. */
  readonly phi?: {
    readonly intro: string;
    readonly tables: readonly { readonly caption: string; readonly table: ReportTable }[];
    readonly lines: readonly string[];
  };
  /** The brief for a support ticket (brief.md holds it whole, with the manifest's hash; report.html shows it). */
  readonly brief: BriefContent;
}

/** The brief for a support ticket (brief-content.ts): a title, the form-only notice of a mock run, its sections. */
export interface BriefSection {
  readonly heading: string;
  readonly lines: readonly string[];
  /** A list after the lines: one item a line of its own (the capacity lines, each read apart). */
  readonly bullets?: readonly string[];
  readonly table?: ReportTable;
}

export interface BriefContent {
  readonly title: string;
  /** For a run against a mock: said first, the brief is its form only. */
  readonly formOnly: string | null;
  readonly sections: readonly BriefSection[];
}
