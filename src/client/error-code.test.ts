import { describe, expect, it } from 'vitest';

import { errorCodeOf } from './attempt.js';

describe("a 429's error code (which limit refused it)", () => {
  it.each([
    ['{"error":"rate_limited","error_description":"x"}', 'rate_limited'],
    ['{"code":"Quota.Exceeded"}', 'Quota.Exceeded'],
    ['{"error":"too_many_in_flight","code":"other"}', 'too_many_in_flight'],
    [`{"error":"${'a'.repeat(64)}"}`, 'a'.repeat(64)],
  ])('reads %s as %s', (body, code) => {
    expect(errorCodeOf(body)).toBe(code);
  });

  it.each([
    ['not json', 'a body that is not JSON'],
    ['"rate_limited"', 'a JSON string'],
    ['{"error":{"code":"x"}}', 'an error that is an object'],
    ['{"error":"rate limited"}', 'a code with a space'],
    ['{"error":"quote\\"d"}', 'a code with a quote'],
    [`{"error":"${'a'.repeat(65)}"}`, 'a code over 64 characters'],
    ['{"error":""}', 'an empty code'],
  ])('records no code for %s (%s)', (body) => {
    expect(errorCodeOf(body)).toBeUndefined();
  });
});
