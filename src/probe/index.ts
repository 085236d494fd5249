/**
 * The probe's entry. Its steps and defaults load at once (the CLI shows them in --help); the probe itself
 * (autocannon, and the WebAssembly histogram autocannon loads) only when a probe runs, through loadProbe.
 */
export { DEFAULT_CONNECTIONS, DEFAULT_STEP } from './steps.js';

/** The probe's session and its report, loaded on first use. */
export async function loadProbe(): Promise<{
  probeSession: typeof import('./session.js').probeSession;
  formatProbe: typeof import('./probe-report.js').formatProbe;
}> {
  const [session, format] = await Promise.all([import('./session.js'), import('./probe-report.js')]);
  return { probeSession: session.probeSession, formatProbe: format.formatProbe };
}
