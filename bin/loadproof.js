#!/usr/bin/env node
// Launcher: the CLI is built into dist/bundle/ by `npm run build` (run automatically by `npm ci`): one bundle
// loads in far less CPU than the ~440 modules it is made of (docs/development.md).
import { existsSync } from 'node:fs';
import module from 'node:module';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/bundle/bin.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write('loadproof: dist/bundle/ is missing; run `npm ci` (or `npm run build`) first.\n');
  process.exitCode = 4;
} else {
  // Stack traces in src/*.ts terms on request: parsing the maps costs start-up CPU on every run otherwise.
  if (process.env.LOADPROOF_SOURCE_MAPS === '1') process.setSourceMapsEnabled(true);
  enableCompileCache();
  await import(entry.href);
}

/**
 * Node ≥ 22.1 keeps V8's compiled code of the bundle between runs. The cache lives in loadproof's own
 * node_modules/.cache (as trusted as the code beside it; a shared temporary folder is writable by others), Node
 * checks each entry against the source and recompiles on a mismatch or a corrupt file, and a cache that cannot be
 * written is only skipped. Absent on Node 20: nothing happens.
 */
function enableCompileCache() {
  if (typeof module.enableCompileCache !== 'function' || process.env.NODE_COMPILE_CACHE !== undefined) return;
  try {
    module.enableCompileCache(fileURLToPath(new URL('../node_modules/.cache/loadproof-compile/', import.meta.url)));
  } catch {
    // A cache is an optimisation: a run never fails for want of one.
  }
}
