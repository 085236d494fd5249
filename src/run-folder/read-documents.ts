/** documents.ndjson of a deid run, read back for the offline judge (read.ts), and the pieces run.json recorded. */
import { readLines, UsageError } from '../core/index.js';
import { type DocumentSink, parseDocumentLine, type RunRecord } from '../judge/index.js';
import { documentsHeld, holdsDocument, type Plan } from '../plan/index.js';

/**
 * The longest line of events.ndjson or documents.ndjson read back (bytes): a line of loadproof's is under
 * 2 KiB (10 attempts at most); a longer one was not written by a run, and memory stays bounded by it.
 */
const MAX_EVENT_LINE_BYTES = 64 * 1024;

/** The bounds of an ndjson file of `lines` lines at most (and a cut last line). */
export const ndjsonBounds = (lines: number): { maxLineBytes: number; maxBytes: number } => ({
  maxLineBytes: MAX_EVENT_LINE_BYTES,
  maxBytes: (lines + 1) * (MAX_EVENT_LINE_BYTES + 1),
});

/**
 * Streams documents.ndjson into the sink, as readEvents does (memory bounded by the longest line): each
 * planned document once, and every one of them in a finished run; a line cut mid-write is left out of a
 * partial run (it must be the last, an empty line at most after it), and refuses a finished one.
 */
export async function readDocuments(
  path: string,
  documents: DocumentSink,
  plan: Plan,
  partial: boolean,
): Promise<string[]> {
  // A deid shard's lines are its documents (d ≡ i mod n), numbered as in the whole plan.
  const planned = documentsHeld(plan);
  const seen = new Uint8Array(plan.documents?.count ?? 0);
  let count = 0;
  let bad: { number: number; why: string } | undefined;
  let afterBad = 0;
  for await (const { line, number } of readLines(path, ndjsonBounds(planned))) {
    if (number > 2 * planned + 2)
      throw new UsageError(
        `${path}: more lines than the ${planned} planned documents`,
        'the documents file was changed after the run; nothing was written',
      );
    if (bad !== undefined) {
      // Only a last line may be cut (an empty one after it at most): anything more, and it was not a cut.
      if (line !== '' || ++afterBad > 1)
        throw new UsageError(`${path} line ${bad.number}: ${bad.why}`, 'the documents file was changed after the run');
      continue;
    }
    if (line === '') continue;
    try {
      const record = parseDocumentLine(line);
      if (record.doc >= seen.length) throw new Error(`doc ${record.doc} is beyond the plan's ${seen.length} documents`);
      if (!holdsDocument(plan, record.doc)) throw new Error(`doc ${record.doc} is not one of this shard's documents`);
      if (seen[record.doc] === 1)
        throw new UsageError(
          `${path} line ${number}: doc ${record.doc} appears twice`,
          'the documents file was changed after the run',
        );
      seen[record.doc] = 1;
      count++;
      documents.add(record);
    } catch (error) {
      if (error instanceof UsageError) throw error;
      bad = { number, why: (error as Error).message };
    }
  }
  const notes: string[] = [];
  if (bad !== undefined) {
    if (!partial)
      throw new UsageError(`${path} line ${bad.number}: ${bad.why}`, 'the documents file was changed after the run');
    notes.push(`documents.ndjson line ${bad.number} was cut mid-write when the run ended; it is left out`);
  }
  if (!partial && count !== planned)
    throw new UsageError(
      `${path}: ${count} lines for the ${planned} planned documents of a finished run`,
      'the documents file was changed after the run; nothing was written',
    );
  return notes;
}

/** The pieces of each document as run.json recorded them, one at a time in order. */
export function recordedPieces(run: RunRecord, dir: string): () => number {
  if (run.documentPieces === undefined)
    throw new UsageError(
      `${dir}/run.json: a deid run without documentPieces`,
      'the run folder is incomplete; nothing was written',
    );
  // Checked by run-record-schema.ts; copied, since a Buffer's offset in its pool need not be a multiple of 4.
  const pieces = new Uint32Array(new Uint8Array(Buffer.from(run.documentPieces, 'base64')).buffer);
  let next = 0;
  return () => pieces[next++] ?? 1;
}
