/**
 * Person names, found the way a reader finds them: a run of capitalised words holding a known first or last
 * name (compromise's lexicon, packed in name-lexicon.ts), or following a title ("Dr.", "Mrs.") or a cue
 * ("patient", "seen by"), or followed by a credential (", MD") or, two words or more, by what a note says of
 * a patient ("was admitted"). The whole run is the name — initials, middle names, hyphenated and apostrophised
 * surnames, suffixes — so a known first name never leaves its unknown surname in clear, nor a known surname
 * the unknown first name before it.
 */
import { FIRST_NAMES_PACKED, LAST_NAMES_PACKED } from './name-lexicon.js';
import { NAME_LIKE_WORDS, STOP_WORDS } from './name-stops.js';

/**
 * A capitalised word; a final '.' is kept to tell an initial or a title from the end of a sentence. Lower-case
 * words are not read: they break a name by the gap they leave between two capitalised words (the scan of every
 * word cost twice the time), unless they are a name's particles ("de la Cruz").
 */
const WORD = /\p{Lu}[\p{L}\p{M}'’-]*\.?/gu;
const PARTICLES = 'van|von|de|del|della|da|di|du|la|le|los|las|der|den|dos|das|do|y|bin|ibn|al';
const PARTICLE_GAP = new RegExp(`^ (?:(?:${PARTICLES}) ){1,2}$`);
/** A lower-case word of a name between two of its capitalised words ("Kadar rodriguez Pichardo", "de la cruz"). */
const LOWER_GAP = new RegExp(`^ (?:(?:${PARTICLES}) ){0,2}(\\p{Ll}[\\p{L}\\p{M}'’-]*) $`, 'u');
/** A lower-case word right after a name, the way a hurried note types a surname ("Quintero de la cruz"). */
const LOWER_AFTER = new RegExp(`^ (?:(?:${PARTICLES}) ){0,2}(\\p{Ll}[\\p{L}\\p{M}'’-]*)(?![\\p{L}\\p{M}\\d])`, 'u');
const ASCII = /^[\x20-\x7e]*$/;
/** The word before a name, and what separates them: "seen by ", "husband, ", "Patient: ". */
const WORD_BEFORE = /(\p{L}+)[ ,:]{1,3}$/u;
const TITLES: ReadonlySet<string> = new Set(['dr', 'mr', 'mrs', 'ms', 'mx', 'miss', 'prof', 'rev']);
const SUFFIXES: ReadonlySet<string> = new Set(['jr', 'sr', 'ii', 'iii', 'iv']);
/** Words after which capitalised words are a person's name (two words or more: one could open a sentence). */
const CUES: ReadonlySet<string> = new Set(
  (
    'patient pt name by with for referring refer dear contact mother father wife husband son daughter sister brother ' +
    'spouse guardian aunt uncle grandparent grandmother grandfather grandson granddaughter niece nephew cousin ' +
    'roommate neighbor neighbour friend caregiver partner'
  ).split(' '),
);
const CREDENTIAL = /^,? ?(?:M\.?D|D\.?O|RN|NP|PA-C|PA|PhD|DDS|DMD|APRN|FNP|CNM|LPN|LCSW|PharmD)\b/;
/**
 * What a note says of a person right after naming them ("Kenji Haddad was admitted", "…, who agrees", "…, born",
 * "… (MRN …)", "… (spouse)").
 */
const PREDICATE =
  /^(?:,? (?:was|is|has|had|presents|presented|reports|reported|denies|denied|arrived|returns|returned|underwent|tolerated|states|stated|agrees|lives|continues|who|born)\b| \((?:MRN|DOB|spouse|wife|husband|partner|mother|father|son|daughter|sister|brother|neighbou?r|friend|guardian|caregiver)\b)/;

/**
 * `nameLike`: a word that is also a name (May, Ward): part of a name something else says is one, never alone.
 * `acronym`: an all-capitals word that is no known name (ICU, MRN).
 */
type Role = 'title' | 'initial' | 'suffix' | 'first' | 'last' | 'word' | 'stop' | 'nameLike' | 'acronym';

/** The roles of words as written (lower case, accents kept: "Tô" is not "to"); the first list that has it wins. */
const WORD_ROLES: ReadonlyMap<string, Role> = rolesOf([
  [TITLES, 'title'],
  [SUFFIXES, 'suffix'],
  [NAME_LIKE_WORDS, 'nameLike'],
  [STOP_WORDS, 'stop'],
]);
/** The roles of the lexicon's names, lower case without accents (its spelling). */
const NAME_ROLES: ReadonlyMap<string, Role> = rolesOf([
  [FIRST_NAMES_PACKED.split(' '), 'first'],
  [LAST_NAMES_PACKED.split(' '), 'last'],
]);

function rolesOf(lists: readonly (readonly [Iterable<string>, Role])[]): ReadonlyMap<string, Role> {
  const roles = new Map<string, Role>();
  for (const [words, role] of lists) for (const w of words) if (!roles.has(w)) roles.set(w, role);
  return roles;
}

interface Token {
  readonly start: number;
  readonly end: number;
  readonly role: Role;
  /** Follows the previous word after one space (or ", " before a suffix), in the same sentence. */
  readonly joined: boolean;
}

interface Span {
  readonly start: number;
  readonly end: number;
}

/** Without accents (the lexicon's spelling); most words are ASCII, which skips the normalisation. */
function bare(lower: string): string {
  return ASCII.test(lower) ? lower : lower.normalize('NFD').replace(/[\u0300-\u036f]/g, '');
}

/** A hyphenated word's role: a name when one of its parts is (Mary-Kate, O'Donnell-Reyes). */
function partsRole(plain: string): Role | undefined {
  for (const part of plain.split('-')) {
    const role = NAME_ROLES.get(part);
    if (role !== undefined) return role;
  }
  return undefined;
}

/**
 * Roles already looked up, by the word as written: notes use the same words over and over, and a role costs
 * a lower-casing, an accent check and up to three lookups. Bounded: emptied when full, so odd texts cannot grow it.
 */
const KNOWN_ROLES = new Map<string, Role>();
const MAX_KNOWN_ROLES = 20_000;

/**
 * Longer words are looked up each time, never kept: V8 makes a substring of 13 characters or more a slice of the
 * text it came from, so a kept key held the whole request text alive (20,000 texts of 20 KB kept 149 MB).
 */
const MAX_KNOWN_WORD_LENGTH = 12;

function roleOf(word: string): Role {
  if (word.length > MAX_KNOWN_WORD_LENGTH) return lookUpRole(word);
  let role = KNOWN_ROLES.get(word);
  if (role === undefined) {
    if (KNOWN_ROLES.size >= MAX_KNOWN_ROLES) KNOWN_ROLES.clear();
    role = lookUpRole(word);
    KNOWN_ROLES.set(word, role);
  }
  return role;
}

function lookUpRole(word: string): Role {
  if (word.length === 1) return 'initial';
  const lower = (word.endsWith('s') ? word.replace(/['’]s$/, '') : word).toLowerCase();
  const plain = bare(lower);
  const role = WORD_ROLES.get(lower) ?? NAME_ROLES.get(plain) ?? (plain.includes('-') ? partsRole(plain) : undefined);
  if (role !== undefined) return role;
  // An all-capitals word is an acronym unless it is a known name (GONZALEZ, MARIA).
  return word === word.toUpperCase() ? 'acronym' : 'word';
}

/** Whether the text between two capitalised words joins them into one name. */
function joins(input: string, from: number, to: number, role: Role): boolean {
  if (to - from === 1) return input.charCodeAt(from) === 32;
  if (to - from > 12) return false;
  const gap = input.slice(from, to);
  return (gap === ', ' && role === 'suffix') || PARTICLE_GAP.test(gap);
}

/** The text's capitalised words with their roles; a '.' after one that is not an abbreviation ends the sentence. */
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
    const joined = !sentenceEnded && joins(input, previousEnd, m.index, role);
    tokens.push({ start: m.index, end, role, joined });
    previousEnd = end;
    sentenceEnded = dotted && !abbreviation;
  }
  WORD.lastIndex = 0;
  return tokens;
}

const isPart = (t: Token): boolean => t.role !== 'stop' && t.role !== 'title' && t.role !== 'acronym';
const isAnchor = (t: Token): boolean => t.role === 'first' || t.role === 'last';

/** The name in tokens[from, to) (contiguous name parts), or undefined when nothing says it is one. */
function nameIn(input: string, tokens: readonly Token[], from: number, to: number): Span | undefined {
  const parts = tokens.slice(from, to);
  if (!parts.some((t) => t.role !== 'suffix' && t.role !== 'initial')) return undefined;
  const before = from > 0 && tokens[from]!.joined ? tokens[from - 1] : undefined;
  const end = parts[parts.length - 1]!.end;
  if (before?.role === 'title') return { start: before.start, end };
  // A known first or last name makes the whole run a name: the unknown words beside it are the rest of it.
  if (parts.some(isAnchor)) return { start: parts[0]!.start, end };
  const cue =
    parts.length >= 2 ? WORD_BEFORE.exec(input.slice(Math.max(0, parts[0]!.start - 24), parts[0]!.start)) : null;
  const cued = cue !== null && CUES.has(cue[1]!.toLowerCase());
  const after = input.slice(end, end + 13);
  if (cued || CREDENTIAL.test(after) || (parts.length >= 2 && PREDICATE.test(after))) {
    return { start: parts[0]!.start, end };
  }
  return undefined;
}

/** Whether a lower-case word may be part of a name: no ordinary word ("and", "today") nor a particle alone. */
function lowerNamePart(word: string): boolean {
  return !STOP_WORDS.has(word) && !PARTICLE_GAP.test(` ${word} `);
}

/**
 * The name with the lower-case word that follows it when it is a known surname, or when a credential or what a
 * note says of a person comes next ("Amalia Kranz sans, who agrees"): the name ends where that begins.
 */
function withLowerWord(input: string, span: Span): Span {
  const next = LOWER_AFTER.exec(input.slice(span.end, span.end + 40));
  if (next === null || !lowerNamePart(next[1]!)) return span;
  const end = span.end + next[0].length;
  const after = input.slice(end, end + 13);
  const known = NAME_ROLES.get(bare(next[1]!)) === 'last';
  return known || CREDENTIAL.test(after) || PREDICATE.test(after) ? { start: span.start, end } : span;
}

/**
 * Whether tokens[k] continues the name run tokens[from, k): after one space, or after a lower-case word that is a
 * known name or follows a known name or a title in the run ("Emily Krauel natera Velázquez").
 */
function continuesRun(input: string, tokens: readonly Token[], from: number, k: number): boolean {
  const token = tokens[k]!;
  if (!isPart(token)) return bridgesName(tokens, k);
  if (token.joined) return true;
  const gap = input.slice(tokens[k - 1]!.end, token.start);
  const lower = gap.length <= 40 ? LOWER_GAP.exec(gap) : null;
  if (lower === null || !lowerNamePart(lower[1]!)) return false;
  const titled = from > 0 && tokens[from]!.joined && tokens[from - 1]!.role === 'title';
  return NAME_ROLES.has(bare(lower[1]!)) || titled || tokens.slice(from, k).some(isAnchor);
}

/**
 * A word that ends a name elsewhere but sits inside one here, joined between a title or a name part and a name
 * part ("Dr. Name Leo Brekke"): the words around it say it is a name.
 */
function bridgesName(tokens: readonly Token[], k: number): boolean {
  const [before, token, after] = [tokens[k - 1], tokens[k]!, tokens[k + 1]];
  if (token.role !== 'stop' || !token.joined || before === undefined || after === undefined) return false;
  return (isPart(before) || before.role === 'title') && after.joined && isPart(after);
}

/** Every person name in the text, in text order. */
export function findNames(input: string): Span[] {
  const tokens = tokensOf(input);
  const spans: Span[] = [];
  let i = 0;
  while (i < tokens.length) {
    if (!isPart(tokens[i]!) && !bridgesName(tokens, i)) {
      i++;
      continue;
    }
    let j = i + 1;
    while (j < tokens.length && continuesRun(input, tokens, i, j)) j++;
    const span = nameIn(input, tokens, i, j);
    if (span !== undefined) spans.push(withLowerWord(input, span));
    i = j;
  }
  return spans;
}
