/**
 * Person names, found the way a reader finds them: a run of capitalised words holding a known first or last
 * name (compromise's lexicon, packed in name-lexicon.ts), or following a title ("Dr.", "Mrs.") or a cue
 * ("patient", "seen by"), or followed by a credential (", MD"). The whole run is the name — initials, middle
 * names, hyphenated and apostrophised surnames, suffixes — so a known first name never leaves its unknown
 * surname in clear, nor a known surname the unknown first name before it.
 */
import { FIRST_NAMES_PACKED, LAST_NAMES_PACKED } from './name-lexicon.js';
import { STOP_WORDS } from './name-stops.js';

const FIRST_NAMES: ReadonlySet<string> = new Set(FIRST_NAMES_PACKED.split(' '));
const LAST_NAMES: ReadonlySet<string> = new Set(LAST_NAMES_PACKED.split(' '));

/** A word; a final '.' is kept to tell an initial or a title from the end of a sentence. */
const WORD = /[\p{L}\p{M}][\p{L}\p{M}'’-]*\.?/gu;
const CAPITAL = /^\p{Lu}/u;
const TITLES: ReadonlySet<string> = new Set(['dr', 'mr', 'mrs', 'ms', 'mx', 'miss', 'prof', 'rev']);
const SUFFIXES: ReadonlySet<string> = new Set(['jr', 'sr', 'ii', 'iii', 'iv']);
const PARTICLES: ReadonlySet<string> = new Set(['van', 'von', 'de', 'del', 'della', 'da', 'di', 'du', 'la', 'le']);
/** Words after which capitalised words are a person's name (two words or more: one could open a sentence). */
const CUES: ReadonlySet<string> = new Set(
  'patient pt name by with for referring contact mother father wife husband son daughter sister brother spouse guardian'.split(
    ' ',
  ),
);
const CREDENTIAL = /^,? ?(?:M\.?D|D\.?O|RN|NP|PA-C|PA|PhD|DDS|DMD|APRN|FNP|CNM|LPN|LCSW|PharmD)\b/;

type Role = 'title' | 'initial' | 'suffix' | 'particle' | 'first' | 'last' | 'word' | 'stop';

interface Token {
  readonly start: number;
  readonly end: number;
  readonly role: Role;
  readonly text: string;
  /** Follows the previous word after one space (or ", " before a suffix), in the same sentence. */
  readonly joined: boolean;
}

interface Span {
  readonly start: number;
  readonly end: number;
}

const bare = (word: string): string =>
  word
    .toLowerCase()
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '');

/** Whether a (lower-case) word, or one of its hyphenated parts, is in the set. */
const known = (set: ReadonlySet<string>, word: string): boolean =>
  set.has(word) || (word.includes('-') && word.split('-').some((part) => set.has(part)));

function roleOf(word: string): Role {
  const plain = bare(word.replace(/['’]s$/, ''));
  if (!CAPITAL.test(word)) return PARTICLES.has(plain) ? 'particle' : 'stop';
  if (word.length === 1) return 'initial';
  if (TITLES.has(plain)) return 'title';
  if (SUFFIXES.has(plain)) return 'suffix';
  if (STOP_WORDS.has(plain)) return 'stop';
  if (known(FIRST_NAMES, plain)) return 'first';
  if (known(LAST_NAMES, plain)) return 'last';
  // An all-capitals word is an acronym unless it is a known name (GONZALEZ, MARIA).
  return word === word.toUpperCase() ? 'stop' : 'word';
}

/** The text's words with their roles; a '.' after a word that is not an abbreviation ends the sentence. */
function tokensOf(input: string): Token[] {
  const tokens: Token[] = [];
  let previousEnd = -1;
  let sentenceEnded = true;
  WORD.lastIndex = 0;
  for (let m = WORD.exec(input); m !== null; m = WORD.exec(input)) {
    const dotted = m[0].endsWith('.');
    const word = dotted ? m[0].slice(0, -1) : m[0];
    const role = roleOf(word);
    const abbreviation = role === 'initial' || role === 'title' || role === 'suffix';
    const end = m.index + (dotted && abbreviation ? m[0].length : word.length);
    const gap = input.slice(previousEnd, m.index);
    const joined = !sentenceEnded && (gap === ' ' || (gap === ', ' && role === 'suffix'));
    tokens.push({ start: m.index, end, role, text: word, joined });
    previousEnd = end;
    sentenceEnded = dotted && !abbreviation;
  }
  WORD.lastIndex = 0;
  return tokens;
}

const isPart = (t: Token): boolean => t.role !== 'stop' && t.role !== 'title';
const isAnchor = (t: Token): boolean => t.role === 'first' || t.role === 'last';

/** The name in tokens[from, to) (contiguous name parts), or undefined when nothing says it is one. */
function nameIn(input: string, tokens: readonly Token[], from: number, to: number): Span | undefined {
  let first = from;
  while (first < to && tokens[first]!.role === 'particle') first++;
  let last = to;
  while (last > first && tokens[last - 1]!.role === 'particle') last--;
  const parts = tokens.slice(first, last);
  if (!parts.some((t) => t.role !== 'suffix' && t.role !== 'initial')) return undefined;
  const before = from > 0 && tokens[from]!.joined ? tokens[from - 1] : undefined;
  const end = parts[parts.length - 1]!.end;
  if (before?.role === 'title') return { start: before.start, end };
  // A known first or last name makes the whole run a name: the unknown words beside it are the rest of it.
  if (parts.some(isAnchor)) return { start: parts[0]!.start, end };
  const previous = from > 0 ? tokens[from - 1] : undefined;
  const cued =
    previous !== undefined &&
    CUES.has(bare(previous.text)) &&
    /^[ ,:]{1,3}$/.test(input.slice(previous.end, parts[0]!.start)) &&
    parts.length >= 2;
  if (cued || CREDENTIAL.test(input.slice(end, end + 9))) return { start: parts[0]!.start, end };
  return undefined;
}

/** Every person name in the text, in text order. */
export function findNames(input: string): Span[] {
  const tokens = tokensOf(input);
  const spans: Span[] = [];
  let i = 0;
  while (i < tokens.length) {
    if (!isPart(tokens[i]!)) {
      i++;
      continue;
    }
    let j = i + 1;
    while (j < tokens.length && tokens[j]!.joined && isPart(tokens[j]!)) j++;
    const span = nameIn(input, tokens, i, j);
    if (span !== undefined) spans.push(span);
    i = j;
  }
  return spans;
}
