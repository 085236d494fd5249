/**
 * Warm code before the first arrival. V8 compiles a function for speed only after it has
 * run many times, on background threads; code first met during the load makes the first second lag
 * (and spends CPU there). So, before t = 0 and without sending anything to the target:
 *  1. the per-request code that needs no socket runs over and over: the payload, the response parser on
 *     a canned answer, the JSON check, and the run's own handling of each fate (RequestEvents: record, Recorder, watch,
 * line, mask), into a throwaway Recorder;
 *  2. our HTTP/1.1 client sends requests to a stub of our own on 127.0.0.1 inside this process, which
 *     answers with the canned answer: the pool, the sockets' write and read paths, the parser on real reads.
 * Nothing here is measured or written; the run's own texts are unchanged (a throwaway generator).
 */
import { type AddressInfo, createServer, type Server } from 'node:net';

import { classifyStatus, ConnectionPool, parseJsonObject, ResponseParser, textBodyBytes } from '../client/index.js';
import { createRng, type SecretMask, type SendPermit, type TimeScale } from '../core/index.js';
import { ownLoopbackPermit } from '../guard/index.js';
import { EventSink } from '../judge/index.js';
import { arrivalsBefore, type Plan, seqInWholePlan } from '../plan/index.js';
import { parseModelTime } from '../spec/index.js';
import { generateNote } from '../texts/index.js';
import { RequestEvents } from './request-events.js';
import { TargetWatch } from './target-watch.js';

/**
 * How much warming: about twice the arrivals of the first 2 s of wall time (a slow run needs little:
 * its code has time to warm between arrivals), between these bounds. At the top, the JIT has mostly
 * settled before t = 0 (measured with bench:engine at 1,000 req/s); it costs about a second of CPU.
 */
const MIN_ROUNDS = 200;
const MAX_ROUNDS = 4000;
/** Requests at once to the in-process stub. */
const STUB_CONCURRENCY = 4;
/** The most wall time the stub part may take (ms): a warm-up never holds a run back for long. */
const STUB_BUDGET_MS = 2000;

const ANSWER = JSON.stringify({
  entities: [{ type: 'NAME', text: 'John Smith', start: 8, end: 18, score: 0.93 }],
  truncated: false,
  usage: { input_tokens: 174, output_tokens: 149 },
});
const RESPONSE = `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nserver-timing: svc;dur=1.5\r\nconnection: keep-alive\r\ncontent-length: ${ANSWER.length}\r\n\r\n${ANSWER}`;

export async function warmUp(plan: Plan, scale: TimeScale, secrets: SecretMask, permit: SendPermit): Promise<void> {
  const rounds = Math.min(
    MAX_ROUNDS,
    Math.max(MIN_ROUNDS, 2 * arrivalsBefore(plan, scale.toModelMs(2000), MAX_ROUNDS)),
  );
  warmPureCode(plan, scale, secrets, rounds);
  await warmClient(plan, rounds, permit);
}

function warmPureCode(plan: Plan, scale: TimeScale, secrets: SecretMask, rounds: number): void {
  const scenario = plan.scenario;
  const rng = createRng(0);
  const parser = new ResponseParser();
  const response = Buffer.from(RESPONSE);
  // The run's own handling of each fate, into a throwaway Recorder; the lines go nowhere.
  const events = new RequestEvents({
    plan,
    sink: new EventSink(plan),
    watch: new TargetWatch(scale),
    secrets,
    write: () => {},
    onTargetGone: () => {},
  });
  for (let i = 0; i < rounds; i++) {
    textBodyBytes(generateNote(rng, { minChars: scenario.payload.minChars, maxChars: scenario.payload.maxChars }));
    const r = parser.push(response);
    if (r === undefined || parseJsonObject(r.body.toString('utf8')) === undefined) continue;
    const serviceMs = parseModelTime(r.headers['server-timing']) ?? 0;
    const tries = [{ sentAtMs: i, endAtMs: i + 1, status: r.status, serviceMs }];
    const result = {
      outcome: classifyStatus(r.status),
      status: r.status,
      attempts: 1,
      sentAtMs: i,
      lastSentAtMs: i,
      endAtMs: i + 1,
      retryAfterS: [],
      tries,
    };
    // A plan without arrivals has no position 0 to record.
    if (plan.arrivals > 0)
      events.handle({
        seq: seqInWholePlan(plan, 0),
        phase: 0,
        intendedAtMs: i,
        outcome: result.outcome,
        firedAtMs: i,
        result,
      });
  }
}

/**
 * Sends `rounds` requests through a pool of our client to an in-process stub on 127.0.0.1; bounded by STUB_BUDGET_MS.
 */
async function warmClient(plan: Plan, rounds: number, permit: SendPermit): Promise<void> {
  const server: Server = createServer((socket) => {
    socket.setNoDelay(true);
    socket.on('error', () => {});
    // Each request arrives in one read here (one write, small, on loopback): one answer per read is enough for a
    // warm-up.
    socket.on('data', () => socket.write(RESPONSE));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  const pool = ConnectionPool.forUrl(ownLoopbackPermit(permit, url), url, STUB_CONCURRENCY);
  const rng = createRng(1);
  const until = performance.now() + STUB_BUDGET_MS;
  let sent = 0;
  const one = (): Promise<void> =>
    new Promise((resolve) => {
      const body = JSON.stringify({
        text: generateNote(rng, { minChars: plan.scenario.payload.minChars, maxChars: plan.scenario.payload.maxChars }),
      });
      const bytes = `POST /warm HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\nx-loadproof-seq: ${sent}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
      pool.request(
        bytes,
        STUB_BUDGET_MS,
        () => {},
        (_error, response) => {
          if (response !== undefined) parseJsonObject(response.body.toString('utf8'));
          resolve();
        },
      );
    });
  const chain = async (): Promise<void> => {
    while (sent < rounds && performance.now() < until) {
      sent++;
      await one();
    }
  };
  try {
    await Promise.all(Array.from({ length: STUB_CONCURRENCY }, chain));
  } finally {
    pool.close();
    server.close();
  }
}
