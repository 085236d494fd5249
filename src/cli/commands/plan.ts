/** `loadproof plan <scenario>`: the dry run. Loads, validates and plans the scenario; sends nothing. */
import type { Argv } from 'yargs';
import { UsageError } from '../../core/errors.js';
import { EXIT } from '../../core/exit-codes.js';
import { buildPlan, describePlan, planNotes } from '../../plan/index.js';
import { loadScenario } from '../../scenario/index.js';
import type { Io } from '../io.js';

export function planOptions<T>(y: Argv<T>) {
  return y
    .positional('scenario', { type: 'string', demandOption: true, describe: 'Scenario file (YAML or JSON)' })
    .option('time-scale', { type: 'number', default: 1, describe: 'k: run k times fast against the mock (rates × k, durations ÷ k)' })
    .option('json', { type: 'boolean', default: false, describe: 'Print the plan as JSON (without the arrival times)' });
}

type PlanArgs = Awaited<ReturnType<typeof planOptions>['argv']>;

export async function runPlan(args: PlanArgs, io: Io): Promise<number> {
  const timeScale = args['time-scale'];
  if (!(timeScale > 0) || !Number.isFinite(timeScale)) throw new UsageError(`--time-scale: expected a number > 0, got ${timeScale}`);
  const plan = buildPlan(await loadScenario(args.scenario), { timeScale });
  if (args.json) {
    const phases = plan.phases.map(({ arrivalsMs, band, ...rest }) => ({ ...rest, requests: arrivalsMs.length, band: band?.band ?? null, p95TargetMs: band?.p95TargetMs ?? null }));
    io.stdout(`${JSON.stringify({ scenario: plan.scenario.name, durationMs: plan.durationMs, requests: plan.arrivals, timeScale, phases, notes: planNotes(plan) }, null, 2)}\n`);
  } else {
    io.stdout(describePlan(plan));
  }
  return EXIT.pass;
}
