import { describe, expect, it } from 'vitest';

import { ResponseParser } from './parser.js';

describe('response header names', () => {
  it('are lower case whatever their case, the common ones and the others, near misses included', () => {
    const names = [
      'CoNtEnT-TyPe',
      'DATE',
      'Dat3',
      'Server-Timing',
      'X-Date',
      'Retry-After',
      'Retry_After',
      'Keep-Alivf',
    ];
    const head = names.map((name, i) => `${name}: v${i}\r\n`).join('');
    const response = new ResponseParser().push(Buffer.from(`HTTP/1.1 200 OK\r\n${head}Content-Length: 2\r\n\r\n{}`));
    expect(response?.headers).toEqual({
      ...Object.fromEntries(names.map((name, i) => [name.toLowerCase(), `v${i}`])),
      'content-length': '2',
    });
  });
});
