/** One phase of a scenario: a constant rate or a ramp, for a duration, with an optional warmup. */
import * as z from 'zod';

import { PHASE_NAME } from '../core/index.js';
import { SCENARIO_BOUNDS as B } from './bounds.js';
import { parseDurationMs } from './duration.js';
import { duration, PHASE_RANGE, rpm } from './schema-fields.js';

export const PhaseSchema = z
  .strictObject({
    name: z.string().regex(PHASE_NAME, {
      error: 'expected a phase name of letters, digits, ".", "_" or "-" (at most 40)',
    }),
    duration: duration('a duration', B.phaseMs, PHASE_RANGE),
    rpm: rpm('rpm').optional().describe('Constant rate: requests per minute'),
    fromRpm: rpm('fromRpm').optional().describe('Ramp: rate at the start of the phase'),
    toRpm: rpm('toRpm').optional().describe('Ramp: rate at the end of the phase'),
    warmup: duration('warmup', B.phaseMs, PHASE_RANGE)
      .optional()
      .describe('Leading part of the phase left out of its steady-state verdict'),
  })
  .superRefine((phase, ctx) => {
    const ramp = phase.fromRpm !== undefined || phase.toRpm !== undefined;
    if (phase.rpm !== undefined && ramp)
      ctx.addIssue({
        code: 'custom',
        path: ['rpm'],
        message: 'give either rpm (constant) or fromRpm and toRpm (ramp), not both',
      });
    else if (phase.rpm === undefined && !ramp)
      ctx.addIssue({
        code: 'custom',
        path: ['rpm'],
        message: 'expected rpm (constant rate) or fromRpm and toRpm (ramp)',
      });
    else if (phase.fromRpm !== undefined && phase.toRpm === undefined)
      ctx.addIssue({ code: 'custom', path: ['toRpm'], message: 'a ramp needs toRpm (the rate at its end)' });
    else if (phase.toRpm !== undefined && phase.fromRpm === undefined)
      ctx.addIssue({ code: 'custom', path: ['fromRpm'], message: 'a ramp needs fromRpm (the rate at its start)' });
    const durationMs = parseDurationMs(phase.duration) ?? 0;
    const warmupMs = phase.warmup === undefined ? 0 : (parseDurationMs(phase.warmup) ?? 0);
    if (warmupMs >= durationMs && phase.warmup !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['warmup'],
        message: `expected warmup shorter than the phase (${phase.duration})`,
      });
  });
