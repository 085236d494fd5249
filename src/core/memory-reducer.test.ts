import { execFileSync } from 'node:child_process';

import { describe, expect, it } from 'vitest';

import { deferMemoryReducer, DEFERRED_DELAY_MS } from './memory-reducer.js';

describe('deferMemoryReducer', () => {
  it('sets the reducer’s start delay beyond any run', () => {
    const flags: string[] = [];
    deferMemoryReducer((f) => flags.push(f));
    expect(flags).toEqual(['--gc-memory-reducer-start-delay-ms=2147483647']);
  });

  it('survives a V8 that refuses flags', () => {
    expect(() =>
      deferMemoryReducer(() => {
        throw new Error('flags are frozen');
      }),
    ).not.toThrow();
  });

  it('names a flag this Node’s V8 takes, with this value', () => {
    // An unknown flag, or a value out of range, makes node exit with an error instead of running the script.
    expect(
      execFileSync(
        process.execPath,
        [`--gc-memory-reducer-start-delay-ms=${DEFERRED_DELAY_MS}`, '-e', 'process.stdout.write("ok")'],
        { encoding: 'utf8' },
      ),
    ).toBe('ok');
  });
});
