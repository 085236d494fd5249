/**
 * What report.md and report.html say, once, for both to render: a run's evidence written for a support
 * ticket — what was run, where, when and by which version; a row per phase (and per load band of a
 * ramp) with its p95's 95 % interval and target; when 429s began, of which kind, at what offered rate;
 * a plain account of what was observed against the documented limits; the guard's checks; the charts.
 * A pure function of summary.json, run.json and the scenario copy, so `loadproof report` rebuilds it
 * from the run folder. It states only what the run measured.
 */
import { formatMs } from '../core/index.js';
import { type RunRecord, type Summary, type BaselineComparison, comparisonFindings, comparisonRows, comparisonRule, comparisonVerdict } from '../judge/index.js';
import { targetText } from './target-text.js';
import { formatDuration, type Scenario } from '../scenario/index.js';
import { type Capacity, type Counts429, capacityOf, sum429, total429 } from './capacity.js';
import { type ChartSpec, runCharts } from './charts.js';

export interface ReportInput {
  readonly summary: Summary;
  readonly run: RunRecord;
  readonly scenario: Scenario;
  /** The comparison with a baseline run (`run --baseline`), when there was one. */
  readonly comparison?: BaselineComparison;
  /** False with --no-charts: the PNG charts are not drawn (report.html still draws its own). */
  readonly pngCharts?: boolean;
}

type Phase = Summary['phases'][number];
type Check = Summary['verdict']['checks'][number];
type Window = Summary['timeline'][number];

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
  readonly guard: ReportTable;
  /** Against the baseline (`run --baseline`): what it was, the table, the rule, the outcome, the findings and notes. */
  readonly baseline?: { readonly intro: string; readonly table: ReportTable; readonly rule: string; readonly outcome: string; readonly lines: readonly string[] };
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
const ms = (v: number | null | 'unanswered' | undefined): string => (v === null || v === undefined ? '—' : v === 'unanswered' ? 'unanswered' : formatMs(v));
const utc = (iso: string): string => `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
const errorsOf = (p: { errors: Record<string, number>; outcomes: { http_other: number } }): number => Object.values(p.errors).reduce((a, b) => a + b, 0) + p.outcomes.http_other;
const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** A p95 and its 95 % interval, as the verdict judged it. */
function p95Text(observed: number | null | 'unanswered' | undefined, interval: readonly (number | null | 'unanswered')[] | null | undefined): string {
  if (interval === null || interval === undefined) return ms(observed);
  const [low, high] = interval;
  // A side is null when the sample is too small to bound it.
  if ((low ?? null) === null && (high ?? null) === null) return `${ms(observed)} (too few to bound)`;
  if ((high ?? null) === null) return `${ms(observed)} (≥ ${ms(low)})`;
  if ((low ?? null) === null) return `${ms(observed)} (≤ ${ms(high)})`;
  return `${ms(observed)} (${ms(low)}–${ms(high)})`;
}

function phaseRows(summary: Summary): string[][] {
  const rows: string[][] = [];
  for (const p of summary.phases) {
    const checks = summary.verdict.checks.filter((c) => c.phase === p.name && c.id === 'latency_p95_target');
    const only = p.bands.length <= 1 ? checks[0] : undefined;
    rows.push([
      p.name,
      String(p.offeredRpm),
      p.achievedRpm.toFixed(1),
      String(p.sent),
      String(p.outcomes.ok),
      String(p.outcomes.http_429),
      String(p.outcomes.http_504),
      String(errorsOf(p)),
      ms(p.steadyLatencyMs.p50),
      p.bands.length > 1 ? p95Text(p.steadyLatencyMs.p95, undefined) : p95Text(p.steadyLatencyMs.p95, only?.interval),
      ms(p.steadyLatencyMs.p99),
      p.target === null ? (p.bands.length > 1 ? 'by band, below' : '—') : `< ${ms(p.target.p95Ms)}`,
      p.verdict.toUpperCase(),
    ]);
    // A ramp across load bands is judged per band, by the rate at each arrival: a row per band slice.
    if (p.bands.length > 1) {
      for (const b of p.bands) {
        const check = checks.find((c) => c.band === b.band);
        rows.push([
          `↳ ${b.fromRpm}→${b.toRpm} rpm (${b.band ?? 'no'} band)`,
          '',
          '',
          String(b.steadyLatencyMs.count),
          '',
          '',
          '',
          '',
          ms(b.steadyLatencyMs.p50),
          p95Text(b.steadyLatencyMs.p95, check?.interval),
          ms(b.steadyLatencyMs.p99),
          b.p95Ms === null ? '—' : `< ${ms(b.p95Ms)}`,
          check === undefined ? '' : check.status.toUpperCase(),
        ]);
      }
    }
  }
  return rows;
}

/** The phase a time (model s from the start) falls in. */
const phaseAt = (summary: Summary, startS: number): Phase | undefined => summary.phases.find((p) => startS >= p.startS && startS < p.startS + p.durationS);

/** The first timeline window in which a 429 answer came (any attempt, a retried one included), or undefined. */
const first429 = (summary: Summary): Window | undefined => summary.timeline.find((w) => total429(w.answers429) > 0);

function kindsOf429(a: Counts429): string {
  const parts = [
    a.rateLimit > 0 ? `${a.rateLimit} for the rate limit` : '',
    a.inFlight > 0 ? `${a.inFlight} for requests in flight` : '',
    a.other > 0 ? `${a.other} naming no known limit` : '',
  ].filter((s) => s !== '');
  return parts.join(', ');
}

/**
 * Facts only, each from the summary, in short paragraphs: what was sent and where, the documented limits
 * and the 429s against them, latency against the targets, failures, the generator's own lag.
 */
function evidence(summary: Summary, real: boolean): string[] {
  const o = summary.overall;
  const model = summary.timeScale === 1 ? '' : ` of model time (run ${summary.timeScale}× faster against the mock)`;
  const scope = [
    `The run planned ${plural(summary.counts.planned, 'request')} over ${formatDuration(summary.modelDurationS * 1000)}${model}, offered at up to ${peakOfferedRpm(summary)} requests a minute (first attempts; retries come on top), and sent ${o.sent}${o.sentOfPlanned === null ? '' : ` (${(o.sentOfPlanned * 100).toFixed(1)} % of the plan)`}.`,
  ];
  if (!real) scope.push(`Its target was ${targetText(summary)}, not the service: it shows how the scenario and loadproof behave, and says nothing of the service itself.`);

  const limits = summary.guard.limits;
  const refusals = [
    `The documented limits it is judged against: ${limits.sustainedRpm} requests a minute sustained, bursts to ${limits.burstRpm} for ${limits.burstMinutes} minutes, brief spikes to ${limits.spikeRpm}, at most ${limits.maxInFlight} in flight${limits.reference === null ? '' : ` (${limits.reference})`}.`,
  ];
  const w = first429(summary);
  if (w === undefined) refusals.push('No answer was a 429.');
  else {
    const phase = phaseAt(summary, w.startS);
    const all429 = sum429(summary.timeline);
    const windowMs = summary.timeline.length > 1 ? (summary.timeline[1]!.startS - summary.timeline[0]!.startS) * 1000 : 10_000;
    const envelope = summary.phases.reduce((acc, p) => ({ findings: acc.findings + p.envelope.findings, edge: acc.edge + p.envelope.edge }), { findings: 0, edge: 0 });
    refusals.push(
      `The first 429 came ${formatDuration(w.startS * 1000)} into the run${phase === undefined ? '' : ` (phase ${phase.name})`}, when the offered rate was ${w.offeredRpm} requests a minute: ${kindsOf429(w.answers429)} in that ${formatDuration(windowMs)} window.`,
      `In all ${plural(total429(all429), 'answer')} ${total429(all429) === 1 ? 'was' : 'were'} 429 (${kindsOf429(all429)}); ${plural(o.outcomes.http_429, 'request')} ended with one (not retried, or out of attempts).`,
      summary.phases.some((p) => p.envelope.shared === true)
        ? 'In a shard they are not judged: the service\'s bucket was shared with the other shards\' requests, which this shard did not see; `loadproof merge` judges every 429 against it.'
        : envelope.findings === 0
        ? `None came on a request the documented limits clearly allow${envelope.edge > 0 ? ` (${envelope.edge} came within the margin of the limit, where neither side can be blamed)` : ''}.`
        : `${envelope.findings} came on requests the documented limits clearly allow: a finding against the service.`,
    );
  }

  const latency: string[] = [];
  const p95 = summary.verdict.checks.filter((c) => c.id === 'latency_p95_target');
  const failed = p95.filter((c) => c.status === 'fail');
  const unsure = p95.filter((c) => c.status === 'inconclusive');
  const where = (c: Check): string => `${c.phase}${c.band === undefined ? '' : ` (${c.band} band)`}`;
  if (p95.length > 0 && failed.length === 0 && unsure.length === 0) latency.push('Every p95 was under its documented target: for each, the upper end of its 95 % interval is under the target.');
  for (const c of failed) latency.push(`${where(c)}: ${c.reason}: over the documented target.`);
  for (const c of unsure) latency.push(`${where(c)}: ${c.reason}: not enough to say.`);
  const failures = errorsOf(o);
  latency.push(
    o.outcomes.http_504 === 0 && failures === 0
      ? 'No request timed out at the gateway (504) or failed otherwise.'
      : `${plural(o.outcomes.http_504, 'request')} timed out at the gateway (504); ${failures} failed otherwise (client timeouts, resets, other statuses).`,
  );
  // Named apart: an answer too large to read says something is wrong with the service (or what answers for it), not with the network.
  const tooLarge = o.errors.too_large ?? 0;
  if (tooLarge > 0) latency.push(`${plural(tooLarge, 'answer')} larger than loadproof reads (too_large: over the answer-size cap, not read on, the connection closed) counted among them.`);

  const generator: string[] = [];
  const lag = summary.generator.sendLagWallMs;
  if (lag.p99 !== null) generator.push(`The generator sent on schedule within ${lag.p99.toFixed(1)} ms (p99 of its send lag, wall time). Latency runs from the intended send time, so its lag is counted, never hidden.`);
  generator.push(...summary.verdict.notes);
  return [scope, refusals, latency, generator].filter((p) => p.length > 0).map((p) => p.join(' '));
}

/** The highest rate the plan offered (first attempts), requests a minute: a ramp's top included. */
const peakOfferedRpm = (summary: Summary): number => Math.max(0, ...summary.phases.map((p) => Math.max(p.fromRpm, p.toRpm)));


function identity({ summary, run, scenario }: ReportInput): string[][] {
  const notice = scenario.notice;
  const wall = (Date.parse(summary.endedAt ?? summary.reportedAt) - Date.parse(summary.startedAt)) / 1000;
  const host = run.host;
  const rows: string[][] = [
    ['Verdict', `${summary.verdict.status.toUpperCase()} (exit ${summary.exitCode})${summary.partial ? ' — partial: the run did not end normally' : ''}`],
    ...(!summary.shard ? [] : [['Shard', `${summary.shard.index} of ${summary.shard.count}: the arrivals whose seq ≡ ${summary.shard.index} (mod ${summary.shard.count}). Its counts, rates and verdict are of its share only, and its 429s are not judged (the service's bucket was shared); the test's verdict is \`loadproof merge\`'s, over every shard`]]),
    ...(!summary.mergedFrom ? [] : [['Merged from', `${summary.mergedFrom.length} shards (${summary.mergedFrom.map((m) => m.index).join(', ')}), judged again over all their events${!summary.startAt ? '' : `, from the common start ${utc(summary.startAt)}`}`]]),
    ['Environment', targetText(summary)],
    ['Scenario', `${summary.scenario} — ${summary.description}`],
    ['Scenario file', `${run.scenarioFile} (copy of ${run.scenarioSource}), ${run.scenarioSha256}`],
    ['Plan', `${summary.counts.planned} requests, ${summary.planIdentity}`],
    ['Texts sent', payloadText(summary.payload)],
    ...(!summary.startAt ? [] : [['Start', `--start-at ${utc(summary.startAt)}${summary.startLateMs == null ? '' : summary.startLateMs === 0 ? ', on time' : `, ${summary.startLateMs} ms late (in the send lag)`}`]]),
    ['Run window', `${utc(summary.startedAt)} – ${summary.endedAt === null ? 'not ended' : utc(summary.endedAt)} (${formatDuration(wall * 1000)} of wall time)`],
    ['Time scale', summary.timeScale === 1 ? '1 (real time)' : `${summary.timeScale} (against the mock: every time here is model time)`],
    ['loadproof', `${summary.loadproofVersion} (judged by ${summary.judgedBy})`],
  ];
  if (host !== undefined) rows.push(['Host', `Node ${host.node}, ${host.os}, ${host.cpu}${host.gitCommit === null ? '' : `, git commit ${host.gitCommit}`}`], ['Command', host.commandLine.join(' ')]);
  rows.push(
    ['Advance notice', notice === undefined ? 'none given' : `announced ${notice.announcedOn}, reference ${notice.reference}${notice.window === undefined ? '' : `, window ${notice.window.start} – ${notice.window.end}`}`],
    ['Coordination', scenario.coordination === undefined ? 'none given' : `reference ${scenario.coordination.reference}`],
  );
  return rows;
}

/** The texts sent, by size and source (never the texts). */
function payloadText(p: Summary['payload']): string {
  if (p === null) return 'not recorded';
  const from =
    p.source === 'files'
      ? `the user's texts in ${p.path} (${plural(p.documents, 'document')} drawn${p.empty.length > 0 ? `; ${p.empty.length} empty, not sent` : ''})`
      : p.source === 'documents'
        ? `generated clinical documents (${plural(p.documents, 'document')})`
        : 'generated clinical notes';
  const sizes =
    p.characters === null || p.estimatedTokens === null
      ? 'none sent'
      : `${p.characters.min}–${p.characters.max} characters (mean ${Math.round(p.characters.mean)}), ${p.estimatedTokens.min}–${p.estimatedTokens.max} estimated tokens`;
  const split = p.splitDocuments > 0 ? `; ${plural(p.splitDocuments, 'document')} over ${p.split.maxTokens} tokens less ${Math.round(p.split.margin * 100)} % split into pieces` : '';
  return `${plural(p.texts, 'text')}: ${sizes}; from ${from}${split}`;
}

function baselineSection(c: BaselineComparison): NonNullable<ReportContent['baseline']> {
  const [head, ...rows] = comparisonRows(c);
  const { regressions, improvements } = comparisonFindings(c);
  return {
    intro: `Compared with the baseline run in ${c.baselineDir} (${c.baseline.scenario}, started ${c.baseline.startedAt}), phase by phase, steady state, baseline → run.`,
    table: { head: head!, rows, numeric: [] },
    rule: comparisonRule(c),
    outcome: comparisonVerdict(c),
    lines: [...regressions.map((r) => `Regression: ${r}`), ...improvements.map((r) => `Better: ${r}`), ...c.notes.map((n) => `Note: ${n}`)],
  };
}

/** The chain's figures: documents by fate and stage, end-to-end and obfuscation latency. */
function deidSection(d: NonNullable<Summary['deid']>): NonNullable<ReportContent['deid']> {
  type Slice = (typeof d.phases)[number] | typeof d.overall;
  const row = (name: string, rate: string, x: Slice): string[] => [
    name,
    rate,
    String(x.documents),
    String(x.ok),
    String(x.failed.identification),
    String(x.failed.obfuscation),
    String(x.dropped),
    String(x.unsent),
    ms(x.documentLatencyMs.p50),
    ms(x.documentLatencyMs.p95),
    ms(x.documentLatencyMs.p99),
    String(x.obfuscation.calls),
    ms(x.obfuscation.latencyMs.p95),
    String(x.obfuscation.outcomes.http_429 ?? 0),
    String(x.truncated),
  ];
  const o = d.overall;
  const lines = [
    `${plural(o.ok, 'document')} of ${o.planned} went through the whole chain; ${o.failed.identification} failed at identification (a piece without a 2xx, or entities outside their piece), ${o.failed.obfuscation} at obfuscation, ${o.dropped} had a piece dropped by the client at its maxInFlight, ${o.unsent} were cut short (the run stopped before all their pieces, or their obfuscation, were sent). End-to-end percentiles count a document that did not go through as unanswered, and are of the steady state after each phase's warm-up.`,
    'Obfuscation has its own limits: its 429s are counted here and never against the identification SLA, which the phase table above judges on the identification requests alone.',
  ];
  if (o.truncated > 0) lines.push(`${plural(o.truncated, 'document')} had a piece whose entities were cut at the service's output cap: PHI may remain in them. A larger payload.split.margin sends smaller pieces.`);
  return {
    intro: `Each document was split into pieces under the identification limit, its pieces identified ${d.concurrency === 1 ? 'one after another' : `${d.concurrency} at a time`}, their entities merged at document offsets, and the whole document obfuscated (${d.style}). End to end runs from the document's intended time to the obfuscation's answer, in model time.`,
    table: {
      head: ['Phase', 'Docs/min', 'Documents', 'OK', 'Failed: identification', 'Failed: obfuscation', 'Dropped (client)', 'Unsent', 'End to end p50', 'p95', 'p99', 'Obfuscation calls', 'Obfuscation p95', 'Obfuscation 429', 'Cut at the output cap'],
      rows: [...d.phases.map((p) => row(p.name, p.documentRpm === null ? '' : String(p.documentRpm), p)), row('overall', '', o)],
      numeric: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14],
    },
    lines,
  };
}

function capacitySections(input: ReportInput): Pick<ReportContent, 'capacity' | 'brief'> {
  const { summary } = input;
  const capacity = capacityOf(summary);
  if (capacity === undefined) return {};
  const rows = capacity.steps.map((s) => [
    s.label,
    s.fromRpm === s.toRpm ? String(s.toRpm) : `${s.fromRpm}→${s.toRpm}`,
    ms(s.p50Ms),
    p95Text(s.p95Ms, s.interval),
    s.targetMs === null ? '—' : `< ${ms(s.targetMs)}`,
    s.status === null ? '—' : s.status.toUpperCase(),
    String(total429(s.answers429)),
    s.ended429 === null ? '—' : `${(s.ended429 * 100).toFixed(1)} %`,
  ]);
  const facts = capacityFacts(capacity);
  return {
    capacity: { table: { head: ['Step', 'Offered rpm', 'p50', 'p95 (95 % interval)', 'Target p95', 'p95 verdict', '429 answers', 'Ended with 429'], rows, numeric: [1, 2, 3, 6, 7] }, lines: facts },
    brief: brief(input, facts),
  };
}

/** What the steps show, sentence by sentence. */
function capacityFacts(c: Capacity): string[] {
  const lines: string[] = [];
  const heldStep = c.steps.filter((s) => s.status === 'pass' && s.toRpm === c.heldUpToRpm).at(-1);
  lines.push(
    c.heldUpToRpm === null
      ? 'No step had its p95 interval under its documented target.'
      : `The highest offered rate whose p95 was under its documented target, with its 95 % interval under it too: ${c.heldUpToRpm} requests a minute (${heldStep?.label ?? ''}). Latency counts the answers other than 429: a step whose requests were refused says so in the last columns.`,
  );
  if (c.firstNotHeld !== null) {
    const s = c.firstNotHeld;
    lines.push(`${s.label}, at ${s.fromRpm === s.toRpm ? s.toRpm : `${s.fromRpm}–${s.toRpm}`} requests a minute: p95 ${p95Text(s.p95Ms, s.interval)} against ${ms(s.targetMs)}, ${s.status === 'fail' ? 'over the target' : 'too close to tell'}.`);
  }
  lines.push(
    c.onset429 === null
      ? 'No answer at any step was a 429.'
      : `The first 429 came ${formatDuration(c.onset429.startS * 1000)} into the run${c.onset429.phase === null ? '' : `, in ${c.onset429.phase}`}, at an offered rate of ${c.onset429.offeredRpm} requests a minute: ${kindsOf429(c.onset429.kinds)}.`,
  );
  const refused = c.steps.filter((s) => (s.ended429 ?? 0) > 0);
  if (refused.length > 0) {
    const shares = refused.map((s) => s.ended429!);
    lines.push(`At ${refused.length === 1 ? 'that step' : `the ${refused.length} steps from ${refused[0]!.label} on`}, ${(Math.min(...shares) * 100).toFixed(1)}–${(Math.max(...shares) * 100).toFixed(1)} % of the requests sent ended with a 429.`);
  }
  if (c.onset429 !== null) lines.push(c.findings === 0 ? 'None of the 429s came on a request the documented limits clearly allow.' : `${c.findings} 429s came on requests the documented limits clearly allow: a finding against the service.`);
  return lines;
}

/** The limit-increase brief: the load tested, what the service did at and above the limit, the run's identity. Nothing it did not show. */
function brief({ summary, run }: ReportInput, facts: readonly string[]): string[] {
  const rates = summary.phases.flatMap((p) => [p.fromRpm, p.toRpm]);
  const limits = summary.guard.limits;
  const model = summary.timeScale === 1 ? '' : ` (run ${summary.timeScale}× faster against the mock; rates and times in model time)`;
  return [
    ...(summary.target.kind === 'real' ? [] : [`This run was against ${targetText(summary)}, not the service: the brief below shows its form, and is no evidence about the service.`]),
    `Load tested: the scenario \`${summary.scenario}\` (${summary.description}), ${summary.counts.planned} requests offered at ${Math.min(...rates)} to ${Math.max(...rates)} requests a minute in steps${model}, from ${utc(summary.startedAt)}, against ${targetText(summary)}. The documented limits: ${limits.sustainedRpm} requests a minute sustained, ${limits.burstRpm} for ${limits.burstMinutes} minutes, brief spikes to ${limits.spikeRpm}.`,
    `What the service did: ${facts.join(' ')}`,
    `The run: scenario ${run.scenarioSha256}, plan ${summary.planIdentity}, loadproof ${summary.loadproofVersion}, verdict ${summary.verdict.status.toUpperCase()}. Its folder's manifest.json holds the SHA-256 of every file; the manifest's own SHA-256 was printed when the run ended (the \`evidence:\` line), and \`loadproof verify <folder>\` checks the folder against it.`,
  ];
}

export function reportContent(input: ReportInput): ReportContent {
  const { summary } = input;
  return {
    title: `${summary.scenario}${!summary.shard ? '' : ` (shard ${summary.shard.index}/${summary.shard.count})`}: ${summary.verdict.status.toUpperCase()}`,
    identity: { head: ['', ''], rows: identity(input), numeric: [] },
    phasesNote:
      "Rates in requests a minute. Latency from the intended send time to the answer, answers other than 429, steady state (after each phase's warm-up); p95 with its 95 % interval (one side only when too few requests bound the other).",
    phases: {
      head: ['Phase', 'Offered', 'Achieved', 'Requests', '2xx', '429', '504', 'Errors', 'p50', 'p95 (95 % interval)', 'p99', 'Target p95', 'Verdict'],
      rows: phaseRows(summary),
      numeric: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
    },
    reasons: summary.verdict.reasons,
    evidence: evidence(summary, summary.target.kind === 'real'),
    guard: { head: ['Rule', 'Status', 'What it found'], rows: summary.guard.checks.map((c) => [c.rule, c.status, c.message]), numeric: [] },
    ...(input.comparison === undefined ? {} : { baseline: baselineSection(input.comparison) }),
    ...capacitySections(input),
    ...(summary.deid === null ? {} : { deid: deidSection(summary.deid) }),
    charts: runCharts(summary),
    pngCharts: input.pngCharts !== false,
    files:
      'This report is built from the run folder alone (`loadproof report <folder>` rebuilds it). `summary.json` holds every figure here; `events.ndjson` one line per planned request (in a deid run, `documents.ndjson` one per planned document); `junit.xml` the checks for CI. `manifest.json` lists the SHA-256 of every file, this one included: `loadproof verify <folder>` says whether any was changed.',
  };
}
