/** report.md: the report's content (content.ts) as Markdown, for a support ticket or a release checklist. */
import type { ReportContent, ReportTable } from './content-types.js';

/**
 * Text on one line, with nothing a terminal or a renderer acts on: line breaks (CR, LF, and the Unicode
 * ones) become spaces; other control characters and the bidirectional overrides are dropped.
 */
function oneLine(text: string): string {
  return text
    .replace(/\r\n|[\r\n\u0085\u2028\u2029]/g, ' ')
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f\u202a-\u202e\u2066-\u2069]/g, '');
}

/**
 * Text from the run (a scenario's name and description, messages) as Markdown shows it and no more: on one line;
 * outside
 * `code` spans, what could start an HTML tag, a link or an image, or emphasis is escaped.
 */
export function mdText(text: string): string {
  return oneLine(text)
    .split(/(`[^`]*`)/)
    .map((part, i) =>
      i % 2 === 1
        ? part
        : part
            .replace(/\\/g, '\\\\')
            .replace(/<(?=[A-Za-z/!?])/g, '\\<')
            .replace(/([[\]*])/g, '\\$1'),
    )
    .join('');
}

/** Text safe in a Markdown table cell: no line break, no unescaped pipe. */
const cell = (text: string): string => mdText(text).replace(/\r?\n/g, ' ').replace(/\|/g, '\\|');
const row = (cells: readonly string[]): string => `| ${cells.map(cell).join(' | ')} |`;
export const table = (t: ReportTable): string[] => [
  row(t.head),
  `|${t.head.map((_, i) => (t.numeric.includes(i) ? ' ---: ' : ' --- ')).join('|')}|`,
  ...t.rows.map(row),
];

/** The evidence: the short reasons first, then the paragraphs, then the detail they fold. */
function evidenceLines(c: ReportContent): string[] {
  return [
    '## Evidence',
    '',
    ...(c.shortReasons.length > 0 ? ['**In short:**', '', ...c.shortReasons.map((r) => `- ${mdText(r)}`), ''] : []),
    ...c.evidence.flatMap((paragraph) => [mdText(paragraph), '']),
    ...(c.reasons.length > 0
      ? ['**The checks that decided it, in full:**', '', ...c.reasons.map((r) => `- ${mdText(r)}`), '']
      : []),
    ...(c.lateness === null
      ? []
      : ["**The generator's lateness, phase by phase:**", '', ...c.lateness.lines.map((l) => `- ${mdText(l)}`), '']),
  ];
}

export function reportMarkdown(c: ReportContent): string {
  return [
    `# ${mdText(c.title)}`,
    '',
    `**${mdText(c.headline)}**`,
    '',
    ...table(c.kpis),
    '',
    `For a support ticket: [brief.md](brief.md), readable alone (what was tested and when, the request ids, the limit wanted and what the service accepted, the 429 and 504 timeline, the manifest it belongs to).`,
    '',
    '## Results by phase',
    '',
    mdText(c.phasesNote),
    '',
    ...table(c.phases),
    '',
    ...evidenceLines(c),
    ...(c.errors === undefined ? [] : ['## Top errors', '', mdText(c.errors.intro), '', ...table(c.errors.table), '']),
    ...(c.deid === undefined
      ? []
      : [
          '## De-identification chain',
          '',
          mdText(c.deid.intro),
          '',
          ...table(c.deid.table),
          '',
          ...c.deid.lines.map((l) => `- ${mdText(l)}`),
          '',
        ]),
    ...phiMarkdown(c.phi),
    ...(c.capacity === undefined
      ? []
      : ['## Capacity', '', ...table(c.capacity.table), '', ...c.capacity.lines.map((l) => `- ${mdText(l)}`), '']),
    ...(c.baseline === undefined
      ? []
      : [
          '## Against the baseline',
          '',
          mdText(c.baseline.intro),
          '',
          ...table(c.baseline.table),
          '',
          mdText(c.baseline.rule),
          '',
          `**${mdText(c.baseline.outcome)}.**`,
          '',
          ...c.baseline.lines.map((l) => `- ${mdText(l)}`),
          ...(c.baseline.lines.length > 0 ? [''] : []),
        ]),
    '## Safety checks before the run',
    '',
    ...table(c.guard),
    '',
    '## Charts',
    '',
    ...(c.pngCharts
      ? c.charts.flatMap((chart) => [`![${mdText(chart.title)}](charts/${chart.name}.png)`, ''])
      : [
          'Not drawn as PNG files for this run (`--no-charts`). report.html draws them from its own data, and `loadproof report <this folder>` draws them into charts/.',
          '',
        ]),
    '## Run details',
    '',
    ...table(c.identity),
    '',
    '## Files',
    '',
    mdText(c.files),
    '',
  ].join('\n');
}

/** mode deid: the known PHI section (recall), or nothing. */
function phiMarkdown(phi: ReportContent['phi']): string[] {
  if (phi === undefined) return [];
  return [
    '## Known PHI: recall under load',
    '',
    mdText(phi.intro),
    '',
    ...phi.tables.flatMap((t) => [`**${t.caption}**`, '', ...table(t.table), '']),
    ...phi.lines.map((l) => `- ${mdText(l)}`),
    '',
  ];
}
