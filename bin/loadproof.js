#!/usr/bin/env node
// Launcher: the CLI is compiled to dist/ by `npm run build` (run automatically by `npm ci`).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/cli/bin.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write('loadproof: dist/ is missing; run `npm ci` (or `npm run build`) first.\n');
  process.exitCode = 4;
} else {
  await import(entry.href);
}
