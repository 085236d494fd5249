import { describe, expect, it } from 'vitest';

import { RequestBytes, requestHeadStart } from './request-bytes.js';

const start = requestHeadStart('/entityextraction/pipelines/vendor-phi-identification', '127.0.0.1:8080');
const asString = (token: string, headers: string, body: string): Buffer =>
  Buffer.from(
    `POST /entityextraction/pipelines/vendor-phi-identification HTTP/1.1\r\nhost: 127.0.0.1:8080\r\ncontent-type: application/json\r\naccept: application/json\r\nauthorization: Bearer ${token}\r\n${headers}${body}`,
  );

describe('RequestBytes', () => {
  it('writes the bytes the request string would encode to, for an ASCII and a non-ASCII body', () => {
    const requests = new RequestBytes(start);
    for (const body of ['{"text":"Patient John Smith"}', JSON.stringify({ text: 'Zoë Müller, 東京 📞' })]) {
      const headers = `x-loadproof-seq: 7\r\nx-loadproof-attempt: 1\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n`;
      expect(requests.build('tok-1', headers, body, Buffer.byteLength(body))).toEqual(asString('tok-1', headers, body));
    }
  });

  it('copies a body given as its bytes, and sends such a body whole whatever length it was said to have', () => {
    const requests = new RequestBytes(start);
    const body = JSON.stringify({ text: 'Zoë 📞' });
    const headers = `content-length: ${Buffer.byteLength(body)}\r\n\r\n`;
    expect(requests.build('t', headers, Buffer.from(body), Buffer.byteLength(body))).toEqual(
      asString('t', headers, body),
    );
    expect(requests.build('t', headers, Buffer.from(body), 3)).toEqual(asString('t', headers, body));
  });

  it('follows a renewed token', () => {
    const requests = new RequestBytes(start);
    const headers = 'content-length: 2\r\n\r\n';
    requests.build('first-token', headers, '{}', 2);
    expect(requests.build('second', headers, '{}', 2)).toEqual(asString('second', headers, '{}'));
  });

  it('sends a body whose length was misstated whole, as the string did', () => {
    const requests = new RequestBytes(start);
    const headers = 'content-length: 3\r\n\r\n';
    expect(requests.build('t', headers, '{"a":1}', 3)).toEqual(asString('t', headers, '{"a":1}'));
    expect(requests.build('t', headers, 'é', 1)).toEqual(asString('t', headers, 'é'));
  });
});
