import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

import { FIRST_NAMES_PACKED, LAST_NAMES_PACKED } from './name-lexicon.js';

describe('the name lexicon', () => {
  it('is what `npm run name-lexicon` makes from the installed compromise', () => {
    const script = fileURLToPath(new URL('../../../scripts/name-lexicon.js', import.meta.url));
    // Exits 1 with a message when the file differs; execFileSync throws then.
    expect(() => execFileSync(process.execPath, [script, '--check'], { stdio: 'pipe', timeout: 60_000 })).not.toThrow();
  }, 90_000);

  it('holds thousands of lower-case names', () => {
    const first = FIRST_NAMES_PACKED.split(' ');
    const last = LAST_NAMES_PACKED.split(' ');
    expect(first.length).toBeGreaterThan(3000);
    expect(last.length).toBeGreaterThan(800);
    for (const name of [...first, ...last]) expect(name).toMatch(/^[a-z][a-z'-]*$/);
  });
});
