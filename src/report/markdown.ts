/** report.md: the report's content (content.ts) as Markdown, for a support ticket or a release checklist. */
import type { ReportContent, ReportTable } from './content.js';

/** Text safe in a Markdown table cell: no line break, no unescaped pipe. */
const cell = (text: string): string => text.replace(/\r?\n/g, ' ').replace(/\|/g, '\\|');
const row = (cells: readonly string[]): string => `| ${cells.map(cell).join(' | ')} |`;
const table = (t: ReportTable): string[] => [row(t.head), `|${t.head.map((_, i) => (t.numeric.includes(i) ? ' ---: ' : ' --- ')).join('|')}|`, ...t.rows.map(row)];

export function reportMarkdown(c: ReportContent): string {
  return [
    `# ${c.title}`,
    '',
    ...table(c.identity),
    '',
    '## Results by phase',
    '',
    c.phasesNote,
    '',
    ...table(c.phases),
    '',
    ...(c.reasons.length > 0 ? ['**Why:**', '', ...c.reasons.map((r) => `- ${r}`), ''] : []),
    '## Evidence',
    '',
    ...c.evidence.flatMap((paragraph) => [paragraph, '']),
    ...(c.baseline === undefined
      ? []
      : ['## Against the baseline', '', c.baseline.intro, '', ...table(c.baseline.table), '', c.baseline.rule, '', `**${c.baseline.outcome}.**`, '', ...c.baseline.lines.map((l) => `- ${l}`), ...(c.baseline.lines.length > 0 ? [''] : [])]),
    '## Safety checks before the run',
    '',
    ...table(c.guard),
    '',
    '## Charts',
    '',
    ...c.charts.flatMap((chart) => [`![${chart.title}](charts/${chart.name}.png)`, '']),
    '## Files',
    '',
    c.files,
    '',
  ].join('\n');
}
