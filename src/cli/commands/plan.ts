/**
 * `loadproof plan <scenario>`: the dry run. Loads, validates and plans the scenario, shows the guard's decision; sends
 * nothing.
 */
import type { Argv } from 'yargs';

import { EXIT, TimeScale, UsageError } from '../../core/index.js';
import { describeDecision, describePredicted429s, evaluateGuard, parseStartAt } from '../../guard/index.js';
import { describePlan, effectiveLimits, jobDeadlineS, planNotes, predict429s } from '../../plan/index.js';
import { planScenario } from '../../run/index.js';
import { loadScenario } from '../../scenario/index.js';
import type { Io } from '../io.js';
import { LOOPBACK_AS_REAL_OPTION } from './target-options.js';

export function planOptions<T>(y: Argv<T>) {
  return y
    .positional('scenario', { type: 'string', demandOption: true, describe: 'Scenario file (YAML or JSON)' })
    .option('time-scale', {
      type: 'number',
      default: 1,
      describe: 'k, from 1 to 1000: run k times fast against the mock (rates × k, durations ÷ k)',
    })
    .option('at', {
      type: 'string',
      describe: 'Judge a run starting then (ISO date-time with a zone, or a date = 00:00 UTC); default now',
    })
    .option('allow-loopback-as-real', LOOPBACK_AS_REAL_OPTION)
    .option('json', {
      type: 'boolean',
      default: false,
      describe: 'Print the plan and the guard decision as JSON (without the arrival times)',
    })
    .option('job-deadline', {
      type: 'boolean',
      default: false,
      describe:
        "Print only the activeDeadlineSeconds of a Kubernetes Job made now that runs this plan from --at (deploy/kubernetes: JOB_DEADLINE_S); the guard's refusal still exits 3",
    });
}

type PlanArgs = Awaited<ReturnType<typeof planOptions>['argv']>;

/** Exit 0 when the guard would allow the run, 3 when it would refuse it. */
export async function runPlan(args: PlanArgs, io: Io): Promise<number> {
  const timeScale = TimeScale.of(args['time-scale']).k;
  const at = args.at === undefined ? { ms: Date.now() } : parseStartAt(args.at);
  if ('problem' in at) throw new UsageError(at.problem);
  const { plan } = planScenario(await loadScenario(args.scenario), args.scenario, timeScale);
  const guard = evaluateGuard(plan, { startAtMs: at.ms, loopbackAsReal: args['allow-loopback-as-real'] });
  const limits = effectiveLimits(plan.scenario);
  const predicted429s = predict429s(plan, limits);
  if (args['job-deadline']) {
    io.stdout(`${jobDeadlineS(plan, at.ms - Date.now())}\n`);
    if (!guard.allowed) io.stderr(`${describeDecision(guard).join('\n')}\n`);
  } else if (args.json) {
    const phases = plan.phases.map(({ arrivalsMs, bands, ...rest }) => ({
      ...rest,
      requests: arrivalsMs.length,
      bands: bands.map(({ band, ...slice }) => ({
        band: band?.band ?? null,
        p95TargetMs: band?.p95TargetMs ?? null,
        ...slice,
      })),
    }));
    io.stdout(
      `${JSON.stringify({ scenario: plan.scenario.name, durationMs: plan.durationMs, requests: plan.arrivals, timeScale, phases, notes: planNotes(plan), predicted429s, guard }, null, 2)}\n`,
    );
  } else {
    io.stdout(
      `${describePlan(plan)}\n${describePredicted429s(plan, predicted429s, limits).join('\n')}\n\n${describeDecision(guard).join('\n')}\n\nNothing was sent: plan is a dry run.\n`,
    );
  }
  return guard.allowed ? EXIT.pass : EXIT.refusedByGuard;
}
