// The shipped CLI as a bundle (npm run build: tsc, then `rolldown -c`): dist/*.js, compiled by tsc, joined into
// dist/bundle/ (docs/development.md). Loading one file instead of ~440 modules is most of a run's fixed CPU.
// Every dynamic import() stays a chunk of its own, so what a command does not use is still not parsed.
// All chunks sit in one flat folder, two folders down like dist/core/: `new URL('./worker.js', import.meta.url)`
// (the embedded mock's thread) and `new URL('../../package.json', import.meta.url)` resolve as from dist/.
import { existsSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { relative } from 'node:path';

import { defineConfig } from 'rolldown';

const ROOT = import.meta.dirname;

// Left to Node, loaded from node_modules at run time: the canvas is native (a .node addon), and
// chartjs-node-canvas require()s it ('canvas', overridden to @napi-rs/canvas) and its own chart.js.
const EXTERNAL_PACKAGES = ['@napi-rs/canvas', 'canvas', 'chartjs-node-canvas'];
const isExternal = (id) =>
  id.startsWith('node:') ||
  builtinModules.includes(id) ||
  EXTERNAL_PACKAGES.some((name) => id === name || id.startsWith(`${name}/`));

/** Reads tsc's source map beside each dist/ file, so that the bundle's map points into src/*.ts. */
const tscSourceMaps = {
  name: 'tsc-source-maps',
  load(id) {
    if (!id.startsWith(`${ROOT}/dist/`) || !id.endsWith('.js') || !existsSync(`${id}.map`)) return null;
    const code = readFileSync(id, 'utf8').replace(/\n\/\/# sourceMappingURL=.*\s*$/, '\n');
    return { code, map: readFileSync(`${id}.map`, 'utf8') };
  },
};

/**
 * A dependency that hides a require() from bundlers in an eval ('require("zlib").deflateSync', as hdr-histogram-js
 * does to find node:zlib) gets it back as a plain require(), which the bundle resolves: in an ES module the eval
 * finds no require, and hdr-histogram-js would deflate with pako instead (other bytes in summary.json than the
 * per-file build writes). Left to Node instead, it costs a run about 0.15 s of CPU and 3 MiB (2026-11-28).
 */
const evalRequire = {
  name: 'eval-require',
  transform: {
    filter: { code: 'eval(' },
    handler(code, id) {
      if (!id.includes('/node_modules/')) return null;
      const plain = code.replace(/\beval\('(require\("[\w:@/.-]+"\)(?:\.\w+)*)'\)/g, '($1)');
      return plain === code ? null : { code: plain, map: null };
    },
  },
};

/** dist/bundle/modules.json: each chunk's modules (root-relative), for the test of what a run loads. */
const moduleManifest = {
  name: 'module-manifest',
  generateBundle(_options, bundle) {
    const chunks = {};
    for (const file of Object.values(bundle)) {
      if (file.type === 'chunk') chunks[file.fileName] = file.moduleIds.map((id) => relative(ROOT, id));
    }
    this.emitFile({ type: 'asset', fileName: 'modules.json', source: `${JSON.stringify(chunks, null, 1)}\n` });
  },
};

export default defineConfig({
  input: { bin: 'dist/cli/bin.js', worker: 'dist/mock/worker.js' },
  platform: 'node',
  external: isExternal,
  plugins: [tscSourceMaps, evalRequire, moduleManifest],
  output: {
    dir: 'dist/bundle',
    format: 'esm',
    entryFileNames: '[name].js',
    chunkFileNames: '[name]-[hash].js',
    // Written, not enabled by default: LOADPROOF_SOURCE_MAPS=1 turns them on (bin/loadproof.js).
    sourcemap: true,
    cleanDir: true,
  },
});
