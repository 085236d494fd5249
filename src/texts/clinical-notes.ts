/**
 * Synthetic clinical notes: realistic prose with PHI of every kind the mock detects (names,
 * dates, phone numbers, record numbers, e-mail, addresses, identifiers), generated from a seed.
 * Lengths are drawn between `minChars` and `maxChars`, and never exceed the spec's token limit.
 */
import { nextInt, pick, type Rng } from '../core/index.js';
import { IDENTIFICATION_LIMITS, maxCharactersFor } from '../spec/index.js';
import { CITIES, FIRST_NAMES, LAST_NAMES, MONTHS, STREET_NAMES, STREET_SUFFIXES } from './lexicon.js';

interface NoteOptions {
  /** Shortest note, in characters. */
  readonly minChars: number;
  /** Longest note, in characters; capped at the spec's 1,024-token limit (853 characters). */
  readonly maxChars: number;
}

const DEFAULT_NOTE_OPTIONS: NoteOptions = { minChars: 400, maxChars: 850 };

/** Records a piece of injected PHI (its kind, as the mock names it, and its text) and gives the text back. */
type PhiSink = (type: InjectedPhiType, value: string) => string;
type InjectedPhiType = 'NAME' | 'DATE' | 'PHONE' | 'MRN' | 'EMAIL' | 'ADDRESS' | 'ID';

/** Makes one sentence; every piece of PHI in it goes through `phi`. */
type SentenceMaker = (rng: Rng, phi: PhiSink) => string;

// The choices of the sentences, made once: a literal list inside a sentence maker was a new array per sentence.
const PLANS = ['HMO', 'PPO', 'MCD'];
const COMPLAINTS = ['chest pain', 'shortness of breath', 'persistent cough', 'lower back pain', 'fatigue', 'dizziness'];
const MEDICATIONS = [
  'metformin 500 mg twice daily',
  'lisinopril 10 mg daily',
  'atorvastatin 40 mg nightly',
  'albuterol as needed',
  'levothyroxine 75 mcg daily',
];
const HOUSEHOLDS = ['her spouse', 'his daughter', 'a roommate', 'family'];
const LAB_FINDINGS = [
  'mild anemia',
  'elevated A1c of 7.9%',
  'normal renal function',
  'LDL of 162 mg/dL',
  'a TSH within range',
];
const ASSESSMENTS = [
  'stable chronic disease',
  'likely viral illness',
  'musculoskeletal strain',
  'poorly controlled hypertension',
  'community-acquired pneumonia',
];
const ALLERGIES = ['no known drug allergies', 'penicillin (rash)', 'sulfa drugs', 'latex', 'shellfish'];
const SOCIAL_HISTORIES = [
  'never smoker',
  'former smoker, quit ten years ago',
  'drinks alcohol socially',
  'works night shifts',
  'exercises three times a week',
];
const NEGATIVE_SYMPTOMS = ['fever and chills', 'weight loss', 'chest pain', 'headache', 'abdominal pain'];
const FAMILY_HISTORIES = [
  'type 2 diabetes',
  'coronary artery disease',
  'breast cancer',
  'hypertension',
  'no relevant conditions',
];
const EXAM_FINDINGS = [
  'clear lungs bilaterally',
  'mild pedal edema',
  'tenderness over the lumbar spine',
  'a regular rate and rhythm',
  'no focal deficits',
];

const ignore: PhiSink = (_type, value) => value;

const person = (rng: Rng, phi: PhiSink): string => phi('NAME', `${pick(rng, FIRST_NAMES)} ${pick(rng, LAST_NAMES)}`);
const pad = (n: number): string => String(n).padStart(2, '0');
const usDate = (rng: Rng, phi: PhiSink): string =>
  phi('DATE', `${pad(nextInt(rng, 1, 12))}/${pad(nextInt(rng, 1, 28))}/${nextInt(rng, 1940, 2026)}`);
const longDate = (rng: Rng, phi: PhiSink): string =>
  phi('DATE', `${pick(rng, MONTHS)} ${nextInt(rng, 1, 28)}, ${nextInt(rng, 2019, 2026)}`);
const isoDate = (rng: Rng, phi: PhiSink): string =>
  phi('DATE', `${nextInt(rng, 2019, 2026)}-${pad(nextInt(rng, 1, 12))}-${pad(nextInt(rng, 1, 28))}`);
const phone = (rng: Rng, phi: PhiSink): string =>
  phi(
    'PHONE',
    `(${nextInt(rng, 201, 989)}) ${nextInt(rng, 200, 999)}-${String(nextInt(rng, 0, 9999)).padStart(4, '0')}`,
  );
/** A record number: the mock finds it after its label (MRN, medical record number). */
const mrn = (rng: Rng, phi: PhiSink): string => phi('MRN', String(nextInt(rng, 10_000_000, 99_999_999)));
const email = (rng: Rng, phi: PhiSink): string =>
  phi('EMAIL', `${pick(rng, FIRST_NAMES).toLowerCase()}.${pick(rng, LAST_NAMES).toLowerCase()}@example.org`);
const address = (rng: Rng, phi: PhiSink): string => {
  const [city, state] = pick(rng, CITIES);
  return phi(
    'ADDRESS',
    `${nextInt(rng, 10, 9999)} ${pick(rng, STREET_NAMES)} ${pick(rng, STREET_SUFFIXES)}, ${city}, ${state} ${nextInt(rng, 10_000, 99_999)}`,
  );
};
const ssn = (rng: Rng, phi: PhiSink): string =>
  phi('ID', `${nextInt(rng, 100, 899)}-${pad(nextInt(rng, 10, 99))}-${String(nextInt(rng, 1000, 9999))}`);
const memberId = (rng: Rng, phi: PhiSink): string =>
  phi('ID', `${pick(rng, PLANS)}${nextInt(rng, 100_000_000, 999_999_999)}`);

/** Sentences that open a note: identify the patient. */
const OPENERS: readonly SentenceMaker[] = [
  (r, p) => `Patient ${person(r, p)} (MRN ${mrn(r, p)}), DOB ${usDate(r, p)}, seen in clinic on ${longDate(r, p)}.`,
  (r, p) => `${person(r, p)} is a ${nextInt(r, 19, 91)}-year-old seen on ${isoDate(r, p)}; MRN: ${mrn(r, p)}.`,
  (r, p) => `Admission note for ${person(r, p)}, date of birth ${usDate(r, p)}, medical record number ${mrn(r, p)}.`,
];

/** Sentences in the body: clinical content, some with more PHI. */
const BODY: readonly SentenceMaker[] = [
  (r) => `Chief complaint: ${pick(r, COMPLAINTS)} for ${nextInt(r, 2, 14)} days.`,
  (r) =>
    `Vitals: BP ${nextInt(r, 105, 165)}/${nextInt(r, 60, 98)}, HR ${nextInt(r, 55, 110)}, temp ${(36 + r.next() * 2).toFixed(1)} C, SpO2 ${nextInt(r, 91, 100)}%.`,
  (r) => `Current medications include ${pick(r, MEDICATIONS)}.`,
  (r, p) => `Patient lives at ${address(r, p)} with ${pick(r, HOUSEHOLDS)}.`,
  (r, p) => `Contact phone ${phone(r, p)}; alternate contact ${person(r, p)} at ${phone(r, p)}.`,
  (r, p) => `Patient prefers e-mail follow-up at ${email(r, p)}.`,
  (r, p) => `Insurance member ID ${memberId(r, p)}; SSN on file ${ssn(r, p)}.`,
  (r, p) => `Referred by Dr. ${pick(r, LAST_NAMES)} on ${usDate(r, p)} for further evaluation.`,
  (r, p) => `Labs drawn ${longDate(r, p)} showed ${pick(r, LAB_FINDINGS)}.`,
  (r) => `Assessment: ${pick(r, ASSESSMENTS)}.`,
  (r, p) => `Plan discussed with ${person(r, p)}, who agrees to return on ${isoDate(r, p)}.`,
  (r) => `Allergies: ${pick(r, ALLERGIES)}.`,
  (r) => `Social history: ${pick(r, SOCIAL_HISTORIES)}.`,
  (r) => `Review of systems otherwise negative for ${pick(r, NEGATIVE_SYMPTOMS)}.`,
  (r) => `Follow-up in ${nextInt(r, 2, 12)} weeks, sooner if symptoms worsen.`,
  (r) => `Family history significant for ${pick(r, FAMILY_HISTORIES)}.`,
  (r) => `Exam notable for ${pick(r, EXAM_FINDINGS)}.`,
];

/** Generates one note whose length lies in [minChars, maxChars] (best effort at the low end). */
export function generateNote(rng: Rng, options: NoteOptions = DEFAULT_NOTE_OPTIONS): string {
  const maxChars = Math.min(options.maxChars, maxCharactersFor(IDENTIFICATION_LIMITS.maxTextTokens));
  const targetChars = nextInt(rng, Math.min(options.minChars, maxChars), maxChars);
  let note = pick(rng, OPENERS)(rng, ignore);
  // Try a bounded number of sentences: each is appended only if it keeps the note under maxChars. Concatenated, not
  // joined from a list: cheaper in CPU (measured), and the note is read flat once, when its body is encoded.
  for (let attempt = 0; attempt < 40 && note.length < targetChars; attempt++) {
    const sentence = pick(rng, BODY)(rng, ignore);
    if (note.length + 1 + sentence.length <= maxChars) note = `${note} ${sentence}`;
  }
  return note.length <= maxChars ? note : note.slice(0, maxChars);
}
