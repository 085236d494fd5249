import { describe, expect, it } from 'vitest';

import { classifyError, classifyStatus } from './classify.js';

const withCode = (code: string, message = code): Error => Object.assign(new Error(message), { code });

describe('classifyStatus', () => {
  it.each([
    [200, 'ok'],
    [204, 'ok'],
    [429, 'http_429'],
    [504, 'http_504'],
    [500, 'http_other'],
    [401, 'http_other'],
  ])('%i → %s', (status, outcome) => {
    expect(classifyStatus(status)).toBe(outcome);
  });
});

describe('classifyError', () => {
  it('says timeout whenever our own deadline fired, whatever undici reports', () => {
    expect(classifyError(withCode('UND_ERR_SOCKET'), true)).toBe('timeout');
  });

  it.each([
    [withCode('ECONNRESET'), 'reset'],
    [withCode('UND_ERR_SOCKET', 'other side closed'), 'reset'],
    [new Error('fetch failed', { cause: withCode('ECONNREFUSED') }), 'refused'],
    [withCode('UND_ERR_HEADERS_TIMEOUT'), 'timeout'],
    [Object.assign(new Error('t'), { name: 'TimeoutError' }), 'timeout'],
    [new Error('something else'), 'error'],
    ['not even an error', 'error'],
  ])('%s → %s', (error, outcome) => {
    expect(classifyError(error, false)).toBe(outcome);
  });
});
