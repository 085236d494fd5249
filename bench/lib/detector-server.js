// A second peer of the mock's throughput bench: the bare node:http server of bench/baseline-server.js, but
// answering each request with the mock's own PHI detector and answer JSON (dist/): the mock's detection
// without its service model (auth, limiter, fleet, Server-Timing, stats). The mock ÷ this peer is the cost of
// that model alone; this peer ÷ the bare one is the cost of the detector. Prints its URL on stdout.
import { createServer } from 'node:http';

import { detectPhi } from '../../dist/mock/phi/detect.js';
import { identificationJson } from '../../dist/mock/routes/identification.js';
import { estimateModelTokens, IDENTIFICATION_LIMITS } from '../../dist/spec/index.js';

const cap = IDENTIFICATION_LIMITS.outputTokenCap;
const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const { text } = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    const body = identificationJson(detectPhi(text, cap), estimateModelTokens(text), cap);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.listen(0, '127.0.0.1', () =>
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${server.address().port}` })}\n`),
);
process.on('SIGTERM', () => server.close(() => process.exit(0)));
