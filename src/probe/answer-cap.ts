/**
 * MAX_ANSWER_BYTES for autocannon's connections. autocannon 8 keeps every answer's body whole in a string
 * (its pipelined-requests queue), whatever the probe reads of it, so an answer over the cap is cut here:
 * at its announced Content-Length, or once the body read passes the cap. The connection is closed and
 * made again (the rest of that answer is never read), and its parser replaced, since the old one is in
 * the middle of the cut answer: it finishes the chunk it holds with no-op handlers.
 */
import type { AutocannonClient } from 'autocannon';

import { MAX_ANSWER_BYTES } from '../client/index.js';

/** Watches one autocannon client; `onCut` is called for each answer cut (before its connection is made again). */
export function capAnswers(client: AutocannonClient, onCut: () => void): void {
  let bodyBytes = 0;
  const cut = (): void => {
    bodyBytes = 0;
    onCut();
    const old = client.parser;
    const Parser = old.constructor;
    const fresh = new Parser(Parser.RESPONSE);
    for (const handler of [Parser.kOnHeaders, Parser.kOnHeadersComplete, Parser.kOnBody, Parser.kOnMessageComplete]) {
      fresh[handler] = old[handler]!;
      old[handler] = () => {};
    }
    client.parser = fresh;
    client._resetConnection();
  };
  client.on('headers', (info) => {
    bodyBytes = 0;
    // A flat list: name, value, name, value…
    for (let i = 0; i + 1 < info.headers.length; i += 2) {
      if (info.headers[i]!.toLowerCase() === 'content-length' && Number(info.headers[i + 1]) > MAX_ANSWER_BYTES)
        return cut();
    }
  });
  client.on('body', (piece) => {
    bodyBytes += piece.length;
    if (bodyBytes > MAX_ANSWER_BYTES) cut();
  });
}
