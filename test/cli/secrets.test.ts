/**
 * The leak scan: no secret leaks, end to end. The real CLI runs every command —
 * run (pass, fail, refused, interrupted, auth failing, real environment, bad credentials), report, merge,
 * compare, probe, check, deid, notice, plan, mock — with client secrets holding every JSON and URL special
 * character (`"` `\` `/` `%` `+` `&` `=` `<` `>` `'`, space, control characters, non-ASCII), against
 * loadproof's mock and against an echo server (test/helpers/echo-server.ts) whose token endpoint echoes the
 * request body and whose API echoes the Authorization header. Every byte printed and every file written
 * is searched for each secret and each access token issued: raw, JSON-escaped once and twice,
 * URL-encoded (%20 and +), form-encoded, HTML-escaped, base64 (and `Basic base64(id:secret)`), and for the
 * secret's canary word alone (which any textual form keeps) and its base64 at every alignment; and for
 * any access token prefix or Authorization header.
 *
 * A passing run, an interrupted one, a refused one, a token failure and the mock are real child processes
 * (what the process prints on its own streams, masked by src/cli/io.ts); the rest run the built CLI's main()
 * in-process (runMain) with the same Io, to keep the scan fast: small scenarios, k ≤ 20, runs reused by
 * report, compare and merge.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { MOCK_TOKEN_PREFIX, type MockServer, startMockServer } from '../../src/mock/index.js';
import { API_PATHS } from '../../src/spec/index.js';
import { runCli, runFolders, runMain, scenarioWorkspace, startCli } from '../helpers/cli.js';
import { ECHO_TOKEN_PREFIX, type EchoServer, startEchoServer } from '../helpers/echo-server.js';
import { postJson } from '../helpers/http.js';

// k = 20: at 60 a wall second is a model minute, and the client's 1 s (wall) floor on its timeout let
// one of 6 requests time out on a busy machine (an error-rate fail, exit 1, where 5 was expected).
const K = 20;
const canary = (): string => `canary${randomBytes(9).toString('hex')}`;
/** Every JSON and URL special character, controls (C0, DEL), non-ASCII (2, 3 and 4 bytes) and a bidi override. */
const SECRET = `${canary()} "q"\\b/s%25+p&a=e<l>'x' sp\u0001\u001f\u007fé中😀\u202e`;
/**
 * What RFC 6749 lets an error_description hold (no `"`, no `\`, ASCII): a server's words that loadproof quotes, masked.
 */
const PLAIN_SECRET = `${canary()} /s%25+p&a=e<l>'x' sp~`;
const CLIENT_ID = 'leak-test-client';
const DAYS_20_AGO = new Date(Date.now() - 20 * 86_400_000).toISOString().slice(0, 10);

let server: MockServer | undefined;
let echo: EchoServer | undefined;
afterEach(async () => {
  await server?.close();
  await echo?.close();
  server = undefined;
  echo = undefined;
});

interface Workspace {
  readonly dir: string;
  readonly file: string;
  readonly out: string;
  readonly creds: string;
}

/** A scenario workspace plus a credentials file (mode 600). */
function workspace(scenario: string, credentials: unknown = { clientId: CLIENT_ID, clientSecret: SECRET }): Workspace {
  // The credentials file sits beside the scenario, outside `out`: the only file searched that may hold the secret is
  // the one given.
  const { dir, file, out } = scenarioWorkspace(scenario);
  const creds = join(dir, 'credentials.json');
  writeFileSync(creds, typeof credentials === 'string' ? credentials : JSON.stringify(credentials));
  chmodSync(creds, 0o600);
  return { dir, file, out, creds };
}

const embedded = (phases: string): string =>
  `name: leak\ndescription: a run with a distinctive secret\nphases:\n${phases}`;
const atMock = (url: string, environment: 'mock' | 'sandbox', extra = ''): string =>
  `name: leak\ndescription: a run with a distinctive secret\ntarget:\n  environment: ${environment}\n  baseUrl: ${url}\nphases:\n  - { name: short, duration: 3s, rpm: 60 }\n${extra}`;
/** The echo server as the target (a user's own stub: time scale 1): 10 identification requests in 2 s. */
const atEcho = (url: string, extra = ''): string =>
  atMock(url, 'mock', extra).replace('duration: 3s, rpm: 60', 'duration: 2s, rpm: 300');
/** The secrets in the environment of commands that read none: a leak would be theirs alone. */
const SECRET_ENV = { LOADPROOF_CLIENT_ID: CLIENT_ID, LOADPROOF_CLIENT_SECRET: SECRET };
const STEADY = '  - { name: steady, duration: 2m, rpm: 100, warmup: 10s }\n';

/** Every file the run wrote, recursively. */
function writtenFiles(dir: string): string[] {
  let found: string[] = [];
  try {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      // reports/latest links to a run folder that is walked anyway.
      if (entry.isSymbolicLink()) continue;
      found = entry.isDirectory() ? [...found, ...writtenFiles(path)] : [...found, path];
    }
  } catch {
    // No report folder: nothing written.
  }
  return found;
}

/**
 * The base64 characters that depend on `text` alone, at each of the 3 alignments it can have inside a longer encoding.
 */
function base64Cores(text: string): string[] {
  const bytes = Buffer.from(text, 'utf8');
  return [0, 1, 2].map((offset) =>
    Buffer.concat([Buffer.alloc(offset), bytes])
      .toString('base64')
      .slice(Math.ceil((8 * offset) / 6), Math.floor((8 * (offset + bytes.length)) / 6)),
  );
}

const jsonOnce = (text: string): string => JSON.stringify(text).slice(1, -1);
const html = (text: string): string =>
  text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');

/**
 * The forms a value is searched in: raw, JSON once and twice, URL- and form-encoded, HTML-escaped, base64 (alone and as
 * Basic id:value).
 */
function formsOf(value: string): string[] {
  const url = encodeURIComponent(value);
  return [
    value,
    jsonOnce(value),
    jsonOnce(jsonOnce(value)),
    url,
    url.replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase()),
    url.replaceAll('%20', '+'),
    new URLSearchParams({ v: value }).toString().slice(2),
    html(value),
    Buffer.from(value).toString('base64'),
    Buffer.from(`${CLIENT_ID}:${value}`).toString('base64'),
  ];
}

/** Every text printed or written, with where it was. */
const textsOf = (printed: string, dirs: readonly string[]): { where: string; text: string }[] => [
  { where: 'stdout+stderr', text: printed },
  ...dirs.flatMap((dir) => writtenFiles(dir).map((f) => ({ where: f, text: readFileSync(f, 'latin1') }))),
];

/**
 * Asserts that nothing printed (`printed`) or written (every file under `dirs`) holds a secret in any form,
 * its canary word (any textual form keeps it) or the canary's base64, an access token in any form (`tokens`:
 * those the echo server issued), a token prefix, or an Authorization header.
 */
function expectNoLeak(printed: string, dirs: string | readonly string[], tokens: readonly string[] = []): void {
  const secrets = [SECRET, PLAIN_SECRET];
  const needles = [
    ...secrets.flatMap((secret) => {
      const word = secret.split(' ')[0]!;
      return [...formsOf(secret), word, ...base64Cores(word)].map((form) => ({
        form,
        what: `a client secret as ${JSON.stringify(form)}`,
      }));
    }),
    ...tokens.flatMap((token) => formsOf(token).map((form) => ({ form, what: `an access token as ${form}` }))),
    ...[MOCK_TOKEN_PREFIX, ECHO_TOKEN_PREFIX].map((form) => ({ form, what: `an access token (${form}…)` })),
  ];
  for (const { where, text } of textsOf(printed, typeof dirs === 'string' ? [dirs] : dirs)) {
    for (const { form, what } of needles) expect(text.includes(form), `${where} contains ${what}`).toBe(false);
    expect(/authorization\s*:/i.test(text), `${where} contains an Authorization header`).toBe(false);
  }
}

/** Run folders reused by report and compare (the tests run in order). */
let real = '';
let echoed: { dir: string; out: string; tokens: string[]; code: number } | undefined;

describe('the client secret and access tokens never leak', () => {
  it('the mock tokens this test looks for do carry the prefix (so the search is not vacuous)', async () => {
    const s = (server = await startMockServer({ clientId: CLIENT_ID, clientSecret: SECRET }));
    const reply = await postJson(s.url + API_PATHS.token, {
      client_id: CLIENT_ID,
      client_secret: SECRET,
      audience: s.audience,
      grant_type: 'client_credentials',
    });
    expect(reply.json.access_token.startsWith(MOCK_TOKEN_PREFIX)).toBe(true);
  });

  it('passing run (embedded mock, --credentials file, --verbose)', async () => {
    const w = workspace(embedded('  - { name: steady, duration: 1m, rpm: 100, warmup: 10s }\n'));
    // k = 20: at k = 60 a wall second is a model minute, and beside other load timeouts of 1 wall
    // second failed this run's error check (exit 1). A busy machine can still make the generator late
    // beyond its budget: then the honest verdict is inconclusive (exit 5, said in the output), which
    // ends the run the same way for the secret.
    const { code, stdout, stderr } = await runCli([
      'run',
      w.file,
      '--time-scale',
      '20',
      '--out',
      w.out,
      '--credentials',
      w.creds,
      '--verbose',
    ]);
    if (code === 5) expect(stdout + stderr).toContain('the generator was late');
    else expect(code).toBe(0);
    // The secret was used (the embedded mock only accepts it) and verbose logging ran.
    expect(stderr).toContain('token: POST');
    expect(stderr).toContain('→ 200');
    expect(stderr).toContain('request: {"seq":0');
    expect(stderr).not.toContain('warning');
    expectNoLeak(stdout + stderr, w.out);
  });

  it('failing run (degraded mock)', async () => {
    const w = workspace(embedded('  - { name: steady, duration: 1m, rpm: 100, warmup: 10s }\n'));
    // k = 10: a fail stands only where the tool's worst lateness (× k in model time) cannot have caused it; beside
    // a CPU hog even k = 10 × a stall of the mock's thread can, and the verdict is then honestly inconclusive (exit 5).
    // What this test asserts is that nothing leaks from a run that did not pass, either way.
    const { code, stdout, stderr } = await runMain([
      'run',
      '--no-charts',
      w.file,
      '--time-scale',
      '10',
      '--out',
      w.out,
      '--credentials',
      w.creds,
      '--verbose',
      '--mock-profile',
      'degraded',
    ]);
    expect([1, 5], stdout).toContain(code);
    expect(stderr).toContain('request: {"seq":');
    expectNoLeak(stdout + stderr, w.out);
  });

  it('refused run (sandbox without a notice), secret in the environment', async () => {
    const s = (server = await startMockServer({ timeScale: 1, clientId: CLIENT_ID, clientSecret: SECRET }));
    const w = workspace(atMock(s.url, 'sandbox'));
    const { code, stdout, stderr } = await runCli(
      ['run', '--no-charts', w.file, '--out', w.out, '--verbose', '--allow-loopback-as-real'],
      { LOADPROOF_CLIENT_ID: CLIENT_ID, LOADPROOF_CLIENT_SECRET: SECRET },
    );
    expect(code).toBe(3);
    expectNoLeak(stdout + stderr, w.out);
  });

  it('interrupted run (SIGINT during the load)', async () => {
    const w = workspace(embedded('  - { name: long, duration: 10m, rpm: 100 }\n'));
    const cli = startCli([
      'run',
      '--no-charts',
      w.file,
      '--time-scale',
      String(K),
      '--out',
      w.out,
      '--credentials',
      w.creds,
      '--verbose',
    ]);
    let seen = '';
    await new Promise<void>((resolve) => {
      cli.child.stderr.on('data', (chunk: string) => {
        seen += chunk;
        if (seen.split('request: ').length > 20) resolve();
      });
      void cli.exited.then(() => resolve());
    });
    cli.child.kill('SIGINT');
    const { code, stdout, stderr } = await cli.exited;
    expect(code).toBe(130);
    expectNoLeak(stdout + stderr, w.out);
  });

  it('token failure: the token endpoint echoes the request (body, form, Basic) in its 401; secret in the environment (a process)', async () => {
    const e = (echo = await startEchoServer({ secret: SECRET, refuseAll: true }));
    const w = workspace(atEcho(e.url));
    const { code, stdout, stderr } = await runCli(['run', w.file, '--out', w.out, '--verbose'], SECRET_ENV);
    expect(code).toBe(4);
    expect(stderr).toContain('AUTH_FAILED');
    expect(stderr).toContain('The server said: invalid_client — (its description is not shown');
    expect(e.counts.token).toBe(1);
    expect(e.counts.identification).toBe(0);
    expectNoLeak(stdout + stderr, w.out);
  });

  // The case: the AUTH message quotes the server; run.json, summary.json and junit.xml escape it again.
  it.each([
    {
      name: 'every special character (its echo is not plain RFC 6749 text: withheld)',
      secret: SECRET,
      says: '(its description is not shown',
    },
    {
      name: 'RFC 6749 text (quoted, masked in every form)',
      secret: PLAIN_SECRET,
      says: 'client_secret=[redacted] as [redacted] Basic ',
    },
  ])('token failure with a secret of $name: every file of the run and every line printed', async ({ secret, says }) => {
    const e = (echo = await startEchoServer({ secret, refuseAll: true }));
    const w = workspace(atEcho(e.url), { clientId: CLIENT_ID, clientSecret: secret });
    const { code, stdout, stderr } = await runMain(
      ['run', w.file, '--out', w.out, '--credentials', w.creds, '--verbose'],
      {},
    );
    expect(code).toBe(4);
    expectNoLeak(stdout + stderr, w.out);
    expect(stderr).toContain(says);
    const [folder] = runFolders(w.out);
    for (const file of ['run.json', 'summary.json', 'junit.xml'])
      expect(readFileSync(join(w.out, folder!, file), 'utf8')).toContain('cannot authenticate');
  });

  it('a real-environment run (sandbox, announced, loopback as real)', async () => {
    const s = (server = await startMockServer({ timeScale: 1, clientId: CLIENT_ID, clientSecret: SECRET }));
    const w = workspace(atMock(s.url, 'sandbox', `notice: { announcedOn: '${DAYS_20_AGO}', reference: CASE-1 }\n`));
    const { code, stdout, stderr } = await runMain([
      'run',
      '--no-charts',
      w.file,
      '--out',
      w.out,
      '--credentials',
      w.creds,
      '--verbose',
      '--allow-loopback-as-real',
    ]);
    expect(code).toBe(5);
    expect(s.stats().requests.identification.received).toBe(3);
    expectNoLeak(stdout + stderr, w.out);
    real = join(w.out, runFolders(w.out)[0]!);
  });

  it.each([
    { name: 'not JSON', content: `clientSecret=${SECRET}`, says: 'not valid JSON (its content is not shown)' },
    {
      name: 'a secret of the wrong type',
      content: JSON.stringify({ clientId: CLIENT_ID, clientSecret: [SECRET] }),
      says: 'clientSecret: expected a non-empty string, got a list (not shown)',
    },
    {
      name: 'no clientSecret',
      content: JSON.stringify({ clientId: CLIENT_ID, secret: SECRET }),
      says: 'clientSecret: expected a non-empty string, got nothing',
    },
  ])('a bad credentials file ($name): exit 2, its content not shown', async ({ content, says }) => {
    const w = workspace(embedded(STEADY), content);
    const { code, stdout, stderr } = await runMain([
      'run',
      '--no-charts',
      w.file,
      '--time-scale',
      String(K),
      '--out',
      w.out,
      '--credentials',
      w.creds,
    ]);
    expect(code).toBe(2);
    expect(stderr).toContain(says);
    expectNoLeak(stdout + stderr, w.out);
  });

  it('warns when the credentials file is readable by others, and still does not print it', async () => {
    const w = workspace(embedded('  - { name: one, duration: 1m, rpm: 6 }\n'));
    chmodSync(w.creds, 0o644);
    expect(statSync(w.creds).mode & 0o777).toBe(0o644);
    const { code, stdout, stderr } = await runMain([
      'run',
      '--no-charts',
      w.file,
      '--time-scale',
      String(K),
      '--out',
      w.out,
      '--credentials',
      w.creds,
    ]);
    // 6 requests cannot decide a p95 (exit 5); a request the machine's stall timed out fails the error
    // check (exit 1). Either way the run ran to its end: the warning and the leak search are the point.
    expect([1, 5]).toContain(code);
    expect(stderr).toContain(
      `loadproof: warning: --credentials ${w.creds} is readable by others (mode 644); chmod 600 ${w.creds}`,
    );
    expectNoLeak(stdout + stderr, w.out);
  });

  it('a run against an API that echoes the Authorization header (in 2xx answers, error bodies, a 429 code, plain text)', async () => {
    const e = (echo = await startEchoServer({ secret: SECRET }));
    const w = workspace(atEcho(e.url));
    const { code, stdout, stderr } = await runMain(
      ['run', w.file, '--out', w.out, '--credentials', w.creds, '--verbose'],
      {},
    );
    // Errors on 3 requests in 4: the SLA is not met (inconclusive if a busy machine made the generator late).
    expect([1, 5], stderr).toContain(code);
    expect(e.counts.identification).toBe(10);
    const dir = join(w.out, runFolders(w.out)[0]!);
    // The 429s were counted, and their code (the token itself) was not kept.
    const events = readFileSync(join(dir, 'events.ndjson'), 'utf8');
    expect(events).toContain('"status":429');
    expect(events).not.toContain('errorCode');
    echoed = { dir, out: w.out, tokens: e.issued, code };
    expect(e.issued).toHaveLength(1);
    expectNoLeak(stdout + stderr, w.out, e.issued);
  });

  it('a de-identification run (mode: deid) against the echoing API: documents.ndjson too', async () => {
    const e = (echo = await startEchoServer({ secret: SECRET }));
    const w = workspace(
      `name: leak\ndescription: deid through an echoing API\ntarget: { environment: mock, baseUrl: "${e.url}" }\nmode: deid\ndeid: { concurrency: 2, style: tag }\npayload: { lengths: { short: 1 }, seed: 3 }\nphases:\n  - { name: docs, duration: 2s, rpm: 120 }\n`,
    );
    const { code, stdout, stderr } = await runMain(
      ['run', w.file, '--out', w.out, '--credentials', w.creds, '--verbose'],
      {},
    );
    expect(code, stderr).not.toBe(2);
    const dir = join(w.out, runFolders(w.out)[0]!);
    expect(readdirSync(dir)).toContain('documents.ndjson');
    expect(e.counts.identification).toBeGreaterThan(0);
    expectNoLeak(stdout + stderr, w.out, e.issued);
  });

  it('report, verify and compare of those runs, with the secret in the environment', async () => {
    expect(echoed).toBeDefined();
    const { dir, out, tokens, code } = echoed!;
    // brief.md is written again, naming the client_id (asked for): never the secret or a token, as the scan below says.
    const report = await runMain(['report', dir, '--brief-client-id', CLIENT_ID], SECRET_ENV);
    expect(report.code, report.stderr).toBe(code);
    const verify = await runMain(['verify', dir], SECRET_ENV);
    expect(verify.code, verify.stderr).toBe(0);
    const compare = await runMain(['compare', real, dir], SECRET_ENV);
    expect([0, 1, 5], compare.stderr).toContain(compare.code);
    expectNoLeak([report, verify, compare].map((r) => r.stdout + r.stderr).join(''), [out, real], tokens);
  });

  it('shards against the echoing API, and their merge', async () => {
    const e = (echo = await startEchoServer({ secret: SECRET }));
    const w = workspace(atEcho(e.url));
    // Time for both to fetch a token and warm up on a busy machine.
    const startAt = new Date(Date.now() + 4000).toISOString();
    const shards = await Promise.all(
      [0, 1].map((i) =>
        runMain(
          [
            'run',
            '--no-charts',
            w.file,
            '--shard',
            `${i}/2`,
            '--start-at',
            startAt,
            '--out',
            w.out,
            '--credentials',
            w.creds,
          ],
          {},
        ),
      ),
    );
    const folders = runFolders(w.out).map((f) => join(w.out, f));
    expect(folders).toHaveLength(2);
    const merged = await runMain(['merge', '--no-charts', ...folders, '--out', join(w.dir, 'merged')], SECRET_ENV);
    expect(merged.stdout, merged.stderr).toContain('merged from 2 shards');
    expectNoLeak(
      [...shards, merged].map((r) => r.stdout + r.stderr).join(''),
      [w.out, join(w.dir, 'merged')],
      e.issued,
    );
  });

  it('probe, check and deid against the echoing API', async () => {
    const e = (echo = await startEchoServer({ secret: SECRET }));
    const w = workspace(atEcho(e.url));
    const probe = await runMain(
      [
        'probe',
        w.file,
        '--endpoint',
        'identification',
        '--connections',
        '1,2',
        '--step',
        '1s',
        '--max-rpm',
        '120',
        '--out',
        w.out,
        '--credentials',
        w.creds,
      ],
      {},
    );
    expect(runFolders(w.out)).toHaveLength(1);
    const check = await runMain(['check', w.file, '--credentials', w.creds], {});
    const checkJson = await runMain(['check', w.file, '--credentials', w.creds, '--json'], {});
    expect(e.counts.identification).toBeGreaterThanOrEqual(2);
    await e.close();
    // deid through an API that answers every identification, so its obfuscation (echoing the header) is reached.
    const d = (echo = await startEchoServer({ secret: SECRET, answerAll: true }));
    writeFileSync(w.file, atEcho(d.url));
    const doc = join(w.dir, 'note.txt');
    writeFileSync(doc, 'Patient John Smith (MRN 12345678), seen 04/12/2026.\n');
    const deid = await runMain(['deid', doc, '--scenario', w.file, '--credentials', w.creds, '--json'], {});
    const deidPlain = await runMain(['deid', doc, '--scenario', w.file, '--credentials', w.creds, '--show-values'], {});
    for (const r of [probe, check, checkJson, deid, deidPlain]) expect(r.code, r.stderr).not.toBe(2);
    // The echo reached what deid prints (the obfuscated text), masked: the scan below is not vacuous.
    expect(deidPlain.stdout, deidPlain.stderr).toContain('(Bearer [redacted])');
    expectNoLeak([probe, check, checkJson, deid, deidPlain].map((r) => r.stdout + r.stderr).join(''), w.out, [
      ...e.issued,
      ...d.issued,
    ]);
  });

  it('plan, notice and schema, with the secret in the environment', async () => {
    const w = workspace(
      atMock('http://127.0.0.1:9', 'sandbox', `notice: { announcedOn: '${DAYS_20_AGO}', reference: CASE-1 }\n`),
    );
    mkdirSync(w.out);
    const results = [
      await runMain(['plan', w.file, '--allow-loopback-as-real'], SECRET_ENV),
      await runMain(
        [
          'notice',
          w.file,
          '--at',
          new Date(Date.now() + 20 * 86_400_000).toISOString(),
          '--out',
          join(w.out, 'notice.md'),
        ],
        SECRET_ENV,
      ),
      await runMain(['schema'], SECRET_ENV),
    ];
    expectNoLeak(results.map((r) => r.stdout + r.stderr).join(''), w.out);
  });

  it('the mock (a process), given the secret it accepts: its banner does not print it', async () => {
    const cli = startCli(['mock', '--port', '0', '--client-id', CLIENT_ID, '--client-secret', SECRET], SECRET_ENV);
    const first = await cli.firstLine;
    expect(first).toContain('loadproof mock listening on http://127.0.0.1:');
    cli.child.kill('SIGINT');
    const { code, stdout, stderr } = await cli.exited;
    expect(code).toBe(0);
    expect(stdout).toContain('client_secret (as given by --client-secret)');
    expectNoLeak(stdout + stderr, []);
  });
});
