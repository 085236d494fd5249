/**
 * `loadproof merge` of deid shards: every shard's documents.ndjson lines in one file, in document order. Shard i of n
 * holds the documents d ≡ i (mod n) (src/plan/shard-documents.ts), its lines in the order its documents ended; the
 * merge indexes each line's place (8 + 4 bytes a document, never the lines themselves), then copies them in order, so
 * memory stays bounded by the plan, not by the documents' size. The judge reads the merged lines as any run's.
 */
import { open } from 'node:fs/promises';
import { join } from 'node:path';

import { openRegular, readLines, UsageError } from '../core/index.js';
import type { ShardFolder } from './merge-shards.js';
import { ndjsonBounds } from './read-documents.js';

/** The whole plan's documents, as run.json's documentPieces records them (one 32-bit count each). */
export function plannedDocuments(shard: ShardFolder): number | undefined {
  const pieces = shard.run.documentPieces;
  return pieces === undefined ? undefined : Buffer.from(pieces, 'base64').length / 4;
}

/** Writes `dir`/documents.ndjson from the shards' (in index order, all of one plan of `total` documents). */
export async function writeMergedDocuments(dir: string, shards: readonly ShardFolder[], total: number): Promise<void> {
  const n = shards.length;
  const offsets = new Float64Array(total).fill(-1);
  const lengths = new Uint32Array(total);
  for (const [i, shard] of shards.entries()) {
    const path = join(shard.dir, 'documents.ndjson');
    let offset = 0;
    for await (const { line, number } of readLines(path, ndjsonBounds(total))) {
      const bytes = Buffer.byteLength(line) + 1;
      if (line !== '') {
        const d = docOf(line);
        if (d === undefined || d >= total || d % n !== i || offsets[d]! >= 0)
          throw new UsageError(
            `${path} line ${number}: not a document of shard ${i}/${n} (doc ≡ ${i} mod ${n}, below ${total}, once each)`,
            'the shard folder was changed after its run; nothing was written',
          );
        offsets[d] = offset;
        lengths[d] = bytes;
      }
      offset += bytes;
    }
  }
  const handles = await Promise.all(
    shards.map(async (s) => (await openRegular(join(s.dir, 'documents.ndjson'), Number.MAX_SAFE_INTEGER)).handle),
  );
  const out = await open(join(dir, 'documents.ndjson'), 'wx');
  try {
    for (let d = 0; d < total; d++) {
      if (offsets[d]! < 0) continue;
      const line = Buffer.alloc(lengths[d]!);
      await handles[d % n]!.read(line, 0, line.length, offsets[d]!);
      await out.write(line);
    }
  } finally {
    await out.close();
    for (const h of handles) await h.close();
  }
}

/** The `doc` of a documents.ndjson line, or undefined when the line holds none (the judge says what is wrong). */
function docOf(line: string): number | undefined {
  try {
    const doc = (JSON.parse(line) as { doc?: unknown }).doc;
    return Number.isInteger(doc) && (doc as number) >= 0 ? (doc as number) : undefined;
  } catch {
    return undefined;
  }
}
