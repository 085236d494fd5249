import { describe, expect, it } from 'vitest';

import type { ReportContent } from './content-types.js';
import { htmlText, reportHtml, scriptText } from './html.js';

const content = (over: Partial<ReportContent> = {}): ReportContent => ({
  title: 'demo: FAIL',
  headline: 'FAIL: failed a: p(95) < 2.5s.',
  kpis: { head: ['Requests sent', 'Goodput'], rows: [['10 of 10', '9.0 rpm answered 2xx']], numeric: [] },
  shortReasons: ['a: p(95) < 2.5s: FAIL, p95 3.00s'],
  lateness: null,
  brief: {
    title: 'Load-test brief: demo',
    formOnly: null,
    sections: [{ heading: 'What we ask, and why', lines: ['x'] }],
  },
  identity: { head: ['', ''], rows: [['Command', 'loadproof run <x> & "y"']], numeric: [] },
  phasesNote: 'notes',
  phases: { head: ['Phase', 'p95'], rows: [['a|b', '1.00s']], numeric: [1] },
  reasons: ['p(95) 3.00s > 2.50s'],
  evidence: ['First `paragraph`.', 'Second <b>not bold</b>.'],
  guard: { head: ['Rule', 'Status', 'What it found'], rows: [['target', 'ok', 'loopback']], numeric: [] },
  charts: [
    {
      name: 'c1',
      title: 'One </script><script>alert(1)</script>',
      config: { type: 'line', data: { datasets: [{ label: '</script>', data: [] }] }, options: {} },
    },
  ],
  pngCharts: true,
  files: 'see `manifest.json`',
  ...over,
});

describe('report.html', () => {
  it('escapes text and keeps only `code` spans as markup', () => {
    expect(htmlText(`a < b & "c" 'd' > e`)).toBe('a &lt; b &amp; &quot;c&quot; &#39;d&#39; &gt; e');
    expect(htmlText('run `loadproof verify <dir>` now')).toBe('run <code>loadproof verify &lt;dir&gt;</code> now');
  });

  it('keeps inlined script text from ending its element', () => {
    expect(scriptText('x = "</script><script>"; <!-- y')).toBe('x = "<\\/script><script>"; <\\!-- y');
    expect(scriptText('a </SCRIPT b')).toBe('a <\\/SCRIPT b');
  });

  it('is one page: inline chart.js and data, a policy that forbids any network, no text able to break out', () => {
    const html = reportHtml(content());
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="default-src 'none';`);
    // No element that would fetch: no src= or href= at all, no stylesheet link.
    expect(/\s(src|href)\s*=/i.exec(html)?.[0]).toBeUndefined();
    // The chart data is JSON with every '<' escaped; the only </script> are the three elements' own ends.
    expect(html.match(/<\/script>/g)).toHaveLength(3);
    expect(html.includes('"label":"\\u003c/script>"')).toBe(true);
    expect(html.includes('aria-label="One &lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;"')).toBe(true);
    expect(html.includes('Second &lt;b&gt;not bold&lt;/b&gt;.'), 'Second &lt;b&gt;not bold&lt;/b&gt;.').toBe(true);
    expect(html.includes('<td class="num">1.00s</td>'), '<td class="num">1.00s</td>').toBe(true);
    expect(
      html.includes('<canvas id="chart-c1" width="1000" height="460"'),
      '<canvas id="chart-c1" width="1000" height="460"',
    ).toBe(true);
    expect(html.includes('<span class="verdict-fail">FAIL</span>'), '<span class="verdict-fail">FAIL</span>').toBe(
      true,
    );
    // chart.js itself is in the page.
    expect(/Chart\.js v4/.test(html)).toBe(true);
  });
});
