// The mock's PHI detector as it was at commit c65fc22 (src/mock/phi/detect.ts, types stripped): the baseline
// of bench/detector-cpu.js. Names from the corpus generator's own lists; kept only to measure against.
/**
 * Rules-based PHI detection standing in for the service's LLM: regular expressions for dates,
 * phone numbers, record numbers, e-mail, addresses and identifiers, and names from the shared
 * lexicon. Output is capped the way the service caps its model output (300 tokens): entities
 * beyond the cap are dropped and the result says it was truncated.
 */
import { estimateModelTokens } from '../../dist/spec/index.js';
import { FIRST_NAMES, LAST_NAMES, MONTHS } from '../../dist/texts/index.js';
/** Tokens of the response around the entities, and of each entity record besides its text. */
export const OUTPUT_ENVELOPE_TOKENS = 8;
const OUTPUT_TOKENS_PER_ENTITY = 4;
const alternatives = (words) => words.join('|');
/** Whether a UTF-16 code is one of an e-mail's local part, [\w.+-]. */
function isLocalPartCode(code) {
  return (
    (code >= 97 && code <= 122) ||
    (code >= 65 && code <= 90) ||
    (code >= 48 && code <= 57) ||
    code === 95 ||
    code === 46 ||
    code === 43 ||
    code === 45
  );
}
/**
 * Where the next e-mail can start: in the run of local-part characters just before the next '@'.
 * Exact: a match holds one '@' (no part of it takes '@') preceded by local-part characters only, so
 * none starts before that run, and one that does not take this '@' starts after it (the pattern,
 * resumed there, finds it).
 */
function nextEmailStart(input, from) {
  const at = input.indexOf('@', from);
  if (at === -1) return -1;
  let start = at;
  while (start > from && isLocalPartCode(input.charCodeAt(start - 1))) start--;
  return start;
}
const RULES = [
  {
    type: 'EMAIL',
    baseScore: 0.97,
    mustContain: '@',
    nextStart: nextEmailStart,
    pattern: /\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b/g,
  },
  { type: 'ID', baseScore: 0.94, pattern: /\b\d{3}-\d{2}-\d{4}\b|\b[A-Z]{3}\d{9}\b/g },
  { type: 'PHONE', baseScore: 0.95, pattern: /\(\d{3}\) ?\d{3}-\d{4}\b|\b\d{3}[-.]\d{3}[-.]\d{4}\b/g },
  {
    type: 'MRN',
    baseScore: 0.93,
    // The label as a capture's prefix, not a lookbehind: a lookbehind is tried at every digit (7× slower).
    pattern: /\b(?:MRN|medical record number)[:#]?\s*(\d{6,10})\b/gi,
  },
  {
    type: 'DATE',
    baseScore: 0.95,
    pattern: new RegExp(
      `\\b\\d{1,2}/\\d{1,2}/\\d{2,4}\\b|\\b\\d{4}-\\d{2}-\\d{2}\\b|\\b(?:${alternatives(MONTHS)}) \\d{1,2}, \\d{4}\\b`,
      'g',
    ),
  },
  {
    type: 'ADDRESS',
    baseScore: 0.88,
    pattern:
      /\b\d{1,5} (?:[A-Z][a-z]+ ){1,3}(?:Street|Avenue|Road|Lane|Drive|Boulevard|Court|St|Ave|Rd|Ln|Blvd|Ct)\b(?:, [A-Z][a-z]+(?: [A-Z][a-z]+)*, [A-Z]{2}(?: \d{5}(?:-\d{4})?)?)?/g,
  },
  {
    type: 'NAME',
    baseScore: 0.9,
    pattern: new RegExp(
      `\\b(?:${alternatives(FIRST_NAMES)})(?: [A-Z]\\.)? (?:${alternatives(LAST_NAMES)})\\b|\\b(?:Dr|Mr|Mrs|Ms)\\. [A-Z][a-z]+\\b`,
      'g',
    ),
  },
];
/** A stable small number from a string, so scores are repeatable. */
function hashOf(text) {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}
function scoreOf(rule, text) {
  return Math.min(0.999, Math.round((rule.baseScore + (hashOf(text) % 40) / 1000) * 1000) / 1000);
}
/** Tokens one entity record costs in the response. */
export function entityOutputTokens(entity) {
  return OUTPUT_TOKENS_PER_ENTITY + estimateModelTokens(entity.text);
}
/** All rule matches, overlaps resolved (earliest first, then longest), in text order. */
export function findEntities(input) {
  const matches = [];
  for (const rule of RULES) {
    if (rule.mustContain !== undefined && !input.includes(rule.mustContain)) continue;
    // What input.matchAll(pattern) finds, by exec on the rule's own global pattern: matchAll copies the
    // pattern at every call and iterates through a generator, the most of the detector's time.
    // Synchronous, so sharing the pattern is safe; its lastIndex is left at 0.
    const { pattern, nextStart } = rule;
    let from = 0;
    for (;;) {
      const start = nextStart === undefined ? from : nextStart(input, from);
      if (start === -1) break;
      pattern.lastIndex = start;
      const m = pattern.exec(input);
      if (m === null) break;
      const text = m[1] ?? m[0];
      const end = m.index + m[0].length;
      matches.push({ type: rule.type, text, start: end - text.length, end, score: scoreOf(rule, text) });
      from = end > m.index ? end : end + 1; // (no rule matches empty text; never loop if one did)
    }
    pattern.lastIndex = 0;
  }
  matches.sort((a, b) => a.start - b.start || b.end - a.end);
  const kept = [];
  for (const entity of matches) {
    const last = kept[kept.length - 1];
    if (last === undefined || entity.start >= last.end) kept.push(entity);
  }
  return kept;
}
/** Detects PHI and applies the output cap, in text order. */
export function detectPhi(input, outputTokenCap) {
  const entities = [];
  let outputTokens = OUTPUT_ENVELOPE_TOKENS;
  let truncated = false;
  for (const entity of findEntities(input)) {
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
