/**
 * The kinds of PHI a clinical text can hold: the HIPAA Safe Harbor identifiers (45 CFR 164.514(b)(2)) that
 * appear in notes, as loadproof names them. A state is not among them (Safe Harbor keeps it); a street, a city
 * and a ZIP code are.
 */
export const PHI_KINDS = [
  'NAME',
  'ADDRESS',
  'ZIP',
  'DATE',
  'AGE',
  'PHONE',
  'FAX',
  'EMAIL',
  'SSN',
  'MRN',
  'HEALTH_PLAN',
  'ACCOUNT',
  'LICENSE',
  'VEHICLE',
  'DEVICE',
  'URL',
  'IP',
  'ID',
] as const;

export type PhiKind = (typeof PHI_KINDS)[number];

const KIND_SET: ReadonlySet<string> = new Set(PHI_KINDS);

export const isPhiKind = (value: unknown): value is PhiKind => typeof value === 'string' && KIND_SET.has(value);
