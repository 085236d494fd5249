/**
 * The client credentials of a run: from `--credentials <file>` (JSON) or from the environment
 * variables the scenario names (target.credentials). Never from the scenario itself. No message
 * here quotes a value read from the file or the environment: only names, paths and modes.
 */
import { readFile, stat } from 'node:fs/promises';

import { UsageError } from '../core/index.js';

export interface Credentials {
  readonly clientId: string;
  readonly clientSecret: string;
  /**
   * Where they came from, for messages: "$LOADPROOF_CLIENT_ID / $LOADPROOF_CLIENT_SECRET" or "--credentials
   * creds.json".
   */
  readonly source: string;
}

interface CredentialOptions {
  /** --credentials: a JSON file { "clientId": …, "clientSecret": … }. */
  readonly file: string | undefined;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Names of the variables (target.credentials). */
  readonly idVar: string;
  readonly secretVar: string;
}

interface CredentialsRead {
  /** undefined when neither the file nor the variables give any. */
  readonly credentials: Credentials | undefined;
  /** Things the user should fix, printed as warnings (e.g. a file others can read). */
  readonly warnings: readonly string[];
}

const FILE_FORM = 'a JSON object {"clientId": "…", "clientSecret": "…"}';

export async function readCredentials(options: CredentialOptions): Promise<CredentialsRead> {
  if (options.file !== undefined) return readFromFile(options.file);
  // The names come from the scenario: read only what the environment holds, never an inherited member.
  const variable = (name: string): string | undefined =>
    Object.hasOwn(options.env, name) ? options.env[name] : undefined;
  const id = nonEmpty(variable(options.idVar));
  const secret = nonEmpty(variable(options.secretVar));
  if (id === undefined && secret === undefined) return { credentials: undefined, warnings: [] };
  if (id === undefined || secret === undefined) {
    const [set, unset] = id === undefined ? [options.secretVar, options.idVar] : [options.idVar, options.secretVar];
    throw new UsageError(
      `$${set} is set but $${unset} is not: both are needed (names from target.credentials)`,
      `set $${unset}, or pass --credentials <file>`,
    );
  }
  return {
    credentials: { clientId: id, clientSecret: secret, source: `$${options.idVar} / $${options.secretVar}` },
    warnings: [],
  };
}

const nonEmpty = (value: string | undefined): string | undefined =>
  value === undefined || value === '' ? undefined : value;

async function readFromFile(file: string): Promise<CredentialsRead> {
  let text: string;
  let mode: number;
  try {
    mode = (await stat(file)).mode;
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(
      `--credentials ${file}: cannot read it (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`,
      `expected ${FILE_FORM}`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // The parser's message quotes the text, which may be the secret: say only that it is not JSON.
    throw new UsageError(`--credentials ${file}: not valid JSON (its content is not shown)`, `expected ${FILE_FORM}`);
  }
  const record =
    typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  const field = (camel: string, snake: string): string => {
    const value = record[camel] ?? record[snake];
    if (typeof value !== 'string' || value === '') {
      throw new UsageError(
        `--credentials ${file}: ${camel}: expected a non-empty string, got ${value === undefined ? 'nothing' : `a ${Array.isArray(value) ? 'list' : typeof value} (not shown)`}`,
        `expected ${FILE_FORM}`,
      );
    }
    return value;
  };
  const credentials = {
    clientId: field('clientId', 'client_id'),
    clientSecret: field('clientSecret', 'client_secret'),
    source: `--credentials ${file}`,
  };
  // Group or others may read it: the secret is as safe as the least careful account on the machine.
  const warnings =
    process.platform !== 'win32' && (mode & 0o044) !== 0
      ? [
          `--credentials ${file} is readable by ${(mode & 0o004) !== 0 ? 'others' : 'its group'} (mode ${(mode & 0o777).toString(8).padStart(3, '0')}); chmod 600 ${file}`,
        ]
      : [];
  return { credentials, warnings };
}
