/** loadproof's version, from its package.json (dist/core, src/core and dist/bundle: all two folders down). */
import { readFileSync } from 'node:fs';

export const LOADPROOF_VERSION: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
