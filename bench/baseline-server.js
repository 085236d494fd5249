// The peer the mock is measured against: a bare node:http server that reads and parses the same
// JSON body and answers a fixed JSON of the same shape. Prints its URL on stdout.
import { createServer } from 'node:http';

const answer = JSON.stringify({
  entities: [{ type: 'NAME', text: 'John Smith', start: 8, end: 18, score: 0.93 }],
  truncated: false,
  usage: { input_tokens: 174, output_tokens: 149, output_token_cap: 300 },
});
const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    JSON.parse(Buffer.concat(chunks).toString('utf8'));
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer) });
    res.end(answer);
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${server.address().port}` })}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
