/** brief.md: the brief (brief-content.ts) as plain Markdown, ready to paste into a support ticket. */
import type { BriefContent } from './content-types.js';
import { mdText, table } from './markdown.js';

export function briefMarkdown(b: BriefContent): string {
  return [
    `# ${mdText(b.title)}`,
    '',
    ...(b.formOnly === null ? [] : [`**${mdText(b.formOnly)}**`, '']),
    ...b.sections.flatMap((s) => [
      `## ${mdText(s.heading)}`,
      '',
      ...s.lines.flatMap((l) => [mdText(l), '']),
      ...(s.bullets === undefined || s.bullets.length === 0 ? [] : [...s.bullets.map((b) => `- ${mdText(b)}`), '']),
      ...(s.table === undefined ? [] : [...table(s.table), '']),
    ]),
  ].join('\n');
}
