import { describe, expect, it } from 'vitest';
import { mdText } from './markdown.js';

describe('report.md text', () => {
  it('shows a scenario\'s text as written: no HTML tag, link, image or emphasis can start in it', () => {
    expect(mdText('retry <script>alert(1)</script> done')).toBe('retry \\<script>alert(1)\\</script> done');
    expect(mdText('[link](http://x) ![img](y) *em*')).toBe('\\[link\\](http://x) !\\[img\\](y) \\*em\\*');
    expect(mdText('a\\b')).toBe('a\\\\b');
  });

  it('leaves comparisons and code spans as they are', () => {
    expect(mdText('p(95) < 2.50s, 2 > 1')).toBe('p(95) < 2.50s, 2 > 1');
    expect(mdText('run `loadproof verify <folder>` now <b>')).toBe('run `loadproof verify <folder>` now \\<b>');
  });
});
