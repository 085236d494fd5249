/**
 * When a request really leaves: undici publishes `undici:client:sendHeaders` just before it writes a
 * request's headers to the socket (after the connection is made and the request's turn has come).
 * Stamping there keeps connection setup and queueing in the dispatcher out of service time.
 * A request is matched to its stamp by `undici:request:create`, which undici publishes synchronously
 * while `request()` builds it, so the match is exact without any header or id.
 */
import { subscribe } from 'node:diagnostics_channel';

type OnSend = () => void;

let claiming: OnSend | undefined;
const pending = new WeakMap<object, OnSend>();
let subscribed = false;

function listen(): void {
  subscribed = true;
  subscribe('undici:request:create', (message) => {
    if (claiming === undefined) return;
    pending.set((message as { request: object }).request, claiming);
    claiming = undefined;
  });
  subscribe('undici:client:sendHeaders', (message) => {
    const request = (message as { request: object }).request;
    const onSend = pending.get(request);
    if (onSend === undefined) return;
    pending.delete(request);
    onSend();
  });
}

/**
 * Calls `start` (which must call undici's `request` synchronously, once) and `onSend` when that
 * request's headers are written to the socket; never, if they never are (no connection, aborted first).
 */
export function withSendStamp<T>(onSend: OnSend, start: () => T): T {
  if (!subscribed) listen();
  claiming = onSend;
  try {
    return start();
  } finally {
    claiming = undefined;
  }
}
