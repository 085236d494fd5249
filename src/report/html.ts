/**
 * report.html: the report's content (content.ts) as one self-contained page — the same tables and
 * text as report.md, and the charts drawn live by chart.js, which is inlined with their data: the page
 * opens offline and asks nothing of any network. The charts are interactive (hover for values, click a
 * legend entry to hide its series). chart.js is read from its package (dist/chart.umd.min.js).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

import { CHART_HEIGHT, CHART_WIDTH } from './chart-config.js';
import type { BriefContent, ReportContent, ReportTable } from './content-types.js';

// What a browser would act on or XML forbids: control characters (tab and line breaks aside) and the bidirectional
// overrides.
const escapeHtml = (text: string): string =>
  text
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\u202a-\u202e\u2066-\u2069]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');

/** Text as HTML: the five special characters escaped, then `code` spans (the content's only markup). */
export function htmlText(text: string): string {
  return escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>');
}

/** Text inside a <script> element: no `</script`, `<!--` or U+2028/2029 can end or break it. */
export function scriptText(text: string): string {
  return text
    .replace(/<\/(script)/gi, '<\\/$1')
    .replace(/<!--/g, '<\\!--')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** JSON inside a <script type="application/json">: `<` as \u003c, so no tag can start in it. */
const scriptJson = (value: unknown): string =>
  JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');

let chartJs: string | undefined;
/** chart.js's browser build, from the installed package. */
function chartJsSource(): string {
  chartJs ??= readFileSync(
    join(dirname(createRequire(import.meta.url).resolve('chart.js')), 'chart.umd.min.js'),
    'utf8',
  );
  return chartJs;
}

function table(t: ReportTable, className: string): string {
  const cells = (row: readonly string[], tag: 'th' | 'td'): string =>
    row.map((c, i) => `<${tag}${t.numeric.includes(i) ? ' class="num"' : ''}>${htmlText(c)}</${tag}>`).join('');
  const head = t.head.every((h) => h === '') ? '' : `<thead><tr>${cells(t.head, 'th')}</tr></thead>`;
  return `<table class="${className}">${head}<tbody>${t.rows.map((r) => `<tr>${cells(r, 'td')}</tr>`).join('')}</tbody></table>`;
}

const STYLE = `
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 2rem auto; max-width: 1100px; padding: 0 1rem; color: #222; }
h1 { font-size: 1.6rem; } h2 { font-size: 1.25rem; margin-top: 2rem; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: 0.5rem 0; } th, td { border: 1px solid #ddd; padding: 0.25rem 0.5rem; vertical-align: top; }
th { background: #f5f5f5; text-align: left; } td.num, th.num { text-align: right; white-space: nowrap; }
table.identity td:first-child { font-weight: 600; white-space: nowrap; } table.identity td { word-break: break-word; }
table.errors td:last-child { word-break: break-word; }
/* The wide tables (a column a figure) fit the page: smaller type, phase names on one line. */
table.phases, table.capacity, table.brief-phases { font-size: 0.82rem; } table.phases td:first-child, table.capacity td:first-child, table.brief-phases td:first-child { white-space: nowrap; }
code { font: 0.9em ui-monospace, SFMono-Regular, Menlo, monospace; background: #f3f3f3; padding: 0 0.2em; }
.verdict-pass { color: #1a7f37; } .verdict-fail { color: #cf222e; } .verdict-inconclusive { color: #9a6700; }
.headline { font-size: 1.1rem; font-weight: 600; }
table.kpis { width: 100%; } table.kpis th { font-weight: 500; font-size: 0.85rem; color: #555; } table.kpis td { font-size: 1.15rem; font-weight: 600; }
details > summary { cursor: pointer; } section.brief { background: #fafafa; border: 1px solid #ddd; padding: 0 1rem 0.5rem; }
figure { margin: 1.5rem 0; } canvas { max-width: 100%; border: 1px solid #eee; }
`;

/**
 * Mirrors png.ts's drawable(): `ticks.callbackLabels` (JSON holds no function) becomes a tick callback; legend entries
 * are drawn as their lines, dashes included.
 */
const PAGE_SCRIPT = `
(function () {
  var specs = JSON.parse(document.getElementById('loadproof-charts').textContent);
  specs.forEach(function (spec) {
    var config = spec.config;
    var scales = (config.options && config.options.scales) || {};
    Object.keys(scales).forEach(function (key) {
      var ticks = scales[key].ticks;
      if (!ticks || !ticks.callbackLabels) return;
      var labels = ticks.callbackLabels;
      delete ticks.callbackLabels;
      ticks.autoSkip = false;
      ticks.callback = function (value) { return Object.prototype.hasOwnProperty.call(labels, String(value)) ? labels[String(value)] : ''; };
    });
    var legendLabels = config.options.plugins && config.options.plugins.legend && config.options.plugins.legend.labels;
    if (legendLabels && legendLabels.usePointStyle) {
      legendLabels.generateLabels = function (chart) {
        return Chart.defaults.plugins.legend.labels.generateLabels(chart).map(function (item) {
          var d = chart.data.datasets[item.datasetIndex];
          if (d.type === 'bar') item.pointStyle = 'rect';
          else if (d.pointStyle === 'line') { item.lineDash = d.borderDash || []; item.lineWidth = d.borderWidth || 2; }
          return item;
        });
      };
    }
    config.options.interaction = { mode: 'nearest', axis: 'x', intersect: false };
    // A tooltip's title is the x value: on a time axis, say its unit.
    var xTitle = (scales.x && scales.x.title && scales.x.title.text) || '';
    if (xTitle.indexOf("(s,") >= 0) {
      config.options.plugins = config.options.plugins || {};
      config.options.plugins.tooltip = { callbacks: { title: function (items) { return items.length > 0 ? items[0].parsed.x + ' s (model time)' : ''; } } };
    }
    new Chart(document.getElementById('chart-' + spec.name), config);
  });
})();
`;

/** The brief for a support ticket (brief.md holds it whole) as a section of the page. */
function briefHtml(b: BriefContent): string {
  return [
    '<section class="brief" id="brief">',
    `<h2>${htmlText(b.title)}</h2>`,
    ...(b.formOnly === null ? [] : [`<p><strong>${htmlText(b.formOnly)}</strong></p>`]),
    ...b.sections.flatMap((s) => [
      `<h3>${htmlText(s.heading)}</h3>`,
      ...s.lines.map((l) => `<p>${htmlText(l)}</p>`),
      ...(s.bullets === undefined || s.bullets.length === 0
        ? []
        : ['<ul>', ...s.bullets.map((b) => `<li>${htmlText(b)}</li>`), '</ul>']),
      ...(s.table === undefined ? [] : [table(s.table, 'brief-phases')]),
    ]),
    '</section>',
  ].join('\n');
}

/** Detail under a one-line summary, closed until asked for. */
const folded = (summary: string, lines: readonly string[]): string =>
  `<details><summary>${htmlText(summary)}</summary><ul>${lines.map((l) => `<li>${htmlText(l)}</li>`).join('')}</ul></details>`;

export function reportHtml(c: ReportContent): string {
  const status = c.title.slice(c.title.lastIndexOf(': ') + 2).toLowerCase();
  const charts = c.charts.map((chart) => ({ name: chart.name, config: chart.config }));
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    // Nothing from any network, even if a text in the page tried: only what is inline here.
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">`,
    `<title>${escapeHtml(c.title)}</title>`,
    `<style>${STYLE}</style>`,
    '</head>',
    '<body>',
    `<h1>${htmlText(c.title.slice(0, c.title.lastIndexOf(': ')))}: <span class="verdict-${htmlText(status)}">${htmlText(status.toUpperCase())}</span></h1>`,
    `<p class="headline">${htmlText(c.headline)}</p>`,
    table(c.kpis, 'kpis'),
    '<p>For a support ticket: the brief below (and brief.md beside this page, with the hash of the manifest it belongs to).</p>',
    '<h2>Results by phase</h2>',
    `<p>${htmlText(c.phasesNote)}</p>`,
    table(c.phases, 'phases'),
    '<h2>Evidence</h2>',
    ...(c.shortReasons.length > 0
      ? [`<ul class="short-reasons">${c.shortReasons.map((r) => `<li>${htmlText(r)}</li>`).join('')}</ul>`]
      : []),
    ...c.evidence.map((p) => `<p>${htmlText(p)}</p>`),
    ...(c.reasons.length > 0 ? [folded('The checks that decided it, in full', c.reasons)] : []),
    ...(c.lateness === null ? [] : [folded("The generator's lateness, phase by phase", c.lateness.lines)]),
    ...(c.errors === undefined
      ? []
      : ['<h2>Top errors</h2>', `<p>${htmlText(c.errors.intro)}</p>`, table(c.errors.table, 'errors')]),
    ...(c.deid === undefined
      ? []
      : [
          '<h2>De-identification chain</h2>',
          `<p>${htmlText(c.deid.intro)}</p>`,
          table(c.deid.table, 'deid'),
          `<ul>${c.deid.lines.map((l) => `<li>${htmlText(l)}</li>`).join('')}</ul>`,
        ]),
    ...phiHtml(c.phi),
    ...(c.capacity === undefined
      ? []
      : [
          '<h2>Capacity</h2>',
          table(c.capacity.table, 'capacity'),
          `<ul>${c.capacity.lines.map((l) => `<li>${htmlText(l)}</li>`).join('')}</ul>`,
        ]),
    ...(c.baseline === undefined
      ? []
      : [
          '<h2>Against the baseline</h2>',
          `<p>${htmlText(c.baseline.intro)}</p>`,
          table(c.baseline.table, 'baseline'),
          `<p>${htmlText(c.baseline.rule)}</p>`,
          `<p><strong>${htmlText(c.baseline.outcome)}.</strong></p>`,
          ...(c.baseline.lines.length > 0
            ? [`<ul>${c.baseline.lines.map((l) => `<li>${htmlText(l)}</li>`).join('')}</ul>`]
            : []),
        ]),
    '<h2>Safety checks before the run</h2>',
    table(c.guard, 'guard'),
    '<h2>Charts</h2>',
    '<p>Hover a chart for its values; click a legend entry to hide or show its series.</p>',
    ...c.charts.map(
      (chart) =>
        `<figure><canvas id="chart-${htmlText(chart.name)}" width="${CHART_WIDTH}" height="${CHART_HEIGHT}" role="img" aria-label="${htmlText(chart.title)}"></canvas></figure>`,
    ),
    briefHtml(c.brief),
    '<h2>Run details</h2>',
    table(c.identity, 'identity'),
    '<h2>Files</h2>',
    `<p>${htmlText(c.files)}</p>`,
    `<script type="application/json" id="loadproof-charts">${scriptJson(charts)}</script>`,
    `<script>${scriptText(chartJsSource())}</script>`,
    `<script>${PAGE_SCRIPT}</script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

/** mode deid: the known PHI section (recall), or nothing. */
function phiHtml(phi: ReportContent['phi']): string[] {
  if (phi === undefined) return [];
  return [
    '<h2>Known PHI: recall under load</h2>',
    `<p>${htmlText(phi.intro)}</p>`,
    ...phi.tables.flatMap((t) => [`<h3>${htmlText(t.caption)}</h3>`, table(t.table, 'phi')]),
    `<ul>${phi.lines.map((l) => `<li>${htmlText(l)}</li>`).join('')}</ul>`,
  ];
}
