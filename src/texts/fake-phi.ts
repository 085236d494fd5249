/**
 * Fake PHI as real notes spell it, one maker per spelling, drawn from seeded fakers: names with initials,
 * hyphens, apostrophes, suffixes and other locales' names; street lines with units, cities, ZIP codes; record,
 * account, Medicare, member, licence, device and vehicle numbers with their separators; dates in the formats
 * notes use; ages over 89. No value belongs to anyone.
 */
import type { Faker } from '@faker-js/faker';

import type { Fakers } from './fakers.js';
import { MONTHS } from './lexicon.js';

const SUFFIXES = ['Jr.', 'Sr.', 'II', 'III', 'IV'] as const;

/** A person's name, in one of the spellings notes use (never with a title: the title is not the name). */
export function fakeName(fakers: Fakers): string {
  const { us } = fakers;
  const first = us.person.firstName();
  const last = us.person.lastName();
  switch (us.number.int(9)) {
    case 0:
      return `${first} ${us.string.alpha({ length: 1, casing: 'upper' })}. ${last}`;
    case 1:
      return `${first} ${last}-${us.person.lastName()}`;
    case 2:
      return `${first} ${us.helpers.arrayElement(["O'", "D'", 'Mc'])}${last}`;
    case 3:
      return `${first} ${last} ${us.helpers.arrayElement(SUFFIXES)}`;
    case 4:
      return `${first} ${us.person.middleName()} ${last}`;
    case 5:
    case 6: {
      const other = us.helpers.arrayElement(fakers.names);
      const surname = us.helpers.arrayElement(other.last);
      // Spanish names often carry both parents' surnames.
      const second = us.datatype.boolean() ? ` ${us.helpers.arrayElement(other.last)}` : '';
      return `${us.helpers.arrayElement(other.first)} ${surname}${second}`;
    }
    default:
      return `${first} ${last}`;
  }
}

/** A clinician's surname or full name, as it follows "Dr." or precedes ", MD". */
export const fakeClinician = (fakers: Fakers): string =>
  fakers.us.datatype.boolean() ? fakers.us.person.lastName() : fakeName(fakers);

/** A street line, with a unit number half the time. */
export function fakeStreet(us: Faker): string {
  const street = us.location.streetAddress(false);
  if (us.datatype.boolean()) return street;
  return `${street}${us.helpers.arrayElement([', ', ' '])}${us.helpers.arrayElement([us.location.secondaryAddress(), `Unit ${us.number.int({ min: 1, max: 40 })}${us.string.alpha({ length: 1, casing: 'upper' })}`])}`;
}

const pad = (n: number): string => String(n).padStart(2, '0');

/** A date between `fromYear` and `toYear`, in one of the formats notes use. */
export function fakeDate(us: Faker, fromYear: number, toYear: number): string {
  const date = us.date.between({ from: Date.UTC(fromYear, 0, 1), to: Date.UTC(toYear, 11, 31) });
  const [y, m, d] = [date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()];
  const month = MONTHS[m]!;
  switch (us.number.int(5)) {
    case 0:
      return `${y}-${pad(m + 1)}-${pad(d)}`;
    case 1:
      return `${pad(m + 1)}/${pad(d)}/${y}`;
    case 2:
      return `${month} ${d}, ${y}`;
    case 3:
      return `${d} ${month.slice(0, 3)} ${y}`;
    case 4:
      return `${pad(d)}-${month.slice(0, 3)}-${y}`;
    default:
      return `${m + 1}/${d}/${String(y).slice(2)}`;
  }
}

/** A US phone (or fax) number, in the national or a dotted or dashed spelling. */
export function fakePhone(us: Faker): string {
  const national = us.phone.number({ style: 'national' });
  const [, area, exchange, line] = /\((\d{3})\) (\d{3})-(\d{4})/.exec(national) ?? [];
  if (area === undefined) return national;
  return us.helpers.arrayElement([national, `${area}-${exchange}-${line}`, `${area}.${exchange}.${line}`]);
}

/** A medical record number: plain digits, or grouped with dashes (2093-4471-88). */
export const fakeMrn = (us: Faker): string =>
  us.helpers.replaceSymbols(us.helpers.arrayElement(['########', '####-####-##', '###-###-####', 'MR######']));

/** A Medicare Beneficiary Identifier (1EG4-TE5-MK73), or a private plan's member id. */
export function fakeHealthPlan(us: Faker): string {
  if (us.datatype.boolean()) return us.helpers.replaceSymbols(us.helpers.arrayElement(['???#########', 'W#########']));
  // MBI letters leave out S, L, O, I, B and Z.
  const letter = (): string => us.helpers.arrayElement([...'ACDEFGHJKMNPQRTUVWXY']);
  const either = (): string => (us.datatype.boolean() ? letter() : String(us.number.int(9)));
  const digit = (): string => String(us.number.int(9));
  return `${us.number.int({ min: 1, max: 9 })}${letter()}${either()}${digit()}-${letter()}${either()}${digit()}-${letter()}${letter()}${digit()}${digit()}`;
}

export const fakeSsn = (us: Faker): string =>
  `${us.number.int({ min: 100, max: 665 })}-${pad(us.number.int({ min: 1, max: 99 }))}-${String(us.number.int({ min: 1, max: 9999 })).padStart(4, '0')}`;

export const fakeAccount = (us: Faker): string =>
  us.helpers.replaceSymbols(us.helpers.arrayElement(['##-####-####', '##########', 'AC-#######']));

export const fakeLicence = (us: Faker): string =>
  us.helpers.replaceSymbols(us.helpers.arrayElement(['?###-####-####', '?#######', '??######']));

export const fakeDeviceSerial = (us: Faker): string =>
  us.datatype.boolean()
    ? `${us.string.alphanumeric({ length: 3, casing: 'upper' })}-${us.string.numeric(6)}`
    : us.string.alphanumeric({ length: 10, casing: 'upper' });

export const fakePlate = (us: Faker): string =>
  us.helpers.replaceSymbols(us.helpers.arrayElement(['###-???', '?##-???', '#??-####']));

/** A patient-portal or imaging link. */
export const fakeUrl = (us: Faker): string =>
  `${us.internet.url({ appendSlash: false })}/${us.helpers.arrayElement(['portal', 'records', 'imaging'])}/${us.string.alphanumeric(8)}`;

export const fakeIp = (us: Faker): string => (us.datatype.boolean() ? us.internet.ipv4() : us.internet.ipv6());

export const fakeStudyId = (us: Faker): string => us.helpers.replaceSymbols('??-####-##');
