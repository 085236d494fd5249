// The floor of even pacing in Node, for bench/engine-cpu.js: a bare open-model client on node:net that
// sends a prebuilt request at each intended time (every arrival due on a wake goes out on that wake) and
// stamps each answer, and does nothing else: no payload per request, no parsing beyond the answer's
// length, no histogram, no event line, no report. What loadproof costs above it is what its per-request
// record costs; what it costs above autocannon -R is what even pacing costs (autocannon sends each
// second's quota back to back, so its wake-ups serve many requests each).
// Usage: node bench/lib/paced-client.js <url> <rate req/s> <seconds> <body> [maxInFlight]. Says "load started" on
// stderr when its first arrival is due; prints {planned, sent, answered, dropped, sendLagP99Ms} as JSON on stdout at
// the end. With maxInFlight, an arrival that finds that many requests unanswered is dropped, as loadproof's engine
// drops it: past the server's capacity neither client keeps opening connections, so the two share one budget.
// Send lag is taken as loadproof takes it (its firedAtMs is stamped when the request's headers are written to the
// socket): the time after each write minus the arrival's intended time, so the two are compared on one measure.
import { connect } from 'node:net';

const [url, rateText, secondsText, body, maxInFlightText] = process.argv.slice(2);
const maxInFlight = maxInFlightText === undefined ? Infinity : Number(maxInFlightText);
const { hostname, port } = new URL(url);
const rate = Number(rateText);
const total = Math.round(rate * Number(secondsText));
const request = Buffer.from(
  `POST /entityextraction/pipelines/vendor-phi-identification HTTP/1.1\r\nhost: ${hostname}:${port}\r\n` +
    `authorization: Bearer bench-token\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
);
const CONTENT_LENGTH = /content-length: *(\d+)/i;

const lag = new Float64Array(total);
const idle = [];
let reached = 0;
let sent = 0;
let answered = 0;
let dropped = 0;
let t0 = 0;

/** One keep-alive connection: one request at a time; an answer ends at its head plus Content-Length. */
function open() {
  const socket = connect(Number(port), hostname);
  socket.setNoDelay(true);
  let pending = Buffer.alloc(0);
  socket.on('data', (chunk) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    const headEnd = pending.indexOf('\r\n\r\n');
    if (headEnd < 0) return;
    const length = Number(CONTENT_LENGTH.exec(pending.toString('latin1', 0, headEnd))?.[1] ?? 0);
    if (pending.length < headEnd + 4 + length) return;
    pending = pending.subarray(headEnd + 4 + length);
    answered++;
    idle.push(socket);
    if (answered + dropped === total) finish();
  });
  socket.on('error', () => {});
  return socket;
}

function fire() {
  while (reached < total && (reached * 1000) / rate <= performance.now() - t0) {
    if (sent - answered >= maxInFlight) dropped++;
    else {
      (idle.pop() ?? open()).write(request);
      lag[sent++] = performance.now() - t0 - (reached * 1000) / rate;
    }
    reached++;
  }
  if (reached === total && answered + dropped === total) finish();
  else if (reached < total) setTimeout(fire, Math.max(0, (reached * 1000) / rate - (performance.now() - t0)));
}

function finish() {
  const sorted = Array.from(lag.subarray(0, sent)).sort((a, b) => a - b);
  process.stdout.write(
    `${JSON.stringify({ planned: total, sent, answered, dropped, sendLagP99Ms: sorted[Math.ceil(0.99 * sorted.length) - 1] ?? null })}\n`,
  );
  process.exit(0);
}

// Connections for the first 10 ms of arrivals opened first, as loadproof's warm-up opens its own.
for (let i = 0; i < Math.max(1, Math.ceil(rate / 100)); i++) idle.push(open());
setTimeout(() => {
  process.stderr.write('load started\n');
  t0 = performance.now();
  fire();
}, 200);
// Bounded: whatever is unanswered 5 s after the last arrival is given up.
setTimeout(finish, (total / rate) * 1000 + 5200).unref();
