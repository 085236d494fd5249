/**
 * The detector's regular expressions, one per shape of PHI: labelled identifiers with separators (MRN
 * 2093-4471-88, account, licence, serial numbers), Medicare numbers, SSNs, phones and faxes, e-mail, URLs, IPs,
 * dates in several formats, ages over 89, street addresses with unit, city, state and ZIP. Names are not a
 * pattern (names.ts).
 */
import { isIPv6 } from 'node:net';

import type { PhiKind } from '../../phi/index.js';

export interface Rule {
  readonly type: PhiKind;
  /**
   * Global, or sticky (tried only where `nextStart` says, then one character further on a miss). With capture
   * groups, the entity is the last one that matched, which must end the match.
   */
  readonly pattern: RegExp;
  /** A string every match contains: a text without it is not scanned (the scan is the mock's hot path). */
  readonly mustContain?: string;
  /**
   * The first index ≥ `from` at which a match can start, or -1 when none can: the scan resumes
   * there rather than trying the pattern at every position in between (which costs the most).
   */
  readonly nextStart?: (input: string, from: number) => number;
  /** The kind of a match from its first capture (a label) when the pattern has two; `type` otherwise. */
  readonly kindOf?: (label: string) => PhiKind;
  /** A check the pattern cannot express; a match it refuses is skipped. */
  readonly accept?: (text: string) => boolean;
  /** Base confidence of the rule; a small deterministic variation is added per match. */
  readonly baseScore: number;
}

/** Whether a UTF-16 code is one of an e-mail's local part, [\w.+-]. */
function isLocalPartCode(code: number): boolean {
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
function nextEmailStart(input: string, from: number): number {
  const at = input.indexOf('@', from);
  if (at === -1) return -1;
  let start = at;
  while (start > from && isLocalPartCode(input.charCodeAt(start - 1))) start--;
  return start;
}

const isHexCode = (code: number): boolean =>
  (code >= 48 && code <= 57) || (code >= 65 && code <= 70) || (code >= 97 && code <= 102);

/**
 * Where the next IPv6 address can start: at most four hex digits before the next ':' (a match holds a ':' within
 * its first five characters). The pattern is sticky, tried only there: tried at every position, its lookbehind
 * cost the most of all the rules.
 */
function nextIpv6Start(input: string, from: number): number {
  const colon = input.indexOf(':', from);
  if (colon === -1) return -1;
  let start = colon;
  while (start > from && colon - start < 4 && isHexCode(input.charCodeAt(start - 1))) start--;
  return start;
}

/** An identifier after its label: letters and digits, at least one digit, separated by '-', '.' or '/'. */
const VALUE = String.raw`[:#]?\s*(?:number\b|no\b\.?|#)?[:#]?\s*((?=[A-Z\d][A-Z\d./-]{3})[A-Z]{0,4}-?\d[A-Z\d]*(?:[-./][A-Z\d]+)*)\b`;
/** The labels of identifiers, by kind. The label is a capture's prefix, not a lookbehind (tried at every digit). */
const LABELS: readonly (readonly [PhiKind, string])[] = [
  [
    'HEALTH_PLAN',
    'member(?: ID)?|subscriber(?: ID)?|policy|group|insurance(?: ID)?|plan ID|medicaid|medicare|MBI|HICN',
  ],
  ['MRN', 'MRN|MR|medical record(?: number)?|chart'],
  ['ACCOUNT', 'account|acct|billing|invoice'],
  ['VEHICLE', 'VIN|license plate|plate'],
  ['LICENSE', "licen[cs]e|driver'?s licen[cs]e|DL|DEA|NPI|certificate"],
  ['DEVICE', 'serial|S/N|SN|device(?: ID)?|UDI|lot'],
  ['ID', 'ID|identifier|case|claim|reference|ref|subject|participant|enrollee|study'],
];
const LABELLED = new RegExp(String.raw`\b(${LABELS.map(([, l]) => l).join('|')})\b${VALUE}`, 'gi');
const LABEL_KINDS = LABELS.map(([kind, l]) => [kind, new RegExp(`^(?:${l})$`, 'i')] as const);

function kindOfLabel(label: string): PhiKind {
  return LABEL_KINDS.find(([, pattern]) => pattern.test(label))?.[0] ?? 'ID';
}

const MONTH = String.raw`(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?`;
const DAY = String.raw`\d{1,2}(?:st|nd|rd|th)?`;
const DATES = [
  String.raw`\b\d{1,2}[/-]\d{1,2}[/-](?:\d{4}|\d{2})\b`,
  String.raw`\b\d{4}[-/.]\d{1,2}[-/.]\d{1,2}\b`,
  String.raw`\b\d{1,2}\.\d{1,2}\.\d{4}\b`,
  String.raw`\b\d{1,2}-${MONTH}-\d{2,4}\b`,
  String.raw`\b${MONTH} ${DAY}(?:,? \d{4})?\b`,
  String.raw`\b${DAY} (?:of )?${MONTH},? \d{4}\b`,
  String.raw`\b${MONTH},? \d{4}\b`,
];

/** Street suffixes: the common abbreviations, and the postal service's standard names (USPS Publication 28). */
const STREET =
  'St|Ave|Rd|Ln|Dr|Blvd|Ct|Ter|Pl|Cir|Pkwy|Hwy|Trl|Sq|' +
  '(?:Alley|Annex|Arcade|Avenue|Bayou|Beach|Bend|Bluff|Bottom|Boulevard|Branch|Bridge|Brook|Burg|Bypass|Camp|' +
  'Canyon|Cape|Causeway|Center|Circle|Cliff|Club|Common|Corner|Course|Court|Cove|Creek|Crescent|Crest|Crossing|' +
  'Crossroad|Curve|Dale|Dam|Divide|Drive|Estate|Expressway|Extension|Fall|Ferry|Field|Flat|Ford|Forest|Forge|Fork|' +
  'Fort|Freeway|Garden|Gateway|Glen|Green|Grove|Harbor|Haven|Heights|Highway|Hill|Hollow|Inlet|Island|Isle|' +
  'Junction|Key|Knoll|Lake|Land|Landing|Lane|Light|Loaf|Lock|Lodge|Loop|Mall|Manor|Meadow|Mews|Mill|Mission|' +
  'Motorway|Mount|Mountain|Neck|Orchard|Oval|Overpass|Park|Parkway|Pass|Passage|Path|Pike|Pine|Place|Plain|Plaza|' +
  'Point|Port|Prairie|Radial|Ramp|Ranch|Rapid|Rest|Ridge|River|Road|Route|Row|Rue|Run|Shoal|Shore|Skyway|Spring|' +
  'Spur|Square|Station|Stravenue|Stream|Street|Summit|Terrace|Throughway|Trace|Track|Trafficway|Trail|Trailer|' +
  'Tunnel|Turnpike|Underpass|Union|Valley|Viaduct|View|Village|Ville|Vista|Walk|Wall|Way|Well)s?';
const CAPITALISED = String.raw`[A-Z][A-Za-z'’.-]*`;
const UNIT = String.raw`(?:,? (?:Apt|Apartment|Unit|Suite|Ste|Room|Rm|Floor|Fl|Bldg)\.? ?#?[A-Z\d-]+|,? #[A-Z\d-]+)`;
const STREET_WORD = String.raw`(?:\d{1,3}(?:st|nd|rd|th)|${CAPITALISED})`;
/**
 * A street named without a suffix ("E Broadway", "Okuneva Via") is one when a city, state and ZIP follow, or
 * (two words or more: "4 East" is a ward) a unit: its words, often names, belong to the address with its number.
 */
const CITY_STATE_ZIP = String.raw`, ${CAPITALISED}(?: ${CAPITALISED}){0,3},? [A-Z]{2},? \d{5}\b`;
const ADDRESS = new RegExp(
  String.raw`\b(?:\d{1,6}[A-Z]? (?:${STREET_WORD} ){1,4}(?:${STREET})\b\.?(?: [NSEW]{1,2}\b\.?)?|P\.? ?O\.? Box \d+|` +
    String.raw`\d{1,6}[A-Z]? (?:${STREET_WORD} ){0,3}${STREET_WORD}(?=${UNIT}?${CITY_STATE_ZIP})|` +
    String.raw`\d{1,6}[A-Z]? (?:${STREET_WORD} ){1,3}${STREET_WORD}(?=${UNIT}\b))` +
    String.raw`${UNIT}?` +
    String.raw`(?:, ${CAPITALISED}(?: ${CAPITALISED}){0,3}(?:,? [A-Z]{2}\b(?:,? \d{5}(?:-\d{4})?\b)?)?)?`,
  'g',
);

/** Ninety and over: Safe Harbor keeps younger ages. */
const OLD = '(?:9\\d|1[01]\\d)';
/** An age after "who is": not a measure ("is 94 %", "is 92 kg", "is 98.6"). */
const AGE_SAID = String.raw`\b(?:who|he|she) (?:is|was) (${OLD})\b(?![.,/]\d| ?%| ?[a-z])`;

export const RULES: readonly Rule[] = [
  {
    type: 'EMAIL',
    baseScore: 0.97,
    mustContain: '@',
    nextStart: nextEmailStart,
    pattern: /\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b/g,
  },
  { type: 'URL', baseScore: 0.96, pattern: /\b(?:https?:\/\/|www\.)[^\s<>"'()]*[^\s<>"'().,;:!?]/gi },
  {
    type: 'IP',
    baseScore: 0.95,
    mustContain: '.',
    pattern: /\b(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\b/g,
  },
  {
    type: 'IP',
    baseScore: 0.93,
    mustContain: ':',
    nextStart: nextIpv6Start,
    pattern: /(?<![\w:])[\dA-Fa-f]{0,4}(?::[\dA-Fa-f]{0,4}){2,7}(?![\w:])/y,
    accept: (text) => isIPv6(text) && (text.includes('::') || text.split(':').length === 8),
  },
  { type: 'SSN', baseScore: 0.94, pattern: /\b\d{3}-\d{2}-\d{4}\b/g },
  { type: 'SSN', baseScore: 0.93, pattern: /\b(?:SSN|social security(?: number)?)[:#]?\s*(\d{3} ?\d{2} ?\d{4})\b/gi },
  {
    type: 'FAX',
    baseScore: 0.93,
    pattern:
      /\b(?:fax|facsimile)(?: number| no\.?)?[:#.]?\s*((?:\+?1[ .-]?)?(?:\(\d{3}\) ?|\d{3}[-. ])\d{3}[-. ]\d{4})\b/gi,
  },
  {
    type: 'PHONE',
    baseScore: 0.95,
    pattern: /(?:\+1[ .-]?)?(?:\(\d{3}\) ?|\b\d{3}[-. ])\d{3}[-. ]\d{4}\b(?: ?(?:x|ext\.?) ?\d{1,5}\b)?/g,
  },
  {
    type: 'HEALTH_PLAN',
    baseScore: 0.92,
    // The Medicare Beneficiary Identifier's shape (no S, L, O, I, B or Z among its letters).
    pattern:
      /\b[1-9][AC-HJKMNP-RT-Y][AC-HJKMNP-RT-Y\d]\d-?[AC-HJKMNP-RT-Y][AC-HJKMNP-RT-Y\d]\d-?[AC-HJKMNP-RT-Y]{2}\d{2}\b/g,
  },
  { type: 'HEALTH_PLAN', baseScore: 0.9, pattern: /\b[A-Z]{3}\d{9}\b/g },
  // A VIN after its label, whatever its letters (the labelled rule below wants at most 4 before a digit).
  {
    type: 'VEHICLE',
    baseScore: 0.91,
    mustContain: 'VIN',
    pattern: /\bVIN(?: number| no\.?)?[:#]? ?([A-HJ-NPR-Z\d]{17})\b/g,
  },
  // A serial number after its label may hold no digit at all (the labelled rule below wants one).
  {
    type: 'DEVICE',
    baseScore: 0.89,
    pattern: /\b(?:[Ss]erial(?: [Nn]umber| [Nn]o\.?)?|S\/N|SN)[:#]? ?([A-Z\d][A-Z\d-]{3,30}[A-Z\d])\b/g,
  },
  // One scan for every label (seven scans cost the most of the rules); the label says the kind.
  { type: 'ID', baseScore: 0.9, pattern: LABELLED, kindOf: kindOfLabel },
  {
    type: 'AGE',
    baseScore: 0.9,
    pattern: new RegExp(
      String.raw`\b${OLD}[- ]?(?:years?[- ]old|y/o|y\.o\.|yo|yrs?)(?![\w])|\baged? (${OLD})\b|${AGE_SAID}`,
      'gi',
    ),
  },
  { type: 'DATE', baseScore: 0.95, pattern: new RegExp(DATES.join('|'), 'g') },
  { type: 'ADDRESS', baseScore: 0.88, pattern: ADDRESS },
  {
    type: 'ZIP',
    baseScore: 0.86,
    pattern: /\b(?:[A-Z]{2},? |[Zz][Ii][Pp](?: [Cc]ode)?:? |[Pp]ostal [Cc]ode:? )(\d{5}(?:-\d{4})?)\b/g,
  },
];
