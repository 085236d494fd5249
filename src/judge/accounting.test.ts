import { describe, expect, it } from 'vitest';

import { type AccountingInput, accountLatency } from './accounting.js';

/** Raw times are model ms = wall ms × k; "ow" marks wall-clock overhead × k. */
const cases: { name: string; k: number; input: AccountingInput; latencyMs: number; serviceMs: number }[] = [
  {
    name: 'k = 1: the raw measurement, Server-Timing or not',
    k: 1,
    input: { intendedAtMs: 0, lastSentAtMs: 2, endAtMs: 605, tries: [{ sentAtMs: 2, endAtMs: 605, serviceMs: 600 }] },
    latencyMs: 605,
    serviceMs: 603,
  },
  {
    // 2 ms of wall lag (40 model ms) and 3 ms of wall transport (60): 100 ms of overhead, counted once: 5.
    name: 'k = 20: the service as the mock modelled it, the overheads ÷ k',
    k: 20,
    input: { intendedAtMs: 0, lastSentAtMs: 40, endAtMs: 700, tries: [{ sentAtMs: 40, endAtMs: 700, serviceMs: 600 }] },
    latencyMs: 605,
    serviceMs: 603,
  },
  {
    // A 429 at once, a chosen wait of 1,000, then 500 in service: 1,500 of model time; 160 of overhead → 8.
    name: 'k = 20 with a retry: the chosen wait counts as it is, its lateness once',
    k: 20,
    input: {
      intendedAtMs: 0,
      lastSentAtMs: 1060,
      endAtMs: 1660,
      tries: [
        { sentAtMs: 0, endAtMs: 40, serviceMs: 0 },
        { sentAtMs: 1060, endAtMs: 1660, serviceMs: 500, waitMs: 1000 },
      ],
    },
    latencyMs: 1508,
    serviceMs: 505,
  },
  {
    // The mock ran its model 20 wall ms (400 model ms) behind the real clock and said so (`lag`): the answer
    // came 400 later than its model time. Counted out, not as 20 ms of overhead: the same as without the lag.
    name: 'k = 20, the mock held the answer for its lag: not overhead, not service',
    k: 20,
    input: {
      intendedAtMs: 0,
      lastSentAtMs: 40,
      endAtMs: 1100,
      tries: [{ sentAtMs: 40, endAtMs: 1100, serviceMs: 600, lagMs: 400 }],
    },
    latencyMs: 605,
    serviceMs: 603,
  },
  {
    name: 'k = 20, no attempt with Server-Timing (a timeout): measured as today',
    k: 20,
    input: { intendedAtMs: 0, lastSentAtMs: 20, endAtMs: 15_020, tries: [{ sentAtMs: 20, endAtMs: 15_020 }] },
    latencyMs: 15_020,
    serviceMs: 15_000,
  },
  {
    // First try reset after 300 (no header: kept whole), a wait of 200, then 400 in service: 900 kept, 40 of overhead →
    // 2.
    name: 'k = 20, a try without the header, then one with it',
    k: 20,
    input: {
      intendedAtMs: 0,
      lastSentAtMs: 520,
      endAtMs: 940,
      tries: [
        { sentAtMs: 0, endAtMs: 300 },
        { sentAtMs: 520, endAtMs: 940, serviceMs: 400, waitMs: 200 },
      ],
    },
    latencyMs: 902,
    serviceMs: 401,
  },
  {
    name: 'k = 20, the last try without the header: its service time is measured as today',
    k: 20,
    input: {
      intendedAtMs: 0,
      lastSentAtMs: 100,
      endAtMs: 400,
      tries: [
        { sentAtMs: 0, endAtMs: 60, serviceMs: 0 },
        { sentAtMs: 100, endAtMs: 400, waitMs: 20 },
      ],
    },
    latencyMs: 320 + 80 / 20,
    serviceMs: 300,
  },
  {
    name: 'no tries recorded (an old events file): raw',
    k: 60,
    input: { intendedAtMs: 0, lastSentAtMs: 60, endAtMs: 1200, tries: [] },
    latencyMs: 1200,
    serviceMs: 1140,
  },
];

describe('accountLatency', () => {
  it.each(cases)('$name', ({ k, input, latencyMs, serviceMs }) => {
    const got = accountLatency(input, k);
    expect(got.latencyMs).toBeCloseTo(latencyMs, 9);
    expect(got.serviceMs).toBeCloseTo(serviceMs, 9);
  });
});
