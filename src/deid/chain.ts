/**
 * De-identification as the spec chains it: PHI Identification, then PHI Obfuscation. A document is
 * split into pieces under the identification limit (src/texts); each piece is identified (several at
 * once, up to `concurrency`, or one after another); the entities are moved to document offsets and
 * merged; the whole document is obfuscated in one call (its limits are far higher). A piece whose
 * answer says its entity list was cut at the output cap (`truncated`) is split in halves and asked
 * again, at most `maxResplits` times deep, so that PHI past the cap is not missed; what is still cut
 * then is counted, and the result says so. The calls are injected: the one-shot command sends them
 * with small requests, a load run through its own client.
 */
import { type ChainCalls, ChainError, type FoundEntity, type Replacement } from '../client/index.js';
import { isPhiKind, textRecall } from '../phi/index.js';
import { maxPieceLength, type Piece, seamPieces, splitDocument, type SplitLimits } from '../texts/index.js';

interface ChainOptions {
  readonly split: SplitLimits;
  /** Pieces identified at once (1: in order). */
  readonly concurrency: number;
  /** How many times a truncated piece may be halved and asked again. */
  readonly maxResplits: number;
  /**
   * The most identification requests the document may send (re-asked halves included): what the guard
   * judged (identifyBudget). A re-split that would pass it is not asked; its piece counts as truncated.
   */
  readonly maxIdentifyRequests?: number;
}

/**
 * The identification requests a document of `pieces` (its split and seams) may send to a real
 * environment: each piece once, and as many again for halves re-asked after a cut answer. The one-shot
 * `deid` is judged by the guard on this many, and never sends more.
 */
export const identifyBudget = (pieces: number): number => 2 * pieces;

export const DEFAULT_CHAIN_OPTIONS: Omit<ChainOptions, 'split'> = { concurrency: 4, maxResplits: 2 };

export interface DeidResult {
  /** The obfuscated document. */
  readonly text: string;
  /** Entities in document offsets, merged (no overlaps), in order. */
  readonly entities: readonly FoundEntity[];
  readonly replacements: readonly Replacement[];
  /** The pieces of the first split, then the seams around its cuts inside a sentence. */
  readonly pieces: readonly Piece[];
  /** Of the pieces, the seams. */
  readonly seams: number;
  /** Identification requests sent (re-asked halves included). */
  readonly identifyRequests: number;
  /** Pieces whose entity list was still cut after the last re-split: PHI may remain in them. */
  readonly truncatedPieces: number;
  /** Where the first split cut the document: the offsets of its pieces after the first. */
  readonly cuts: readonly number[];
  /**
   * Entities identification found whose text is still present in the obfuscated text (the service did not replace
   * them all). What identification missed is not counted here: only known PHI (`--expect`) can tell that.
   */
  readonly foundStillPresent: number;
}

/**
 * The pieces a document is first sent as: its split, then the seams around its cuts inside a sentence (what straddles a
 * cut is whole in one of them).
 */
export function documentPieces(
  text: string,
  split: SplitLimits,
): { readonly pieces: readonly Piece[]; readonly seams: number; readonly cuts: readonly number[] } {
  const first = splitDocument(text, split);
  const seams = seamPieces(text, first, maxPieceLength(split));
  return {
    pieces: [...first, ...seams].filter((p) => p.text.trim() !== ''),
    seams: seams.length,
    cuts: first.slice(1).map((p) => p.offset),
  };
}

export async function deidentify(text: string, calls: ChainCalls, options: ChainOptions): Promise<DeidResult> {
  const { pieces, seams, cuts } = documentPieces(text, options.split);
  let identifyRequests = 0;
  let truncatedPieces = 0;
  const budget = options.maxIdentifyRequests ?? Number.POSITIVE_INFINITY;
  let plannedRequests = pieces.length;
  // At most `concurrency` identification calls in flight, re-asked halves included.
  const identify = limited(Math.max(1, options.concurrency), (t: string) => calls.identify(t));

  /** The entities of `piece` in document offsets, re-asking in halves while the answer is cut. */
  const identifyPiece = async (piece: Piece, depth: number): Promise<FoundEntity[]> => {
    identifyRequests++;
    const answer = await identify(piece.text);
    for (const e of answer.entities) {
      if (!(
        Number.isInteger(e.start) &&
        Number.isInteger(e.end) &&
        e.start >= 0 &&
        e.start < e.end &&
        e.end <= piece.text.length
      )) {
        throw new ChainError(
          `identification gave an entity at [${e.start}, ${e.end}) in a text of ${piece.text.length} characters`,
        );
      }
    }
    const found = answer.entities.map((e) => ({ ...e, start: e.start + piece.offset, end: e.end + piece.offset }));
    if (!answer.truncated) return found;
    const limits = halfOf(options.split, depth + 1);
    const halves = depth < options.maxResplits ? splitDocument(piece.text, limits) : [];
    if (halves.length < 2) {
      truncatedPieces++;
      return found;
    }
    // The halves' own cuts get seams too; what the first answer found stays (merged), in case a half finds less.
    const parts = [...halves, ...seamPieces(piece.text, halves, maxPieceLength(limits))].filter(
      (h) => h.text.trim() !== '',
    );
    // Counted when planned, before any is sent: concurrent re-splits cannot pass the budget together.
    if (plannedRequests + parts.length > budget) {
      truncatedPieces++;
      return found;
    }
    plannedRequests += parts.length;
    const again = await Promise.all(
      parts.map((h) => identifyPiece({ text: h.text, offset: piece.offset + h.offset }, depth + 1)),
    );
    return [...found, ...again.flat()];
  };

  const perPiece = await mapLimited(pieces, Math.max(1, options.concurrency), (p) => identifyPiece(p, 0));
  const entities = mergeEntities(perPiece.flat());
  const obfuscated = await calls.obfuscate(text, entities);
  // Checked, not trusted: what identification found must be gone from what obfuscation gave back.
  // Read where each stands (src/phi): the same words elsewhere in the output, not replaced, are another text's.
  const asItems = entities.map((e) => ({
    kind: isPhiKind(e.type) ? e.type : ('ID' as const),
    start: e.start,
    end: e.end,
  }));
  const foundStillPresent = textRecall({ text, planted: asItems, entities, output: obfuscated, cuts: [] }).items.filter(
    (i) => i.fate !== 'removed',
  ).length;
  return {
    text: obfuscated.text,
    entities,
    replacements: obfuscated.replacements,
    pieces,
    seams,
    identifyRequests,
    truncatedPieces,
    cuts,
    foundStillPresent,
  };
}

/** The limits of a re-split at `depth`: the piece budget halved that many times. */
function halfOf(limits: SplitLimits, depth: number): SplitLimits {
  return { maxTokens: Math.max(16, Math.floor(limits.maxTokens / 2 ** depth)), margin: limits.margin };
}

/**
 * In document order; entities that overlap become one span covering both (the earlier's type), so no part of either is
 * left in clear.
 */
export function mergeEntities(entities: readonly FoundEntity[]): FoundEntity[] {
  const sorted = [...entities].sort((a, b) => a.start - b.start || b.end - a.end);
  const kept: FoundEntity[] = [];
  for (const e of sorted) {
    const last = kept[kept.length - 1];
    if (last === undefined || e.start >= last.end) kept.push(e);
    else if (e.end > last.end) kept[kept.length - 1] = { ...last, end: e.end };
  }
  return kept;
}

/** `fn`, at most `limit` calls pending at once; the others wait their turn. */
function limited<A, R>(limit: number, fn: (arg: A) => Promise<R>): (arg: A) => Promise<R> {
  let active = 0;
  const queue: (() => void)[] = [];
  return async (arg) => {
    // A finished call hands its slot to the next in line, so no newcomer slips in between.
    if (active >= limit) await new Promise<void>((resolve) => queue.push(resolve));
    else active++;
    try {
      return await fn(arg);
    } finally {
      const next = queue.shift();
      if (next === undefined) active--;
      else next();
    }
  };
}

/** `fn` over `items`, at most `limit` at a time, results in order. */
async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
