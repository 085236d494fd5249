/** What a TLS failure says of the certificate is printable and bounded, captured or read from Node's own error. */
import { describe, expect, it } from 'vitest';

import { tlsFailure } from './tls-failure.js';

/** Node's error for a name the certificate does not cover, which carries the certificate (`cert`) itself. */
function altNameError(cert: { subject?: { CN?: string }; subjectaltname?: string }): Error {
  return Object.assign(new Error("Hostname/IP does not match certificate's altnames"), {
    code: 'ERR_TLS_CERT_ALTNAME_INVALID',
    host: 'api.example.com',
    cert,
  });
}

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

describe('a certificate not for the host, as Node reports it (its certificate not captured)', () => {
  it('names what it covers, without an escape sequence or control character of the server', () => {
    const error = altNameError({
      subject: { CN: 'evil\u001b[2J\u001b]0;owned\u0007.example' },
      subjectaltname: 'DNS:evil\u001b[31m.example, DNS:\u009bother\r\n.example',
    });
    const message = tlsFailure('https://api.example.com', error)!.message;
    expect(message).toContain('it is not for api.example.com: it covers DNS:evil');
    expect(message).not.toMatch(CONTROL);
  });

  it('with a CN only: the CN, printable', () => {
    const message = tlsFailure(
      'https://api.example.com',
      altNameError({ subject: { CN: 'a\u001bb.example' } }),
    )!.message;
    expect(message).toContain('it covers CN a');
    expect(message).not.toMatch(CONTROL);
  });

  it('bounded: a name of 100 000 characters is cut', () => {
    const long = `DNS:${'x'.repeat(100_000)}`;
    const message = tlsFailure('https://api.example.com', altNameError({ subjectaltname: long }))!.message;
    expect(message).toContain('it covers DNS:xxx');
    expect(message.length).toBeLessThan(1000);
  });
});
