/**
 * Users' texts with known PHI: the `phi` field of a payload.source NDJSON line and the file `deid --expect` reads,
 * on real files. A problem names the file, the line, the field, the value and what was expected, never the PHI.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { ScenarioError, UsageError } from '../core/errors.js';
import { readPhiAnnotations } from './phi-annotations.js';
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
      "payload.source: notes.ndjson line 3: phi[0] (NAME, 15 characters): not in the text; expected an annotation's text to appear in it exactly as written",
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

describe('readPhiAnnotations', () => {
  it('reads a JSON list and an NDJSON file of {text, kind}', async () => {
    const dir = folder({
      'expect.json': line([
        { text: 'Emma Rose Kowalczyk', kind: 'NAME' },
        { text: '60201', kind: 'ZIP' },
      ]),
      'expect.ndjson': `${line({ text: '1EG4-TE5-MK73', kind: 'HEALTH_PLAN' })}\n\n${line({ text: '10.0.0.7', kind: 'IP' })}\n`,
    });
    expect(await readPhiAnnotations(join(dir, 'expect.json'))).toEqual([
      { text: 'Emma Rose Kowalczyk', kind: 'NAME' },
      { text: '60201', kind: 'ZIP' },
    ]);
    expect(await readPhiAnnotations(join(dir, 'expect.ndjson'))).toEqual([
      { text: '1EG4-TE5-MK73', kind: 'HEALTH_PLAN' },
      { text: '10.0.0.7', kind: 'IP' },
    ]);
  });

  it('refuses a bad file with a usage error naming the file, the line or item, the field and what was expected', async () => {
    const dir = folder({
      'bad.ndjson': `${line({ text: 'Emma Rose', kind: 'NAME' })}\nnot json\n${line({ text: 'Emma', kind: 'name' })}\n`,
      'bad.json': line([{ text: 'Emma Rose', kind: 'NAME' }, { kind: 'DATE' }]),
      'broken.json': '[{"text": ',
    });
    const refusal = async (name: string): Promise<string> => {
      const error = await readPhiAnnotations(join(dir, name)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UsageError);
      return (error as UsageError).message;
    };
    const ndjson = await refusal('bad.ndjson');
    expect(ndjson).toContain('bad.ndjson line 2: expected a JSON object {text, kind}, got text that is not JSON');
    expect(ndjson).toContain('bad.ndjson line 3.kind: "name" is not a kind of PHI; expected one of NAME,');
    expect(await refusal('bad.json')).toContain(
      'bad.json[1].text: expected a non-empty string (the PHI as it is written), got nothing',
    );
    expect(await refusal('broken.json')).toContain(
      'broken.json: expected a JSON list of {text, kind}, got text that is not JSON',
    );
    expect(await refusal('missing.json')).toMatch(
      /missing\.json does not exist; expected a JSON or NDJSON list of \{text, kind\}/,
    );
    for (const name of ['bad.ndjson', 'bad.json']) expect(await refusal(name)).not.toContain('Emma');
  });
});
