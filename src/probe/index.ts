export { CLOSED_LOOP_CAVEAT, type ProbeReport, formatProbe, probeCeiling, probeEnding, probeMarkdown } from './format.js';
export { type ProbeResult, type ProbeStep, runProbe } from './probe.js';
export { type ProbeEndpoint, type ProbeSession, probeSession } from './session.js';
export { DEFAULT_CONNECTIONS, DEFAULT_STEP, type ProbeSteps, parseProbeSteps, probeScenario } from './steps.js';
