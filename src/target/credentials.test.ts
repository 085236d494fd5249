import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { readCredentials } from './credentials.js';

const VARS = { idVar: 'LP_ID', secretVar: 'LP_SECRET' };

function fileWith(content: string, mode = 0o600): string {
  const file = join(mkdtempSync(join(tmpdir(), 'loadproof-creds-')), 'creds.json');
  writeFileSync(file, content);
  chmodSync(file, mode);
  return file;
}

describe('readCredentials', () => {
  it('reads both variables the scenario names', async () => {
    const read = await readCredentials({
      file: undefined,
      env: { LP_ID: 'client-1', LP_SECRET: 'secret-value-1' },
      ...VARS,
    });
    expect(read).toEqual({
      credentials: { clientId: 'client-1', clientSecret: 'secret-value-1', source: '$LP_ID / $LP_SECRET' },
      warnings: [],
    });
  });

  it('reads only variables the environment holds, not members every object inherits (clientIdEnv: constructor)', async () => {
    const read = await readCredentials({ file: undefined, env: {}, idVar: 'constructor', secretVar: 'toString' });
    expect(read.credentials).toBeUndefined();
  });

  it('gives none when neither variable is set (empty counts as unset)', async () => {
    expect((await readCredentials({ file: undefined, env: { LP_ID: '' }, ...VARS })).credentials).toBeUndefined();
  });

  it('refuses one variable without the other, naming both and not the value', async () => {
    const read = readCredentials({ file: undefined, env: { LP_SECRET: 'secret-value-2' }, ...VARS });
    await expect(read).rejects.toThrow(
      '$LP_SECRET is set but $LP_ID is not: both are needed (names from target.credentials)',
    );
    await expect(read).rejects.not.toThrow('secret-value-2');
  });

  it('prefers the file, in camelCase or snake_case, over the variables', async () => {
    const env = { LP_ID: 'from-env', LP_SECRET: 'from-env-secret' };
    for (const content of [
      '{"clientId":"c","clientSecret":"file-secret"}',
      '{"client_id":"c","client_secret":"file-secret"}',
    ]) {
      const file = fileWith(content);
      expect(await readCredentials({ file, env, ...VARS })).toEqual({
        credentials: { clientId: 'c', clientSecret: 'file-secret', source: `--credentials ${file}` },
        warnings: [],
      });
    }
  });

  it.each([
    { octal: '600', mode: 0o600, warning: undefined },
    { octal: '640', mode: 0o640, warning: 'is readable by its group (mode 640)' },
    { octal: '604', mode: 0o604, warning: 'is readable by others (mode 604)' },
  ])('mode $octal: warns only when group or others can read the file', async ({ mode, warning }) => {
    const file = fileWith('{"clientId":"c","clientSecret":"file-secret"}', mode);
    const { warnings } = await readCredentials({ file, env: {}, ...VARS });
    if (warning === undefined) expect(warnings).toEqual([]);
    else expect(warnings).toEqual([`--credentials ${file} ${warning}; chmod 600 ${file}`]);
  });

  it('names a missing file without guessing at its content', async () => {
    await expect(readCredentials({ file: '/nonexistent/creds.json', env: {}, ...VARS })).rejects.toThrow(
      '--credentials /nonexistent/creds.json: cannot read it (ENOENT)',
    );
  });
});
