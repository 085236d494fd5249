import { describe, expect, it } from 'vitest';

import { SecretMask } from '../core/index.js';
import { ErrorSampler, MAX_SAMPLED_GROUPS, neutralise, SAMPLE_CHARS } from './error-sample.js';
import { formatEventLine, parseEventLine, toEventRecord } from './events.js';
import { ErrorTally } from './top-errors.js';

const SECRET = 'sEcReT "q"/p&a=e<l>é中';
const TOKEN = 'lpmock_at_0123456789abcdefghij';

function sampler(): ErrorSampler {
  const mask = new SecretMask();
  mask.add(SECRET);
  mask.addToken(TOKEN);
  return new ErrorSampler(mask);
}

/** A failed request's record, through its line of events.ndjson and back, as `loadproof report` reads it. */
function failed(s: ErrorSampler, seq: number, status: number | undefined, text: string, code?: string) {
  const outcome =
    status === undefined ? ('reset' as const) : status === 504 ? ('http_504' as const) : ('http_other' as const);
  const times = { attempts: 1, lastSentAtMs: seq, endAtMs: seq + 5, retryAfterS: [] };
  const result = status === undefined ? times : { ...times, status };
  const error = s.recordOf(outcome, status, code === undefined ? { text } : { code, text });
  const record = toEventRecord('p', { seq, intendedAtMs: seq, firedAtMs: seq, outcome, result }, 1, error);
  const line = formatEventLine(record, '"p"');
  expect(line).toBe(`${JSON.stringify(record)}\n`);
  return parseEventLine(line);
}

describe('a failed request: what it said, masked, neutralised, bounded', () => {
  it('masks the client secret and the token in every form a server echoes them, and any bearer token', () => {
    const s = sampler();
    const body = JSON.stringify({
      error: 'internal_error',
      raw: `${SECRET} ${TOKEN}`,
      twice: JSON.stringify({ secret: SECRET, auth: `Bearer ${TOKEN}` }),
      url: encodeURIComponent(SECRET),
      basic: `Basic ${Buffer.from(`id:${SECRET}`).toString('base64')}`,
      html: SECRET.replace(/&/g, '&amp;')
        .replace(/</g, '&lt;')
        .replace(/>/g, '&gt;')
        .replace(/"/g, '&quot;')
        .replace(/'/g, '&#39;'),
      other: 'Authorization: Bearer someOtherToken1234567890',
      jwt: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJl',
    });
    const sample = failed(s, 0, 500, body.slice(0, 4096), 'internal_error').error!.sample!;
    expect(sample.length).toBeLessThanOrEqual(SAMPLE_CHARS);
    const whole = s.recordOf('http_other', 501, { text: body })!.sample!;
    for (const leak of ['sEcReT', 'lpmock_at_', 'someOtherToken', 'eyJhbGci', 'c0VjUmVU', encodeURIComponent(SECRET)])
      expect(`${sample}${whole}`).not.toContain(leak);
    expect(sample).toContain('[redacted]');
    // A quoted header is masked whole: no text reads as an Authorization header.
    expect(`${sample}${whole}`).not.toMatch(/authorization\s*:/i);
    expect(neutralise('echo: Authorization: Basic dXNlcjpwYXNz, Proxy-Authorization: Bearer x')).toBe(
      'echo: [redacted header], [redacted header]',
    );
  });

  it('a hostile body (10 MB, NULs, markup, pipes, bidi, escapes) is at most 200 characters of one line', () => {
    const body = `\u0000<script>alert(1)</script>|a|b|\u202e\u2028\r\n\u001b[2J\ud800${'z'.repeat(10 * 1024 * 1024)}`;
    const sample = neutralise(body);
    expect(Array.from(sample)).toHaveLength(SAMPLE_CHARS);
    expect(sample).toMatch(/^<script>alert\(1\)<\/script>\|a\|b\| \[2J\ufffdz+…$/);
  });

  it('groups by status, outcome, code and message (numbers and ids aside), one sample a group, bounded in number', () => {
    const s = sampler();
    const tally = new ErrorTally();
    const add = (seq: number, status: number | undefined, text: string, code?: string) =>
      tally.add(failed(s, seq, status, text, code));
    for (let i = 0; i < 30; i++) add(i, 500, `{"error":"internal","request":"${i}-a1b2c3d4-${i * 7}"}`, 'internal');
    for (let i = 30; i < 40; i++) add(i, 504, '{"error":"gateway_timeout"}', 'gateway_timeout');
    for (let i = 40; i < 45; i++) add(i, undefined, 'read ECONNRESET', 'ECONNRESET');
    add(45, 500, '{"error":"quota"}', 'quota');
    expect(tally.top(100)).toEqual([
      {
        status: 500,
        outcome: 'http_other',
        code: 'internal',
        count: 30,
        share: 0.3,
        sample: '{"error":"internal","request":"0-a1b2c3d4-0"}',
      },
      {
        status: 504,
        outcome: 'http_504',
        code: 'gateway_timeout',
        count: 10,
        share: 0.1,
        sample: '{"error":"gateway_timeout"}',
      },
      { status: null, outcome: 'reset', code: 'ECONNRESET', count: 5, share: 0.05, sample: 'read ECONNRESET' },
      { status: 500, outcome: 'http_other', code: 'quota', count: 1, share: 0.01, sample: '{"error":"quota"}' },
    ]);
    expect(tally.top(100, 2)).toHaveLength(2);
  });

  it("counts what the phase table counts as 504s and errors: not a 429, not a stale connection (the client's)", () => {
    const s = sampler();
    const tally = new ErrorTally();
    for (const outcome of ['http_429', 'stale_connection', 'ok', 'dropped', 'unsent'] as const) {
      expect(s.recordOf(outcome, undefined, { text: 'x' })).toBeUndefined();
      tally.add({ ...failed(s, 0, 500, 'x'), outcome, error: undefined } as never);
    }
    expect(tally.top(10)).toEqual([]);
  });

  it('a server that says something new every time keeps at most MAX_SAMPLED_GROUPS samples', () => {
    const s = sampler();
    let samples = 0;
    for (let i = 0; i < 3 * MAX_SAMPLED_GROUPS; i++) {
      const words = i.toString(2).replace(/0/g, 'no ').replace(/1/g, 'yes ');
      if (s.recordOf('http_other', 500, { text: words })?.sample !== undefined) samples++;
    }
    expect(samples).toBe(MAX_SAMPLED_GROUPS);
  });

  it('a line whose error is not one is refused, naming the field', () => {
    const s = sampler();
    const line = JSON.stringify({ ...failed(s, 0, 500, 'x'), error: { code: 'a b', key: 'zz' } });
    expect(() => parseEventLine(line)).toThrow(/^error: expected \{code/);
  });
});
