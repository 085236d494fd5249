/**
 * The metric families a run exposes, and their text for a scraper: OpenMetrics 1.0 when the scraper asks
 * for it (Prometheus does), else the Prometheus text format 0.0.4. Names follow Prometheus' conventions:
 * snake_case with a `loadproof_` prefix, base units (seconds) in the name, `_total` on counters. Label
 * values are escaped; nothing here knows about runs.
 */

export type MetricType = 'counter' | 'gauge' | 'histogram';
type ExpositionFormat = 'openmetrics' | 'prometheus';

export const CONTENT_TYPES: Record<ExpositionFormat, string> = {
  openmetrics: 'application/openmetrics-text; version=1.0.0; charset=utf-8',
  prometheus: 'text/plain; version=0.0.4; charset=utf-8',
};

export type Labels = Readonly<Record<string, string>>;

export interface Sample {
  readonly labels: Labels;
  readonly value: number;
}

export interface HistogramSample {
  readonly labels: Labels;
  /** Upper bounds, ascending, without +Inf. */
  readonly bounds: readonly number[];
  /** Cumulative counts per bound (not counting +Inf). */
  readonly cumulative: readonly number[];
  readonly count: number;
  readonly sum: number;
}

export interface Family {
  /** Without `_total` for a counter: the family's name, as OpenMetrics has it. */
  readonly name: string;
  readonly type: MetricType;
  readonly help: string;
  /** `seconds`, or none. */
  readonly unit?: string;
  readonly samples: readonly Sample[] | readonly HistogramSample[];
}

/** Which format to answer an Accept header with: OpenMetrics only when asked for. */
export function negotiate(accept: string | undefined): ExpositionFormat {
  return accept !== undefined && /application\/openmetrics-text/i.test(accept) ? 'openmetrics' : 'prometheus';
}

export function exposition(families: readonly Family[], format: ExpositionFormat): string {
  const lines: string[] = [];
  for (const f of families) {
    // Prometheus 0.0.4 names a counter's family by its sample name; OpenMetrics without `_total`.
    const typeName = format === 'prometheus' && f.type === 'counter' ? `${f.name}_total` : f.name;
    // OpenMetrics escapes a double quote in HELP as in label values; the Prometheus text format does not.
    lines.push(
      `# HELP ${typeName} ${format === 'openmetrics' ? escapeLabel(f.help) : escapeHelp(f.help)}`,
      `# TYPE ${typeName} ${f.type}`,
    );
    if (format === 'openmetrics' && f.unit !== undefined) lines.push(`# UNIT ${f.name} ${f.unit}`);
    if (f.type === 'histogram') {
      for (const h of f.samples as readonly HistogramSample[]) {
        // OpenMetrics writes a bound as a float ("1.0"), as Prometheus' own clients do, so that a series keeps one name
        // in both formats' scrapes.
        h.bounds.forEach((bound, i) =>
          lines.push(
            sample(
              `${f.name}_bucket`,
              { ...h.labels, le: format === 'openmetrics' && Number.isInteger(bound) ? `${bound}.0` : number(bound) },
              h.cumulative[i]!,
            ),
          ),
        );
        lines.push(
          sample(`${f.name}_bucket`, { ...h.labels, le: '+Inf' }, h.count),
          sample(`${f.name}_sum`, h.labels, h.sum),
          sample(`${f.name}_count`, h.labels, h.count),
        );
      }
    } else {
      for (const s of f.samples as readonly Sample[])
        lines.push(sample(f.type === 'counter' ? `${f.name}_total` : f.name, s.labels, s.value));
    }
  }
  if (format === 'openmetrics') lines.push('# EOF');
  return `${lines.join('\n')}\n`;
}

function sample(name: string, labels: Labels, value: number): string {
  const pairs = Object.entries(labels).map(([k, v]) => `${k}="${escapeLabel(v)}"`);
  return `${name}${pairs.length === 0 ? '' : `{${pairs.join(',')}}`} ${number(value)}`;
}

const number = (v: number): string => (Number.isFinite(v) ? String(v) : v > 0 ? '+Inf' : v < 0 ? '-Inf' : 'NaN');
const escapeLabel = (v: string): string => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
const escapeHelp = (v: string): string => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
