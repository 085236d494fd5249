export { CONTENT_TYPES, exposition, type ExpositionFormat, type Family, negotiate } from './exposition.js';
export { checkMetricsHost, type Exposure, exposureOf, exposureWarning } from './listen.js';
export { LATENCY_BUCKETS_S, RunMetrics, type RunMetricsInfo, SEND_LAG_BUCKETS_S } from './run-metrics.js';
export { type MetricsServer, startMetricsServer } from './server.js';
