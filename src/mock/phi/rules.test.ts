import { isIPv6 } from 'node:net';

import { describe, expect, it } from 'vitest';

import { createRng } from '../../core/rng.js';
import { findEntities } from './detect.js';

const found = (text: string): [string, string][] => findEntities(text).map((e) => [e.type, e.text]);

describe('the detector finds each shape of PHI', () => {
  it.each([
    ['MRN 2093-4471-88 on file', [['MRN', '2093-4471-88']]],
    ['Medical record number: 00438817.', [['MRN', '00438817']]],
    [
      'Medicare number 1EG4-TE5-MK73 and MBI 1EG4TE5MK73',
      [
        ['HEALTH_PLAN', '1EG4-TE5-MK73'],
        ['HEALTH_PLAN', '1EG4TE5MK73'],
      ],
    ],
    ['Member ID: XKP118820394', [['HEALTH_PLAN', 'XKP118820394']]],
    [
      'Account no. ACC-5531-0092; acct #4410-778-2290',
      [
        ['ACCOUNT', 'ACC-5531-0092'],
        ['ACCOUNT', '4410-778-2290'],
      ],
    ],
    ["Driver's license D4401-2297-7731", [['LICENSE', 'D4401-2297-7731']]],
    ['VIN: 1HGCM82633A004352', [['VEHICLE', '1HGCM82633A004352']]],
    ['pacemaker serial number PM-77310-A9', [['DEVICE', 'PM-77310-A9']]],
    [
      'SSN 123-45-6789 or 123 45 6789 after SSN: 123 45 6789',
      [
        ['SSN', '123-45-6789'],
        ['SSN', '123 45 6789'],
      ],
    ],
    [
      'from 203.0.113.45 and 2001:db8:85a3::8a2e:370:7334 and ::1',
      [
        ['IP', '203.0.113.45'],
        ['IP', '2001:db8:85a3::8a2e:370:7334'],
        ['IP', '::1'],
      ],
    ],
    [
      'see https://portal.example.org/p/tw-4471?lang=en. Or www.example.com/x, then',
      [
        ['URL', 'https://portal.example.org/p/tw-4471?lang=en'],
        ['URL', 'www.example.com/x'],
      ],
    ],
    [
      'call +1 (847) 555-0142 ext. 12 or 312.555.0187; fax: 847-555-0199',
      [
        ['PHONE', '+1 (847) 555-0142 ext. 12'],
        ['PHONE', '312.555.0187'],
        ['FAX', '847-555-0199'],
      ],
    ],
    [
      'on 03/14/1931, 3-14-31, 1931-03-14, 14.03.1931, 14-Mar-1931',
      [
        ['DATE', '03/14/1931'],
        ['DATE', '3-14-31'],
        ['DATE', '1931-03-14'],
        ['DATE', '14.03.1931'],
        ['DATE', '14-Mar-1931'],
      ],
    ],
    [
      'on March 14, 1931, 14 March 1931, Mar. 14th 1931, 3rd of June, 2026, June 2026 and October 9',
      [
        ['DATE', 'March 14, 1931'],
        ['DATE', '14 March 1931'],
        ['DATE', 'Mar. 14th 1931'],
        ['DATE', '3rd of June, 2026'],
        ['DATE', 'June 2026'],
        ['DATE', 'October 9'],
      ],
    ],
    [
      'a 95-year-old, a 101 y/o, aged 92, a 45-year-old and age 89',
      [
        ['AGE', '95-year-old'],
        ['AGE', '101 y/o'],
        ['AGE', '92'],
      ],
    ],
    [
      'lives at 918 Ridge Terrace, Apt 3B, Evanston, IL 60201 now',
      [['ADDRESS', '918 Ridge Terrace, Apt 3B, Evanston, IL 60201']],
    ],
    [
      'lives at 44 West 12th Street, Unit 5, New York, NY 10011-2201.',
      [['ADDRESS', '44 West 12th Street, Unit 5, New York, NY 10011-2201']],
    ],
    ['mail to P.O. Box 118, Salem, MA 01970', [['ADDRESS', 'P.O. Box 118, Salem, MA 01970']]],
    ['ZIP code 60201 only', [['ZIP', '60201']]],
    [
      'Enrolled as study subject PU-4744-15; participant ID AB-1234-9',
      [
        ['ID', 'PU-4744-15'],
        ['ID', 'AB-1234-9'],
      ],
    ],
    ["Driver's license NO266435 copied", [['LICENSE', 'NO266435']]],
    [
      'police report lists VIN WVWZZZ3CZWE123456, then VIN no. JH4KA8260MC012345.',
      [
        ['VEHICLE', 'WVWZZZ3CZWE123456'],
        ['VEHICLE', 'JH4KA8260MC012345'],
      ],
    ],
    [
      'Pacemaker interrogated (device serial PXQKAERAHN); S/N QX7-LMN',
      [
        ['DEVICE', 'PXQKAERAHN'],
        ['DEVICE', 'QX7-LMN'],
      ],
    ],
    ['Lives with an aunt, who is 103. She is 95 kg; he was 92% saturated; she is 97.5', [['AGE', '103']]],
    [
      'lives at 12 Hawthorn Crossing, Unit 4, Dayton, OH 45402 now; 9 Main Street S, Apt. 2, Keene, NH 03431',
      [
        ['ADDRESS', '12 Hawthorn Crossing, Unit 4, Dayton, OH 45402'],
        ['ADDRESS', '9 Main Street S, Apt. 2, Keene, NH 03431'],
      ],
    ],
    [
      'lives at 936 E Broadway Apt. 574, Tucson, AZ 85701-0012 and at 8 Calle Via, Santa Fe, NM 87501.',
      [
        ['ADDRESS', '936 E Broadway Apt. 574, Tucson, AZ 85701-0012'],
        ['ADDRESS', '8 Calle Via, Santa Fe, NM 87501'],
      ],
    ],
  ])('%s', (text, expected) => {
    expect(found(text)).toEqual(expected);
  });

  it('takes no time, room number, dose or count for PHI', () => {
    expect(
      found('At 10:30:15 gave 500 mg; room 12; 3 of 4 criteria; BP 132/84; case 2 of 7; lot of fluid; age 45.'),
    ).toEqual([]);
  });

  it('takes a street without a suffix with its number and unit, its words never a person name', () => {
    const text = 'Lives at 9904 Bernhard Via Suite 812; also 17 Adrian Ward Via, Apt. 3B. Seen in 4 East Unit 5.';
    expect(found(text)).toEqual([
      ['ADDRESS', '9904 Bernhard Via Suite 812'],
      ['ADDRESS', '17 Adrian Ward Via, Apt. 3B'],
    ]);
  });

  it('takes no street without a suffix unless a unit or a city, state and ZIP follow it', () => {
    expect(found('gave 12 Tylenol tablets; 3 West Wing beds, Ward 4, then 2 Main entrances.')).toEqual([]);
  });

  it('answers pathological inputs of the new shapes (a catastrophic backtrack would not end)', () => {
    // Bounded inputs; the test's timeout is only a safety bound.
    const kinds = (text: string): string[] => [...new Set(findEntities(text).map((e) => e.type))];
    expect(kinds(`${'VIN '.repeat(1000)}${'A'.repeat(5000)}1`)).toEqual([]);
    expect(kinds(`device serial ${'A-'.repeat(2500)}`)).toEqual(['DEVICE']);
    expect(kinds(`${'who is '.repeat(1000)}95.`)).toEqual(['AGE']);
    expect(kinds(`12 ${'Oak Elm Ash Fir, '.repeat(300)}XY 1234`)).toEqual([]);
    expect(kinds(`${'subject '.repeat(1000)}AB`)).toEqual([]);
  });

  it('finds IPv6 addresses exactly where the pattern scanned at every position does', () => {
    // The rule is tried only near each ':' (its hot path); the oracle is the plain global scan.
    const plain = /(?<![\w:])[\dA-Fa-f]{0,4}(?::[\dA-Fa-f]{0,4}){2,7}(?![\w:])/g;
    const ipv6 = (t: string): boolean => isIPv6(t) && (t.includes('::') || t.split(':').length === 8);
    const alphabet = '0af:g :1';
    const rng = createRng(3);
    for (let i = 0; i < 3000; i++) {
      let text = '';
      for (let n = Math.floor(rng.next() * 30); n > 0; n--) text += alphabet[Math.floor(rng.next() * alphabet.length)];
      const expected = [...text.matchAll(plain)].filter((m) => ipv6(m[0])).map((m) => [m.index, m[0]]);
      expect(
        findEntities(text).map((e) => [e.start, e.text]),
        JSON.stringify(text),
      ).toEqual(expected);
    }
  });
});
