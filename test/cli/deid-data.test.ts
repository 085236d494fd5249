/**
 * `deid` once corrupted its own output. Every control and format character on
 * stdout was escaped even into a pipe or a file, so a soft hyphen, an RLM or a form feed of the document
 * came out as the text `\u00ad`, `\u200f`, `\u000c`. The obfuscated document is data, not a message: the
 * Io's data channel prints it exactly (secrets masked) when stdout is not a terminal, and escaped when it
 * is one; messages stay escaped everywhere (terminal-escapes.test.ts).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { dataText } from '../../src/cli/io.js';
import { SecretMask } from '../../src/core/redact.js';
import { runCli, scenarioWorkspace } from '../helpers/cli.js';

const SPECIALS = 'co\u00adoperate \u200fRLM\u200f page\fbreak tab\there \u2028sep \u{E0001}tag';
const DOC = `Patient John Smith was seen. ${SPECIALS}\n`;

describe('deid: the obfuscated document is data', () => {
  it('a piped child process gets the exact characters of the document (soft hyphen, RLM, form feed, …)', async () => {
    const { dir } = scenarioWorkspace('unused: true\n');
    const file = join(dir, 'doc.txt');
    writeFileSync(file, DOC);
    // k = 5: a call's wall deadline is 3.2 s, room for a busy machine (see deid.test.ts).
    const { code, stdout, stderr } = await runCli(['deid', file, '--time-scale', '5']);
    expect(code, stderr).toBe(0);
    expect(stdout).toBe(`Patient [NAME] was seen. ${SPECIALS}\n`);
    expect(stdout).not.toContain('\\u');
    // Messages are still escaped: the replacement table and summary hold no raw control.
    expect(stderr).not.toMatch(/[\u00ad\u200f\f]/);
  });

  it('--json into a pipe is the exact JSON of the text', async () => {
    const { dir } = scenarioWorkspace('unused: true\n');
    const file = join(dir, 'doc.txt');
    writeFileSync(file, DOC);
    const { code, stdout, stderr } = await runCli(['deid', file, '--time-scale', '5', '--json']);
    expect(code, stderr).toBe(0);
    expect((JSON.parse(stdout) as { text: string }).text).toBe(`Patient [NAME] was seen. ${SPECIALS}\n`);
  });

  it('the data channel: exact into a pipe or file, escaped on a terminal, secrets masked in both', () => {
    const secrets = new SecretMask();
    secrets.add('s3cr3t-value-xyz');
    const text = `a\u00adb \u200f \f \x1b[31m s3cr3t-value-xyz\n`;
    const piped = dataText(secrets, text, false);
    expect(piped).toBe(secrets.redact(text));
    expect(piped).not.toContain('s3cr3t-value-xyz');
    expect(piped).toContain('a\u00adb \u200f \f \x1b[31m');
    const tty = dataText(secrets, text, true);
    expect(tty).not.toContain('s3cr3t-value-xyz');
    expect(tty).toContain('a\\u00adb \\u200f \\u000c \\u001b[31m');
    expect(tty).not.toMatch(/[\u00ad\u200f\f\x1b]/);
  });
});
