import { describe, expect, it } from 'vitest';

import { exposition, negotiate } from './exposition.js';

const families = [
  {
    name: 'x_requests',
    type: 'counter' as const,
    help: 'Requests "done".\nTwo lines',
    samples: [{ labels: { phase: 'a"b\\c\nd' }, value: 3 }],
  },
  {
    name: 'x_latency_seconds',
    type: 'histogram' as const,
    unit: 'seconds',
    help: 'Latency.',
    samples: [{ labels: {}, bounds: [0.5, 1], cumulative: [1, 2], count: 3, sum: 2.5 }],
  },
];

describe('exposition', () => {
  it('writes the Prometheus text format: counters named with _total, no UNIT, no EOF', () => {
    expect(exposition(families, 'prometheus')).toBe(
      [
        '# HELP x_requests_total Requests "done".\\nTwo lines',
        '# TYPE x_requests_total counter',
        'x_requests_total{phase="a\\"b\\\\c\\nd"} 3',
        '# HELP x_latency_seconds Latency.',
        '# TYPE x_latency_seconds histogram',
        'x_latency_seconds_bucket{le="0.5"} 1',
        'x_latency_seconds_bucket{le="1"} 2',
        'x_latency_seconds_bucket{le="+Inf"} 3',
        'x_latency_seconds_sum 2.5',
        'x_latency_seconds_count 3',
        '',
      ].join('\n'),
    );
  });

  it('writes OpenMetrics: the family without _total, its unit, float bounds and # EOF', () => {
    const text = exposition(families, 'openmetrics');
    expect(text).toContain('# HELP x_requests Requests \\"done\\".\\nTwo lines\n');
    expect(text).toContain('# TYPE x_requests counter\n');
    expect(text).toContain('x_requests_total{phase="a\\"b\\\\c\\nd"} 3\n');
    expect(text).toContain('# UNIT x_latency_seconds seconds\n');
    expect(text).toContain('x_latency_seconds_bucket{le="1.0"} 2\n');
    expect(text.endsWith('# EOF\n')).toBe(true);
  });

  it('answers OpenMetrics only to a scraper that asks for it', () => {
    expect(negotiate('application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5')).toBe('openmetrics');
    expect(negotiate('text/plain')).toBe('prometheus');
    expect(negotiate(undefined)).toBe('prometheus');
  });
});
