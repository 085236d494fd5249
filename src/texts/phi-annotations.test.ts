/**
 * Users' texts with known PHI: the `phi` field of a payload.source NDJSON line and the file `deid --expect` reads,
 * on real files. A problem names the file, the line, the field, the value and what was expected, never the PHI.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { ScenarioError } from '../core/errors.js';
import { createTextSource, type PayloadSettings } from './sources.js';
import { readUserTexts } from './user-texts.js';

const SETTINGS: PayloadSettings = {
  source: 'notes.ndjson',
  minChars: 400,
  maxChars: 850,
  split: { maxTokens: 1024, margin: 0.1 },
  seed: 1,
};

function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'loadproof-annotations-'));
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  return dir;
}

const line = (value: unknown): string => JSON.stringify(value);
const NOTE = "Seen: Margaret O'Donnell-Reyes, MRN 2093-4471-88. Margaret O'Donnell-Reyes called back.";

describe('payload.source annotations', () => {
  it('gives an annotated text its PHI as spans, every occurrence, and length class user; an unannotated one none', () => {
    const dir = folder({
      'notes.ndjson': `${line({
        text: NOTE,
        phi: [
          { text: "Margaret O'Donnell-Reyes", kind: 'NAME' },
          { text: '2093-4471-88', kind: 'MRN' },
        ],
      })}\n${line({ text: 'No identifiers here.' })}\n`,
      'scenario.yaml': '',
    });
    const user = readUserTexts('notes.ndjson', join(dir, 'scenario.yaml'));
    expect(user.documents[0]!.phi).toEqual([
      { kind: 'NAME', start: 6, end: 30 },
      { kind: 'MRN', start: 36, end: 48 },
      { kind: 'NAME', start: 50, end: 74 },
    ]);
    expect(user.documents[1]!.phi).toBeUndefined();
    const source = createTextSource(SETTINGS, { ...user, documents: [user.documents[0]!] }, 'deid');
    source.next();
    expect(source.document(0)).toMatchObject({ text: NOTE, lengthClass: 'user', phi: user.documents[0]!.phi });
  });

  it('names the file, line, field, value and what was expected for every bad annotation, never its text', () => {
    const dir = folder({
      'notes.ndjson': [
        line({ text: NOTE, phi: 'Margaret' }),
        line({ text: NOTE, phi: [{ text: 'Margaret', kind: 'PERSON' }, { text: '', kind: 'NAME' }, 'x'] }),
        line({ text: NOTE, phi: [{ text: 'Priya Natarajan', kind: 'NAME' }] }),
      ].join('\n'),
      'scenario.yaml': '',
    });
    let error: unknown;
    try {
      readUserTexts('notes.ndjson', join(dir, 'scenario.yaml'));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ScenarioError);
    const problems = (error as ScenarioError).problems;
    expect(problems).toEqual([
      'payload.source: notes.ndjson line 1: phi: expected a list of {text, kind}, got a string',
      'payload.source: notes.ndjson line 2: phi[0].kind: "PERSON" is not a kind of PHI; expected one of NAME, ADDRESS, ZIP, DATE, AGE, PHONE, FAX, EMAIL, SSN, MRN, HEALTH_PLAN, ACCOUNT, LICENSE, VEHICLE, DEVICE, URL, IP, ID',
      'payload.source: notes.ndjson line 2: phi[1].text: expected a non-empty string (the PHI as it is written), got an empty string',
      'payload.source: notes.ndjson line 2: phi[2]: expected an object {text, kind}, got a string',
      "payload.source: notes.ndjson line 3: phi[0] (NAME, 15 characters): not in the text; expected an annotation's text to appear in it as whole words",
    ]);
    expect(problems.join('\n')).not.toMatch(/Margaret|Priya/);
  });

  it('bounds the annotations of one text', () => {
    const many = Array.from({ length: 10_001 }, () => ({ text: 'MRN', kind: 'MRN' }));
    const dir = folder({ 'notes.ndjson': line({ text: NOTE, phi: many }), 'scenario.yaml': '' });
    expect(() => readUserTexts('notes.ndjson', join(dir, 'scenario.yaml'))).toThrow(
      /line 1: phi: 10001 annotations; expected at most 10000/,
    );
  });
});
