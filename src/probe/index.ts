export { BUCKET_CAVEAT, CLOSED_LOOP_CAVEAT, type ProbeReport, effectiveCapRpm, formatProbe, lastCleanStep, probeFindings, probeMarkdown } from './format.js';
export { type ProbeResult, type ProbeStep, requestsPerWallSecond, runProbe } from './probe.js';
export { type ProbeEndpoint, type ProbeSession, probeSession } from './session.js';
export { DEFAULT_CONNECTIONS, DEFAULT_STEP, type ProbeSteps, parseProbeSteps, probeScenario } from './steps.js';
