/** trend.md: the trend's content as Markdown, someone else's text escaped (no pipe, newline or markup breaks out). */
import type { TrendContent } from './content.js';

const md = (text: string): string => text.replace(/[\\|`*_[\]<>]/g, (c) => `\\${c}`).replace(/\s+/g, ' ');

export function trendMarkdown(content: TrendContent): string {
  return [
    '# Trend across runs',
    '',
    md(content.definitions),
    '',
    ...content.sections.flatMap((s) => [
      `## ${md(s.scenario)}`,
      '',
      md(s.lead),
      '',
      `![${md(s.scenario)}: p95, goodput, 429 % and error % per phase across runs](${s.pngFile})`,
      '',
      `| ${s.header.map(md).join(' | ')} |`,
      `|${s.header.map((_, i) => (i >= 4 && i <= 7 ? '---:' : '---')).join('|')}|`,
      ...s.rows.map((r) => `| ${r.cells.map(md).join(' | ')} |`),
      '',
      ...(s.findings.length > 0 ? ['What compare finds:', '', ...s.findings.map((f) => `- ${md(f)}`), ''] : []),
    ]),
    ...(content.skipped.length > 0 ? ['## Folders skipped', '', ...content.skipped.map((s) => `- ${md(s)}`), ''] : []),
  ].join('\n');
}
