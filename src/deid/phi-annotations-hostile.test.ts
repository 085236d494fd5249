import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { UsageError } from '../core/index.js';
import { readPhiAnnotations } from './phi-annotations.js';

const file = (name: string, body: string): string => {
  const path = join(mkdtempSync(join(tmpdir(), 'loadproof-annotations-')), name);
  writeFileSync(path, body);
  return path;
};

describe('deid --expect: hostile annotation files', () => {
  it('a JSON syntax error does not quote the file (it is PHI)', async () => {
    const error = await readPhiAnnotations(file('a.json', '[{"text": Margaret Reyes, "kind": "NAME"}]')).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).not.toContain('Margaret');
  });

  it('refuses an annotation with no letter or digit (it would match every hyphen and count it removed)', async () => {
    const error = await readPhiAnnotations(file('b.json', '[{"text": "-", "kind": "NAME"}]')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toMatch(/b\.json item 1: text:/);
  });

  it('a text and kind given the wrong way round do not put the PHI in the message', async () => {
    const body = '[{"text": "NAME", "kind": "Margaret Reyes"}]';
    const error = await readPhiAnnotations(file('c.json', body)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).not.toContain('Margaret');
  });
});
