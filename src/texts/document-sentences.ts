/**
 * The sentences generated documents are written in: clinical prose, and the lines that carry PHI (every
 * Safe Harbor kind a note holds, each planted as an item with its kind). The structure is drawn from the
 * run's seeded generator, the values from the document's seeded fakers.
 */
import { nextInt, pick, type Rng } from '../core/index.js';
import {
  fakeAccount,
  fakeClinician,
  fakeDate,
  fakeDeviceSerial,
  fakeHealthPlan,
  fakeIp,
  fakeLicence,
  fakeMrn,
  fakeName,
  fakePhone,
  fakePlate,
  fakeSsn,
  fakeStreet,
  fakeStudyId,
  fakeUrl,
} from './fake-phi.js';
import type { Fakers } from './fakers.js';
import type { Plant } from './planting.js';

/** Writes one sentence; every item of PHI in it goes through `plant`. */
export type DocumentSentence = (rng: Rng, fakers: Fakers, plant: Plant) => string;

const name = (f: Fakers, p: Plant): string => p('NAME', fakeName(f));
/** "Dr. X" or "X, MD": the item is the name, not the title. */
const clinician = (r: Rng, f: Fakers, p: Plant): string =>
  r.next() < 0.5 ? `Dr. ${p('NAME', fakeClinician(f))}` : `${p('NAME', fakeName(f))}, ${pick(r, ['MD', 'DO', 'NP'])}`;
const birthDate = (f: Fakers, p: Plant): string => p('DATE', fakeDate(f.us, 1930, 2015));
const visitDate = (f: Fakers, p: Plant): string => p('DATE', fakeDate(f.us, 2019, 2026));
const mrn = (f: Fakers, p: Plant): string => p('MRN', fakeMrn(f.us));
const phone = (f: Fakers, p: Plant): string => p('PHONE', fakePhone(f.us));
/** Street, city, state and ZIP: the state is not PHI, the rest is. */
const address = (f: Fakers, p: Plant): string =>
  `${p('ADDRESS', fakeStreet(f.us))}, ${p('ADDRESS', f.us.location.city())}, ${f.us.location.state({ abbreviated: true })} ${p('ZIP', f.us.location.zipCode())}`;

/** The patient, named in the first paragraph. */
export const OPENERS: readonly DocumentSentence[] = [
  (_r, f, p) =>
    `Patient ${name(f, p)} (MRN ${mrn(f, p)}), DOB ${birthDate(f, p)}, seen in clinic on ${visitDate(f, p)}.`,
  (r, f, p) => `${name(f, p)} is a ${nextInt(r, 19, 89)}-year-old seen on ${visitDate(f, p)}; MRN: ${mrn(f, p)}.`,
  (r, f, p) =>
    `${name(f, p)} is a ${p('AGE', String(nextInt(r, 90, 104)))}-year-old ${pick(r, ['woman', 'man'])} seen on ${visitDate(f, p)}, medical record number ${mrn(f, p)}.`,
  (_r, f, p) =>
    `Admission note for ${name(f, p)}, date of birth ${birthDate(f, p)}, medical record number ${mrn(f, p)}.`,
];

export const DISCHARGE_OPENING: DocumentSentence = (_r, f, p) =>
  `${name(f, p)} (MRN ${mrn(f, p)}) was admitted on ${visitDate(f, p)} and discharged on ${visitDate(f, p)}.`;
export const REFERRAL_OPENING: DocumentSentence = (r, f, p) =>
  `Dear ${clinician(r, f, p)}, I am referring ${name(f, p)}, born ${birthDate(f, p)}, for your opinion.`;

export const CLOSINGS = {
  progress: (r: Rng, f: Fakers, p: Plant): string =>
    `Electronically signed by ${clinician(r, f, p)} on ${visitDate(f, p)}.`,
  discharge: (r: Rng, f: Fakers, p: Plant): string =>
    `Dictated by ${clinician(r, f, p)}; questions to the ward at ${phone(f, p)}, fax ${p('FAX', fakePhone(f.us))}.`,
  referral: (r: Rng, f: Fakers, p: Plant): string =>
    `Yours sincerely, ${clinician(r, f, p)}, telephone ${phone(f, p)}.`,
} as const satisfies Record<string, DocumentSentence>;

/** Body sentences that carry PHI. */
const WITH_PHI: readonly DocumentSentence[] = [
  (r, f, p) =>
    `Patient lives at ${address(f, p)} with ${pick(r, ['her spouse', 'his daughter', 'a roommate', 'family'])}.`,
  (r, f, p) =>
    `Contact phone ${phone(f, p)}; alternate contact ${name(f, p)} (${pick(r, ['daughter', 'son', 'spouse', 'neighbor'])}) at ${phone(f, p)}.`,
  (r, f, p) =>
    `Patient prefers e-mail follow-up at ${p('EMAIL', r.next() < 0.5 ? f.us.internet.email() : f.us.internet.exampleEmail())}.`,
  (_r, f, p) => `Medicare number ${p('HEALTH_PLAN', fakeHealthPlan(f.us))}; SSN on file ${p('SSN', fakeSsn(f.us))}.`,
  (_r, f, p) =>
    `Insurance member ID ${p('HEALTH_PLAN', fakeHealthPlan(f.us))}, billing account ${p('ACCOUNT', fakeAccount(f.us))}.`,
  (r, f, p) => `Referred by ${clinician(r, f, p)} on ${visitDate(f, p)} for further evaluation.`,
  (r, f, p) =>
    `Labs drawn ${visitDate(f, p)} showed ${pick(r, ['mild anemia', 'an elevated A1c of 7.9%', 'normal renal function', 'an LDL of 162 mg/dL'])}.`,
  (_r, f, p) => `Plan discussed with ${name(f, p)}, who agrees to return on ${visitDate(f, p)}.`,
  (_r, f, p) =>
    `Pacemaker interrogated (device serial ${p('DEVICE', fakeDeviceSerial(f.us))}); battery and leads within range.`,
  (_r, f, p) =>
    `Driver's license ${p('LICENSE', fakeLicence(f.us))} copied at registration; vehicle plate ${p('VEHICLE', fakePlate(f.us))} for the disability permit.`,
  (_r, f, p) =>
    `Involved in a collision on ${visitDate(f, p)}; police report lists VIN ${p('VEHICLE', f.us.vehicle.vin())}.`,
  (_r, f, p) => `Imaging available at ${p('URL', fakeUrl(f.us))} (accessed from ${p('IP', fakeIp(f.us))}).`,
  (_r, f, p) => `Enrolled in the registry as study subject ${p('ID', fakeStudyId(f.us))}.`,
  (r, f, p) => `Previous records faxed to ${p('FAX', fakePhone(f.us))} at the request of ${clinician(r, f, p)}.`,
  (r, f, p) =>
    `Lives with ${pick(r, ['a grandparent', 'an aunt', 'a great-uncle'])}, ${name(f, p)}, who is ${p('AGE', String(nextInt(r, 90, 104)))}.`,
];

/** Body sentences of clinical content alone. */
const CLINICAL: readonly DocumentSentence[] = [
  (r) =>
    `Chief complaint: ${pick(r, ['chest pain', 'shortness of breath', 'persistent cough', 'lower back pain', 'fatigue', 'dizziness'])} for ${nextInt(r, 2, 14)} days.`,
  (r) =>
    `Vitals: BP ${nextInt(r, 105, 165)}/${nextInt(r, 60, 98)}, HR ${nextInt(r, 55, 110)}, temp ${(36 + r.next() * 2).toFixed(1)} C, SpO2 ${nextInt(r, 91, 100)}%.`,
  (r) =>
    `Current medications include ${pick(r, ['metformin 500 mg twice daily', 'lisinopril 10 mg daily', 'atorvastatin 40 mg nightly', 'albuterol as needed', 'levothyroxine 75 mcg daily'])}.`,
  (r) =>
    `Assessment: ${pick(r, ['stable chronic disease', 'likely viral illness', 'musculoskeletal strain', 'poorly controlled hypertension', 'community-acquired pneumonia'])}.`,
  (r) =>
    `Allergies: ${pick(r, ['no known drug allergies', 'penicillin (rash)', 'sulfa drugs', 'latex', 'shellfish'])}.`,
  (r) =>
    `Social history: ${pick(r, ['never smoker', 'former smoker, quit ten years ago', 'drinks alcohol socially', 'works night shifts', 'exercises three times a week'])}.`,
  (r) =>
    `Review of systems otherwise negative for ${pick(r, ['fever and chills', 'weight loss', 'chest pain', 'headache', 'abdominal pain'])}.`,
  (r) => `Follow-up in ${nextInt(r, 2, 12)} weeks, sooner if symptoms worsen.`,
  (r) =>
    `Family history significant for ${pick(r, ['type 2 diabetes', 'coronary artery disease', 'breast cancer', 'hypertension', 'no relevant conditions'])}.`,
  (r) =>
    `Exam notable for ${pick(r, ['clear lungs bilaterally', 'mild pedal edema', 'tenderness over the lumbar spine', 'a regular rate and rhythm', 'no focal deficits'])}.`,
  (r) =>
    `Counseled on ${pick(r, ['diet and exercise', 'medication adherence', 'fall prevention', 'smoking cessation'])}; questions answered.`,
];

/** The next body sentence's maker: clinical content three times in five, as notes are mostly findings. */
export const bodySentence = (r: Rng): DocumentSentence => pick(r, r.next() < 0.6 ? CLINICAL : WITH_PHI);
