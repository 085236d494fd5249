/**
 * Rules-based PHI detection standing in for the service's LLM: regular expressions for the shapes of PHI
 * (rules.ts) and person names from a name lexicon and their context (names.ts), typed by the Safe Harbor kinds
 * of src/phi. Output is capped the way the service caps its model output (300 tokens): entities beyond the cap
 * are dropped and the result says it was truncated. A profile may drop a share of entities on purpose (a
 * detector that misses), chosen by a hash of the entity and the text: the same text gets the same answer.
 */
import type { PhiKind } from '../../phi/index.js';
import { estimateModelTokens } from '../../spec/index.js';
import { hashOf } from './hash.js';
import { findNames } from './names.js';
import { type Rule, RULES } from './rules.js';

type PhiType = PhiKind;

/** One PHI entity found in a text: the `text` is `input.slice(start, end)`. */
export interface PhiEntity {
  readonly type: PhiType;
  readonly text: string;
  /** UTF-16 offset of the first character. */
  readonly start: number;
  /** UTF-16 offset one past the last character. */
  readonly end: number;
  /** Confidence in [0, 1]. */
  readonly score: number;
}

export interface Detection {
  readonly entities: readonly PhiEntity[];
  /** True when entities were dropped to respect the output cap. */
  readonly truncated: boolean;
  /** Model tokens the response costs (envelope + entities kept); drives decode time. */
  readonly outputTokens: number;
}

/** Tokens of the response around the entities, and of each entity record besides its text. */
export const OUTPUT_ENVELOPE_TOKENS = 8;
const OUTPUT_TOKENS_PER_ENTITY = 4;

const NAME_SCORE = 0.9;

function scoreOf(baseScore: number, text: string): number {
  return Math.min(0.999, Math.round((baseScore + (hashOf(text) % 40) / 1000) * 1000) / 1000);
}

/** Tokens one entity record costs in the response. */
export function entityOutputTokens(entity: Pick<PhiEntity, 'text'>): number {
  return OUTPUT_TOKENS_PER_ENTITY + estimateModelTokens(entity.text);
}

/** The last capture group that took part in the match (a pattern's alternatives each have their own), or all of it. */
function lastCapture(m: RegExpExecArray): string {
  for (let i = m.length - 1; i > 0; i--) if (m[i] !== undefined) return m[i]!;
  return m[0];
}

/** Every match of one rule, appended to `matches`. */
function scan(input: string, rule: Rule, matches: PhiEntity[]): void {
  // What input.matchAll(pattern) finds, by exec on the rule's own global pattern: matchAll copies the
  // pattern at every call and iterates through a generator, the most of the detector's time.
  // Synchronous, so sharing the pattern is safe; its lastIndex is left at 0.
  const { pattern, nextStart, accept, kindOf } = rule;
  let from = 0;
  for (;;) {
    const start = nextStart === undefined ? from : nextStart(input, from);
    if (start === -1) break;
    pattern.lastIndex = start;
    const m = pattern.exec(input);
    if (m === null) {
      if (!pattern.sticky) break;
      from = start + 1;
      continue;
    }
    const text = lastCapture(m);
    const end = m.index + m[0].length;
    if (accept === undefined || accept(text)) {
      const type = kindOf === undefined ? rule.type : kindOf(m[1]!);
      matches.push({ type, text, start: end - text.length, end, score: scoreOf(rule.baseScore, text) });
    }
    from = end > m.index ? end : end + 1; // (no rule matches empty text; never loop if one did)
  }
  pattern.lastIndex = 0;
}

/**
 * All rule and name matches in text order, overlaps merged: the earliest (then longest) gives the type, and
 * one that runs past it extends it, so no part of a match is left out.
 */
export function findEntities(input: string): PhiEntity[] {
  const matches: PhiEntity[] = [];
  for (const rule of RULES) {
    if (rule.mustContain !== undefined && !input.includes(rule.mustContain)) continue;
    scan(input, rule, matches);
  }
  for (const { start, end } of findNames(input)) {
    const text = input.slice(start, end);
    matches.push({ type: 'NAME', text, start, end, score: scoreOf(NAME_SCORE, text) });
  }
  matches.sort((a, b) => a.start - b.start || b.end - a.end);
  const kept: PhiEntity[] = [];
  for (const entity of matches) {
    const last = kept[kept.length - 1];
    if (last === undefined || entity.start >= last.end) kept.push(entity);
    else if (entity.end > last.end) {
      const text = input.slice(last.start, entity.end);
      kept[kept.length - 1] = { ...last, text, end: entity.end };
    }
  }
  return kept;
}

/** Whether a profile that misses `dropRate` of entities misses this one: by a hash, the same for the same text. */
function missed(entity: PhiEntity, input: string, dropRate: number): boolean {
  return dropRate > 0 && hashOf(`${entity.start}\u0000${entity.text}\u0000${input}`) / 2 ** 32 < dropRate;
}

/** Detects PHI, leaves out the share `dropRate` (0–1) on purpose, and applies the output cap, in text order. */
export function detectPhi(input: string, outputTokenCap: number, dropRate = 0): Detection {
  const entities: PhiEntity[] = [];
  let outputTokens = OUTPUT_ENVELOPE_TOKENS;
  let truncated = false;
  for (const entity of findEntities(input)) {
    if (missed(entity, input, dropRate)) continue;
    const cost = entityOutputTokens(entity);
    if (outputTokens + cost > outputTokenCap) {
      truncated = true;
      break;
    }
    entities.push(entity);
    outputTokens += cost;
  }
  return { entities, truncated, outputTokens };
}
