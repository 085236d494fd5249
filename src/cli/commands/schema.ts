/** `loadproof schema`: print the scenario file's JSON Schema (for editors and CI checks). */
import { EXIT } from '../../core/index.js';
import { scenarioJsonSchemaText } from '../../scenario/index.js';
import type { Io } from '../io.js';

export function runSchema(io: Io): number {
  io.stdout(scenarioJsonSchemaText());
  return EXIT.pass;
}
