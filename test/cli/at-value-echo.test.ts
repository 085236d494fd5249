/**
 * A bad --at is echoed in its error as every other flag's value is: escaped, on one line. A carriage return or a
 * line feed in it must not reach the terminal raw (a CR returns to the start of the line and the rest overwrites
 * what the message said; an LF makes a line of the caller's choosing look like loadproof's own).
 */
import { describe, expect, it } from 'vitest';

import { runCli, scenarioWorkspace } from '../helpers/cli.js';

const SCENARIO = 'name: at-echo\ndescription: one phase\nphases:\n  - { name: steady, duration: 1m, rpm: 60 }\n';

describe('--at: a bad value is echoed escaped', () => {
  it.each(['plan', 'notice'])('%s --at with CR LF: exit 2, the value shown escaped on one line', async (command) => {
    const { file } = scenarioWorkspace(SCENARIO);
    const { code, stderr } = await runCli([command, file, '--at', '2026-12-15T09:00:00Z\r\nloadproof: Guard: ALLOWED']);
    expect(code).toBe(2);
    expect(stderr).toContain('--at');
    expect(stderr).not.toContain('\r');
    expect(stderr).not.toMatch(/^loadproof: Guard: ALLOWED/m);
  });
});
