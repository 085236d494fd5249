/** The CLI's window on the process, injected so commands are testable without a real process. */
export interface Io {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Resolves with the first SIGINT or SIGTERM. */
  readonly waitForSignal: () => Promise<'SIGINT' | 'SIGTERM'>;
}

/** The real process. Only this file and bin.ts touch `process`. */
export function processIo(): Io {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
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
