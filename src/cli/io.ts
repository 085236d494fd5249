import { SecretMask } from '../core/index.js';

/** The CLI's window on the process, injected so commands are testable without a real process. */
export interface Io {
  /**
   * Both print through `printable`: a secret registered in `secrets` never reaches the terminal, nor does a raw control
   * character.
   */
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /**
   * Data, not a message (`deid`'s obfuscated document): printed exactly, secrets masked, when stdout is a
   * pipe or a file; escaped as messages are when stdout is a terminal (see {@link dataText}).
   */
  readonly stdoutData: (text: string) => void;
  /** The secrets of this process (client secret, tokens), added as soon as they are known. */
  readonly secrets: SecretMask;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The arguments after `loadproof`, as given (a run's manifest records them, secrets masked). */
  readonly argv: readonly string[];
  /** The working directory (a run's manifest records its git commit). */
  readonly cwd: string;
  /** stderr is a terminal: the run's live progress is one updating line there, a line every 10 s elsewhere. */
  readonly stderrIsTTY: boolean;
  /** The terminal's width in columns, when stderr is one (it may change while the run goes). */
  readonly stderrColumns: () => number | undefined;
  /**
   * Standard input, read to its end as UTF-8 (`loadproof deid -`); undefined when it holds more than `maxBytes`
   * (reading stops there).
   */
  readonly readStdin: (maxBytes: number) => Promise<string | undefined>;
  /** Resolves with the first SIGINT or SIGTERM. */
  readonly waitForSignal: () => Promise<'SIGINT' | 'SIGTERM'>;
}

/** The one terminal control loadproof writes itself: the live progress line's erase (return, CSI 2K). */
const ERASE_LINE = '\r\x1b[2K';
/**
 * Characters that act on a terminal or reorder what it shows: controls (C0, DEL, C1), bidi and other format characters,
 * line separators.
 */
const INVISIBLE = /\r\n|[\t\n]|[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;
const u = (unit: number): string => `\\u${unit.toString(16).padStart(4, '0')}`;

/**
 * Text as it may reach a terminal: every control, bidi and format character escaped as \uXXXX (a
 * character beyond U+FFFF as its two UTF-16 units, so a JSON document printed stays valid JSON with the
 * same meaning), except loadproof's own line breaks: newline, tab, CR LF, and the progress line's
 * erase at the start of a write. One mechanism for every line every command prints: a scenario's
 * text, a server's answer or a document cannot colour, clear, move or write the clipboard (OSC 52).
 */
export function terminalText(text: string): string {
  const own = text.startsWith(ERASE_LINE) ? ERASE_LINE : '';
  return (
    own +
    text
      .slice(own.length)
      .replace(INVISIBLE, (c) =>
        c === '\r\n' || c === '\n' || c === '\t'
          ? c
          : Array.from({ length: c.length }, (_, i) => u(c.charCodeAt(i))).join(''),
      )
  );
}

/** What a command prints, on its way out: secrets masked (every form), then made safe for a terminal. */
export function printable(secrets: SecretMask, text: string): string {
  return terminalText(secrets.redact(text));
}

/**
 * Data as it is printed: secrets masked always; escaped as a message only on a terminal. Into a pipe or a
 * file a document's soft hyphens, RLMs or form feeds are its own characters, and must arrive as they are.
 */
export function dataText(secrets: SecretMask, text: string, isTTY: boolean): string {
  return isTTY ? printable(secrets, text) : secrets.redact(text);
}

/**
 * Writes to a standard stream that the reader may close (`loadproof run … | head`): once it is
 * closed (EPIPE), further text is dropped instead of crashing the run, whose files are its record.
 */
function closableWriter(stream: NodeJS.WriteStream): (text: string) => void {
  let closed = false;
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE' || error.code === 'ERR_STREAM_DESTROYED') closed = true;
    else throw error;
  });
  return (text) => {
    if (!closed && !stream.destroyed) stream.write(text);
  };
}

/** The real process. Only this file and bin.ts touch `process`. */
export function processIo(): Io {
  const secrets = new SecretMask();
  const stdout = closableWriter(process.stdout);
  const stderr = closableWriter(process.stderr);
  return {
    stdout: (text) => stdout(printable(secrets, text)),
    stderr: (text) => stderr(printable(secrets, text)),
    stdoutData: (text) => stdout(dataText(secrets, text, process.stdout.isTTY === true)),
    secrets,
    env: process.env,
    argv: process.argv.slice(2),
    cwd: process.cwd(),
    stderrIsTTY: process.stderr.isTTY === true,
    stderrColumns: () => process.stderr.columns,
    readStdin: async (maxBytes) => {
      const chunks: Buffer[] = [];
      let bytes = 0;
      for await (const chunk of process.stdin) {
        chunks.push(chunk as Buffer);
        bytes += (chunk as Buffer).length;
        // Leaving the loop destroys the stream: nothing more is read, however much more there is.
        if (bytes > maxBytes) return undefined;
      }
      return Buffer.concat(chunks).toString('utf8');
    },
    waitForSignal: () =>
      new Promise((resolve) => {
        const on = (signal: 'SIGINT' | 'SIGTERM') => (): void => {
          process.off('SIGINT', onInt);
          process.off('SIGTERM', onTerm);
          resolve(signal);
        };
        const onInt = on('SIGINT');
        const onTerm = on('SIGTERM');
        process.on('SIGINT', onInt);
        process.on('SIGTERM', onTerm);
      }),
  };
}
