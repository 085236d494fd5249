/**
 * One catalogue of the errors a user can cause. Each carries a stable `code` and the process exit
 * code it maps to; the CLI prints `code: message` (and the hint) without a stack. Anything that
 * is not a LoadproofError is a bug and is printed with its stack as an internal error (exit 4).
 */
import { EXIT } from './exit-codes.js';

export class LoadproofError extends Error {
  constructor(
    readonly code: string,
    readonly exitCode: number,
    message: string,
    readonly hint?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Bad flags or arguments: exit 2. */
export class UsageError extends LoadproofError {
  constructor(message: string, hint?: string) {
    super('USAGE', EXIT.badInput, message, hint);
  }
}

/** The run could not be carried out (target unreachable, authentication failed): exit 4. */
export class RunFailure extends LoadproofError {
  constructor(
    code: 'TARGET_UNREACHABLE' | 'AUTH_FAILED' | 'RUN_FAILED' | 'TLS_CERTIFICATE' | 'HTTP_PROTOCOL',
    message: string,
    hint?: string,
  ) {
    super(code, EXIT.runFailed, message, hint);
  }
}

/** The guard refused the run before anything was sent: exit 3. */
export class GuardRefusal extends LoadproofError {
  constructor(readonly reasons: readonly string[]) {
    super(
      'GUARD_REFUSED',
      EXIT.refusedByGuard,
      `refused before sending anything:\n${reasons.map((r) => `  ✖ ${r}`).join('\n')}`,
      'nothing was sent; see docs/guard.md ("Safety and the guard")',
    );
  }
}

/** A scenario file that cannot be used: every problem, one line each, with its field path. Exit 2. */
export class ScenarioError extends LoadproofError {
  constructor(
    readonly file: string,
    readonly problems: readonly string[],
  ) {
    super(
      'SCENARIO_INVALID',
      EXIT.badInput,
      `${file}: ${problems.length === 1 ? '1 problem' : `${problems.length} problems`}\n${problems.map((p) => `  ✖ ${p}`).join('\n')}`,
      'nothing was sent; fix the file (its JSON Schema: loadproof schema)',
    );
  }
}

/**
 * A threshold marked abortOnFail failed beyond doubt mid-run: the run stopped sending, and its verdict fails (exit 1).
 */
export class ThresholdAbort extends LoadproofError {
  constructor(message: string) {
    super('THRESHOLD_ABORT', EXIT.slaNotMet, message);
  }
}

/** A stop signal (SIGINT/SIGTERM) ended the run, or the wait it was in: exit 130. */
export class Interrupted extends LoadproofError {
  constructor(message: string) {
    super('INTERRUPTED', EXIT.interrupted, message);
  }
}
