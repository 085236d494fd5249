/**
 * The probe's entry. Its steps and defaults load at once (the CLI shows them in --help); the probe itself
 * (autocannon, and the WebAssembly histogram autocannon loads) only when a probe runs, through loadProbe.
 */
export type { ProbeResult, ProbeStep } from './probe.js';
export type { ProbeReport } from './probe-report.js';
export type { ProbeEndpoint, ProbeSession } from './session.js';
export { DEFAULT_CONNECTIONS, DEFAULT_STEP, parseProbeSteps, probeScenario, type ProbeSteps } from './steps.js';

/** The probe's session and its report, loaded on first use. */
export async function loadProbe(): Promise<{
  probeSession: typeof import('./session.js').probeSession;
  formatProbe: typeof import('./probe-report.js').formatProbe;
}> {
  const [session, format] = await Promise.all([import('./session.js'), import('./probe-report.js')]);
  return { probeSession: session.probeSession, formatProbe: format.formatProbe };
}
