// Memory of the mock under unfinished bodies: 400 raw connections (200 token, 200 identification)
// each send a chunked JSON body of up to 1 MiB in 64 KiB chunks and never finish it. The mock runs
// as `loadproof mock` in a child process; its RSS is read from /__mock/stats before, while the
// bodies are held, and after the sockets close. Loopback only; bounded in count and time.
// Usage: npm run bench:mock-abuse   (BENCH_CONNECTIONS, default 400; BENCH_BODY_BYTES, default 1 MiB)
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 400);
const BODY_BYTES = Number(process.env.BENCH_BODY_BYTES ?? 1024 * 1024);
const CHUNK = Buffer.alloc(64 * 1024, 'x');
const LIMIT_MS = 60_000;
const BIN = fileURLToPath(new URL('../bin/loadproof.js', import.meta.url));

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const mib = (bytes) =>
  bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(0)} KiB` : `${(bytes / 1024 / 1024).toFixed(0)} MiB`;

const child = spawn(process.execPath, [BIN, 'mock', '--port', '0', '--json', '--profile', 'zero'], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
const info = await new Promise((resolve, reject) => {
  let out = '';
  child.stdout.on('data', (d) => {
    out += d;
    if (out.includes('\n')) resolve(JSON.parse(out.slice(0, out.indexOf('\n'))));
  });
  child.once('exit', (code) => reject(new Error(`mock exited ${code}`)));
});
const url = new URL(info.url);
if (url.hostname !== '127.0.0.1') throw new Error('loopback only');
const stats = async () => (await fetch(`${info.url}/__mock/stats`)).json();

const tokenReply = await fetch(`${info.url}/oauth/token`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({
    client_id: info.clientId,
    client_secret: info.clientSecret,
    audience: info.audience,
    grant_type: 'client_credentials',
  }),
});
const { access_token: token } = await tokenReply.json();

/** One connection that streams a body of BODY_BYTES and never ends it; resolves when it has sent all or was closed. */
function abuse(i) {
  return new Promise((resolve) => {
    const path = i % 2 === 0 ? '/oauth/token' : '/entityextraction/pipelines/vendor-phi-identification';
    const socket = connect(Number(url.port), url.hostname);
    const state = { socket, closed: false, status: '' };
    let sent = 0;
    socket.on('error', () => undefined);
    socket.on('data', (d) => (state.status ||= String(d).slice(9, 12)));
    socket.on('close', () => {
      state.closed = true;
      resolve(state);
    });
    const pump = () => {
      while (!state.closed && sent < BODY_BYTES) {
        const chunk = CHUNK.subarray(0, Math.min(CHUNK.length, BODY_BYTES - sent));
        sent += chunk.length;
        if (!socket.write(`${chunk.length.toString(16)}\r\n`) || !socket.write(chunk) || !socket.write('\r\n'))
          return void socket.once('drain', pump);
      }
      if (!state.closed) resolve(state);
    };
    socket.once('connect', () => {
      socket.write(
        `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\nauthorization: Bearer ${token}\r\ntransfer-encoding: chunked\r\n\r\n`,
      );
      pump();
    });
  });
}

try {
  await sleep(500);
  const before = await stats();
  const started = Date.now();
  const results = await Promise.race([
    Promise.all(Array.from({ length: CONNECTIONS }, (_, i) => abuse(i))),
    sleep(LIMIT_MS).then(() => null),
  ]);
  if (results === null) throw new Error(`the bodies were not all sent or refused within ${LIMIT_MS} ms`);
  await sleep(500);
  const during = await stats();
  const closed = results.filter((r) => r.closed).length;
  const statuses = {};
  for (const r of results) if (r.status) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
  for (const r of results) r.socket.destroy();
  await sleep(2000);
  const after = await stats();
  console.log(
    `${CONNECTIONS} unfinished bodies of up to ${mib(BODY_BYTES)} (${((Date.now() - started) / 1000).toFixed(1)} s)`,
  );
  console.log(
    `  closed by the mock: ${closed}; held open: ${CONNECTIONS - closed}; answers: ${JSON.stringify(statuses)}`,
  );
  const memory = (key) =>
    `before ${mib(before.memory[key])}, while held ${mib(during.memory[key])}, after close ${mib(after.memory[key])}`;
  console.log(`  RSS ${memory('rssBytes')}; heap used ${memory('heapUsedBytes')}`);
  if (during.buffered !== undefined) {
    console.log(`  buffered while held: ${JSON.stringify(during.buffered)}`);
    console.log(`  buffered after close: ${JSON.stringify(after.buffered)}`);
  }
} finally {
  child.kill('SIGTERM');
}
