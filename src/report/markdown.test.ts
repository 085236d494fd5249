import { describe, expect, it } from 'vitest';

import { mdText } from './markdown.js';

describe('report.md text', () => {
  it("shows a scenario's text as written: no HTML tag, link, image or emphasis can start in it", () => {
    expect(mdText('retry <script>alert(1)</script> done')).toBe('retry \\<script>alert(1)\\</script> done');
    expect(mdText('[link](http://x) ![img](y) *em*')).toBe('\\[link\\](http://x) !\\[img\\](y) \\*em\\*');
    expect(mdText('a\\b')).toBe('a\\\\b');
  });

  it('keeps text on one line with nothing a renderer or terminal acts on: a fence, a heading or a CR cannot start a block', () => {
    expect(mdText('line1\n\n```\nfenced')).toBe('line1  ``` fenced');
    expect(mdText('a\rb | c')).toBe('a b | c');
    expect(mdText('a\u0000b\u0007c\u001b[31md\u202Ee')).toBe('abc\\[31mde');
    expect(mdText('x\n# heading')).toBe('x # heading');
  });

  it('leaves comparisons and code spans as they are', () => {
    expect(mdText('p(95) < 2.50s, 2 > 1')).toBe('p(95) < 2.50s, 2 > 1');
    expect(mdText('run `loadproof verify <folder>` now <b>')).toBe('run `loadproof verify <folder>` now \\<b>');
  });
});
