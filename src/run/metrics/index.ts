export { CONTENT_TYPES, type ExpositionFormat, type Family, exposition, negotiate } from './exposition.js';
export { LATENCY_BUCKETS_S, RunMetrics, type RunMetricsInfo, SEND_LAG_BUCKETS_S } from './run-metrics.js';
export { type MetricsServer, startMetricsServer } from './server.js';
export { type Exposure, checkMetricsHost, exposureOf, exposureWarning } from './listen.js';
