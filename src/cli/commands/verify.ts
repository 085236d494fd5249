/**
 * `loadproof verify <run-dir>`: hash a run folder's files again against its manifest.json. Wires the report module to
 * the process; no logic here.
 */
import { join } from 'node:path';

import type { Argv } from 'yargs';

import { EXIT, UsageError } from '../../core/index.js';
import type { Io } from '../io.js';

export function verifyOptions<T>(y: Argv<T>) {
  return y.positional('run-dir', {
    type: 'string',
    demandOption: true,
    describe: 'A run folder with its manifest.json',
  });
}

type VerifyArgs = Awaited<ReturnType<typeof verifyOptions>['argv']>;

export async function runVerify(args: VerifyArgs, io: Io): Promise<number> {
  const { ManifestUnreadable, describeVerification, verifyFolder } = await import('../../run-folder/index.js');
  const dir = args['run-dir'];
  const verification = await verifyFolder(dir).catch((error: unknown) => {
    if (!(error instanceof ManifestUnreadable)) throw error;
    throw new UsageError(
      `${join(dir, 'manifest.json')}: ${error.message}`,
      'a run folder gets its manifest.json from `loadproof run`; `loadproof report <run-dir>` writes it again',
    );
  });
  io.stdout(describeVerification(dir, verification));
  return verification.intact ? EXIT.pass : EXIT.slaNotMet;
}
