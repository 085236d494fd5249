/**
 * A flag given twice takes its last value (docs/reference/cli.md), numeric
 * flags included. yargs-parser took a repeated number equal to 1 for a count and added it
 * (`--time-scale 20 --time-scale 1` planned at 21). Every numeric option of every command is
 * enumerated from the CLI's own command table, so a new one is covered without a new test.
 */
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';
import yargs from 'yargs';

import { cliParser, loadCommands } from '../../src/cli/main.js';
import { runMain } from '../helpers/cli.js';

const SUSTAINED = fileURLToPath(new URL('../../scenarios/sustained.yaml', import.meta.url));

/** The numeric options each command declares (its builder alone, as yargs records them). */
const numericOptions = (await loadCommands()).flatMap((entry) => {
  const y = entry.options(yargs([]));
  const numbers = (y as unknown as { getOptions(): { number?: string[] } }).getOptions().number ?? [];
  return numbers.map((option) => ({ command: entry.name, usage: entry.usage, option }));
});

/** Placeholder values for the command's positionals, so that only the flag is under test. */
const positionals = (usage: string): string[] => [...usage.matchAll(/<[^>]+>/g)].map((_, i) => `placeholder-${i}`);

async function parsed(usage: string, flags: string[]): Promise<Record<string, unknown>> {
  let seen: Record<string, unknown> | undefined;
  const parser = await cliParser([usage.split(' ')[0]!, ...positionals(usage), ...flags], (_entry, args) => {
    seen = args as Record<string, unknown>;
  });
  await parser.parseAsync();
  return seen!;
}

describe('a repeated numeric flag takes its last value', () => {
  it('finds the numeric options of the commands', () => {
    const names = numericOptions.map((o) => `${o.command} --${o.option}`);
    expect(names).toEqual(
      expect.arrayContaining([
        'run --time-scale',
        'probe --max-rpm',
        'deid --concurrency',
        'mock --port',
        'run --metrics-port',
      ]),
    );
  });

  it.each(numericOptions)('$command --$option', async ({ usage, option }) => {
    for (const [first, last] of [
      ['20', '1'],
      ['3', '1'],
      ['1', '3'],
      ['1', '1'],
      ['0.5', '2'],
    ] as const) {
      const args = await parsed(usage, [`--${option}`, first, `--${option}`, last]);
      expect(args[option], `--${option} ${first} --${option} ${last}`).toBe(Number(last));
      const spelled = await parsed(usage, [`--${option}=${first}`, `--${option}=${last}`]);
      expect(spelled[option]).toBe(Number(last));
    }
    // Given once it is the number given; given empty it is not a number (not 0: for a port 0 means "any").
    expect((await parsed(usage, [`--${option}`, '7']))[option]).toBe(7);
    expect((await parsed(usage, [`--${option}=`]))[option]).toBeNaN();
    // Given bare (after a value, or alone), it is refused, not counted as 1 and added.
    for (const flags of [[`--${option}`, '2', `--${option}`], [`--${option}`]]) {
      await expect(parsed(usage, flags), flags.join(' ')).rejects.toThrow(/Not enough arguments following: /);
    }
  });

  it('plans at the last --time-scale, end to end', async () => {
    for (const flags of [
      ['--time-scale', '20', '--time-scale', '1'],
      ['--time-scale', '3', '--time-scale', '1'],
    ]) {
      const { code, stdout } = await runMain(['plan', SUSTAINED, ...flags]);
      expect(code).toBe(0);
      expect(stdout).toContain('Duration: 10m of model time\n');
    }
    const { stdout } = await runMain(['plan', SUSTAINED, '--time-scale', '1', '--time-scale', '20']);
    expect(stdout).toContain('at time scale 20 it runs in 30s of wall time');
  });
});
