/**
 * What the top-errors sampler keeps of a failed answer, as the client hands it over (client/failure.ts): no piece of
 * a secret, whatever cut the body went through, and one group for one error whatever ids and times it carries.
 */
import { describe, expect, it } from 'vitest';

import { answerFailure, errorFailure } from '../../src/client/failure.js';
import { SecretMask } from '../../src/core/index.js';
import { ErrorSampler } from '../../src/judge/error-sample.js';

const SECRET = 'S3cr3tClientSecretValue-0123456789';

/** A failed answer of `status` with `body`, as the HTTP/1.1 reader gives it. */
const answer = (body: string, status = 500) => ({ status, headers: {}, body: Buffer.from(body), close: false });

function maskOf(...tokens: string[]): SecretMask {
  const mask = new SecretMask();
  mask.add(SECRET);
  for (const t of tokens) mask.addToken(t);
  return mask;
}

describe('an error sample holds no piece of a secret', () => {
  it('a body cut (4096 bytes kept) inside the secret, after blank padding that neutralising squeezes', () => {
    const mask = maskOf();
    const sampler = new ErrorSampler(mask);
    const body = `error: ${' '.repeat(4096 - 7 - 20)}${SECRET} and more`;
    const record = sampler.recordOf('http_other', 500, answerFailure(answer(body), undefined))!;
    expect(record.sample).toBe('error:');
    expect(record.sample).not.toContain(SECRET.slice(0, 8));
  });

  it('a body cut inside a long token, after three whole ones that masking shortened', () => {
    const token = `lpmock_at_${'x7'.repeat(600)}`;
    const mask = maskOf(token);
    const sampler = new ErrorSampler(mask);
    const body = `error: ${`${token} `.repeat(4)}`;
    const record = sampler.recordOf('http_other', 500, answerFailure(answer(body), undefined))!;
    // The cut fourth's start is a piece of the token: masked as one.
    expect(record.sample).toBe('error: [redacted] [redacted] [redacted] [redacted]');
  });

  it("the client's own error message, cut inside a long token after three whole ones", () => {
    const token = `lpmock_at_${'x7'.repeat(600)}`;
    const sampler = new ErrorSampler(maskOf(token));
    const error = Object.assign(new Error(`connect: ${`${token}\t`.repeat(4)}`), { code: 'EPROTO' });
    const record = sampler.recordOf('error', undefined, errorFailure(error))!;
    expect(record).toMatchObject({ code: 'EPROTO', sample: 'connect: [redacted] [redacted] [redacted] [redacted]' });
  });

  it('an error code that is the secret is no code: null, and nowhere in the record', () => {
    const sampler = new ErrorSampler(maskOf());
    const record = sampler.recordOf('http_other', 401, { code: SECRET, text: `{"error":"${SECRET}"}` })!;
    expect(record.code).toBeNull();
    expect(JSON.stringify(record)).not.toContain(SECRET.slice(0, 8));
  });
});

describe('one error is one group', () => {
  it('whatever timestamp, request id or count its message carries', () => {
    const sampler = new ErrorSampler(maskOf());
    const keys = new Set<string>();
    for (let s = 10; s < 20; s++) {
      const body = `{"error":"server_error","time":"2026-11-27T20:01:${s}.${s * 7}Z","id":"req_${s}ab","n":"${s}x"}`;
      keys.add(sampler.recordOf('http_other', 500, { code: 'server_error', text: body })!.key);
    }
    expect(keys.size).toBe(1);
  });

  it('two errors alike in their first 200 characters and not after are two groups', () => {
    const sampler = new ErrorSampler(maskOf());
    const start = `{"error":"server_error","detail":"${'the upstream failed; '.repeat(12)}`;
    const a = sampler.recordOf('http_other', 500, { text: `${start}disk full"}` })!;
    const b = sampler.recordOf('http_other', 500, { text: `${start}out of memory"}` })!;
    expect(a.key).not.toBe(b.key);
    expect(b.sample).toBe(a.sample);
  });
});
