// The peer the mock and the engine are measured against: a bare node:http server that reads and parses
// the same JSON body and answers a fixed JSON of the same shape. It also answers what loadproof asks
// before its load (POST /oauth/token: a token; a GET, as for the mock's stats: the same fixed JSON), so
// `loadproof run` can drive it. Prints its URL on stdout.
import { createServer } from 'node:http';

const answer = JSON.stringify({
  entities: [{ type: 'NAME', text: 'John Smith', start: 8, end: 18, score: 0.93 }],
  truncated: false,
  usage: { input_tokens: 174, output_tokens: 149, output_token_cap: 300 },
});
const token = JSON.stringify({ access_token: 'bench-token', token_type: 'Bearer', expires_in: 86_400 });
// What the benches ask of the server itself: GET /__bench/mark answers the requests answered since the
// last mark and how they arrived, per 10 ms slot, so that CPU is divided by the requests that were served
// and a tool's pacing can be seen from the server's side.
const SLOT_MS = 10;
let markedAt = performance.now();
let served = 0;
let slots = [];
const mark = () => {
  const answer = { served, slotMs: SLOT_MS, slots: Array.from(slots, (n) => n ?? 0) };
  markedAt = performance.now();
  served = 0;
  slots = [];
  return JSON.stringify(answer);
};
const server = createServer((req, res) => {
  if (req.url === '/__bench/mark') {
    const body = mark();
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
    return;
  }
  const slot = Math.floor((performance.now() - markedAt) / SLOT_MS);
  slots[slot] = (slots[slot] ?? 0) + 1;
  served++;
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    if (chunks.length > 0) JSON.parse(Buffer.concat(chunks).toString('utf8'));
    const body = req.url === '/oauth/token' ? token : answer;
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.listen(0, '127.0.0.1', () =>
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${server.address().port}` })}\n`),
);
process.on('SIGTERM', () => server.close(() => process.exit(0)));
