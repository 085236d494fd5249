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
  /** Two columns: what, and its value. */
  readonly identity: ReportTable;
  /** How to read the phase table. */
  readonly phasesNote: string;
  readonly phases: ReportTable;
  /** Why the verdict is what it is (the checks that decided it). */
  readonly reasons: readonly string[];
  /** Paragraphs. */
  readonly evidence: readonly string[];
  /** The largest groups of failed requests, each with a sample of what was said; absent when none failed. */
  readonly errors?: { readonly intro: string; readonly table: ReportTable };
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
  /** A stepping run's limit-increase brief: paragraphs to paste into the request, each a fact of the run. */
  readonly brief?: readonly string[];
}
