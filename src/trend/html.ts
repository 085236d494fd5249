/**
 * trend.html: the same content as trend.md in one self-contained page (each chart inlined as a PNG data URL: it opens
 * offline and asks nothing of any network).
 */
import type { TrendContent } from './content.js';

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const STYLE = `body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;color:#222}
table{border-collapse:collapse;font-size:14px}td,th{border:1px solid #ccc;padding:3px 8px}
td.n{text-align:right;white-space:nowrap}tr.flagged td{background:#fde8e8}img{max-width:100%;border:1px solid #eee}
.lead{color:#444}`;

function sectionHtml(section: TrendContent['sections'][number], png: Buffer): string[] {
  const rows = section.rows.map(
    (r) =>
      `<tr${r.flagged ? ' class="flagged"' : ''}>${r.cells.map((c, i) => `<td${i >= 4 && i <= 7 ? ' class="n"' : ''}>${escapeHtml(c)}</td>`).join('')}</tr>`,
  );
  return [
    `<section><h2>${escapeHtml(section.scenario)}</h2>`,
    `<p class="lead">${escapeHtml(section.lead)}</p>`,
    `<figure><img alt="${escapeHtml(section.scenario)}: p95, goodput, 429 % and error % per phase across runs" src="data:image/png;base64,${png.toString('base64')}"></figure>`,
    `<table><thead><tr>${section.header.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>`,
    ...rows,
    '</tbody></table>',
    ...(section.findings.length > 0
      ? ['<h3>What compare finds</h3><ul>', ...section.findings.map((f) => `<li>${escapeHtml(f)}</li>`), '</ul>']
      : []),
    '</section>',
  ];
}

export function trendHtml(content: TrendContent, pngs: readonly Buffer[]): string {
  return [
    '<!doctype html><html lang="en"><head><meta charset="utf-8">',
    '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; img-src data:; style-src \'unsafe-inline\'">',
    `<title>Trend across runs</title><style>${STYLE}</style></head><body>`,
    '<h1>Trend across runs</h1>',
    `<p>${escapeHtml(content.definitions)}</p>`,
    ...content.sections.flatMap((s, i) => sectionHtml(s, pngs[i]!)),
    ...(content.skipped.length > 0
      ? ['<h2>Folders skipped</h2><ul>', ...content.skipped.map((s) => `<li>${escapeHtml(s)}</li>`), '</ul>']
      : []),
    '</body></html>',
    '',
  ].join('\n');
}
