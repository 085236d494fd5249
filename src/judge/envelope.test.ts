/**
 * The envelope judge against simulated runs: plans (the shipped scenarios, Poisson, random phases)
 * sent with send lag and transit, through a limiter written here on its own (a token bucket that
 * refills in steps at a random alignment to our clock, full at the first request it sees unless a
 * case starts it emptier). A correct limiter must never give a finding, whatever it held at the start;
 * one 10 % tighter than documented must. Seeded, no sleeping, no sockets.
 */
import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import { createRng, nextExponential, nextInt, pick, type Rng } from '../core/rng.js';
import { buildPlan, type Plan } from '../plan/index.js';
import { AttemptLog, type RecordableEvent } from '../recorder/index.js';
import { parseScenario } from '../scenario/index.js';
import type { EnvelopeLimits } from '../spec/index.js';
import {
  bucketCapacityTokens,
  type BucketStart,
  describeEnvelopePhase,
  envelopeFindings,
  envelopeMarginTokens,
} from './envelope.js';

const DOCUMENTED: EnvelopeLimits = { sustainedRpm: 100, burstRpm: 200, burstMinutes: 5 };
const TIGHTER: EnvelopeLimits = { sustainedRpm: 90, burstRpm: 180, burstMinutes: 5 };
const SHIPPED = ['sustained', 'burst', 'sandbox-burst', 'spike', 'ci-regression', 'capacity-step'];

const scenarioText = (name: string): string =>
  readFileSync(new URL(`../../scenarios/${name}.yaml`, import.meta.url), 'utf8');
const planOf = (text: string, arrivals = ''): Plan => buildPlan(parseScenario(`${text}\n${arrivals}`, 'test.yaml'));
const poisson = (seed: number): string => `arrivals: { process: poisson, seed: ${seed} }\n`;

/**
 * The service's limiter, written apart from the judge: refills `stepMs` at a time (0: continuously), steps at
 * `offsetMs` + k·stepMs.
 */
class SteppedBucket {
  private tokens: number;
  private step = Number.NaN;
  private lastMs = Number.NaN;
  private readonly capacity: number;

  constructor(
    private readonly limits: EnvelopeLimits,
    private readonly stepMs: number,
    private readonly offsetMs: number,
    startTokens?: number,
  ) {
    this.capacity = Math.max(0, (limits.burstRpm - limits.sustainedRpm) * limits.burstMinutes) + 1;
    this.tokens = startTokens ?? this.capacity;
  }

  /** Takes a token at `atMs` if a whole one is there; else the ms until one will be. */
  take(atMs: number): { ok: true } | { ok: false; waitMs: number } {
    const perMs = this.limits.sustainedRpm / 60_000;
    if (this.stepMs === 0) {
      if (!Number.isNaN(this.lastMs)) this.tokens = Math.min(this.capacity, this.tokens + (atMs - this.lastMs) * perMs);
      this.lastMs = atMs;
    } else {
      const step = Math.floor((atMs - this.offsetMs) / this.stepMs);
      if (!Number.isNaN(this.step))
        this.tokens = Math.min(this.capacity, this.tokens + (step - this.step) * this.stepMs * perMs);
      this.step = step;
    }
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return { ok: true };
    }
    return { ok: false, waitMs: Math.max(this.stepMs, (1 - this.tokens) / perMs) };
  }
}

interface Timing {
  /**
   * Event-loop stalls: how many per minute of plan, and the longest (model ms). Arrivals due in one fire at its end.
   */
  readonly stallsPerMinute: number;
  readonly stallMaxMs: number;
  /** One-way transit (model ms): each way takes between half of it and all of it. */
  readonly transitMs: number;
  /** Between the engine firing a request and the client noting its send time (model ms). */
  readonly noteMs: number;
  /**
   * A slow start: requests noted as sent in the first `untilMs` leave the client up to `maxMs` later
   * (connections being opened, code not yet compiled: seen at k = 60, 20 s of model time), a delay
   * that neither send lag nor a 429's round trip shows.
   */
  readonly slowStart?: { readonly untilMs: number; readonly maxMs: number };
}

interface Simulation {
  readonly plan: Plan;
  /** The service's limiter. */
  readonly limiter: EnvelopeLimits;
  /** Tokens in the limiter's bucket at the first request (full when absent): fewer after recent traffic. */
  readonly startTokens?: number;
  readonly stepMs: number;
  readonly timing: Timing;
  /** Retry 429s (after Retry-After, up to 3 attempts) instead of recording them. */
  readonly retry: boolean;
  /** The share of requests that never reach the server (connection refused): the judge cannot tell, and counts them. */
  readonly lost?: number;
  readonly seed: number;
}

interface Stall {
  readonly fromMs: number;
  readonly toMs: number;
}

/** When a moment inside a stall gets to run: the stall's end. */
function afterStalls(stalls: readonly Stall[], atMs: number): number {
  for (const s of stalls) if (atMs >= s.fromMs && atMs < s.toMs) return s.toMs;
  return atMs;
}

/**
 * Runs the plan through the limiter and returns the events the client would record. A request is
 * noted as sent, then reaches the server after the way there, or after a stall if one holds the
 * process (an embedded mock shares its event loop); every admitted request reached the server
 * within the run's largest send lag + one-way transit of its noted send: the lag budget.
 */
function simulate(sim: Simulation): RecordableEvent[] {
  const rng = createRng(sim.seed);
  const { timing } = sim;
  const stalls: Stall[] = [];
  for (
    let t = nextExponential(rng, 60_000 / Math.max(1e-9, timing.stallsPerMinute));
    t < sim.plan.durationMs;
    t += nextExponential(rng, 60_000 / timing.stallsPerMinute)
  ) {
    stalls.push({ fromMs: t, toMs: t + rng.next() * timing.stallMaxMs });
  }
  const bucket = new SteppedBucket(sim.limiter, sim.stepMs, rng.next() * 10_000, sim.startTokens);
  const way = (): number => timing.transitMs * (0.5 + rng.next() * 0.5);

  interface Pending {
    readonly seq: number;
    readonly phase: number;
    readonly intendedAtMs: number;
    readonly firedAtMs: number;
    readonly sentAtMs: number;
    readonly arriveAtMs: number;
    readonly tries: { sentAtMs: number; endAtMs: number; status?: number }[];
    readonly retryAfterS: number[];
  }
  const queue: Pending[] = [];
  let seq = 0;
  for (const phase of sim.plan.phases) {
    for (const intendedAtMs of phase.arrivalsMs) {
      const firedAtMs = afterStalls(stalls, intendedAtMs);
      const sentAtMs = firedAtMs + timing.noteMs;
      const leaveAtMs =
        sentAtMs +
        (timing.slowStart !== undefined && sentAtMs < timing.slowStart.untilMs
          ? rng.next() * timing.slowStart.maxMs
          : 0);
      queue.push({
        seq: seq++,
        phase: phase.index,
        intendedAtMs,
        firedAtMs,
        sentAtMs,
        arriveAtMs: afterStalls(stalls, leaveAtMs + way()),
        tries: [],
        retryAfterS: [],
      });
    }
  }
  queue.sort((a, b) => a.arriveAtMs - b.arriveAtMs);
  const events: RecordableEvent[] = [];
  while (queue.length > 0) {
    const p = queue.shift()!;
    if (rng.next() < (sim.lost ?? 0)) {
      p.tries.push({ sentAtMs: p.sentAtMs, endAtMs: p.sentAtMs + 1 });
      events.push(eventOf(p, 'refused'));
      continue;
    }
    const taken = bucket.take(p.arriveAtMs);
    if (taken.ok) {
      const endAtMs = afterStalls(stalls, p.arriveAtMs + 500 + rng.next() * 3000 + way());
      p.tries.push({ sentAtMs: p.sentAtMs, endAtMs, status: 200 });
      events.push(eventOf(p, 'ok'));
      continue;
    }
    const endAtMs = afterStalls(stalls, p.arriveAtMs + way());
    const retryAfterS = Math.max(1, Math.ceil(taken.waitMs / 1000));
    p.tries.push({ sentAtMs: p.sentAtMs, endAtMs, status: 429 });
    p.retryAfterS.push(retryAfterS);
    if (!sim.retry || p.tries.length >= 3) {
      events.push(eventOf(p, 'http_429'));
      continue;
    }
    const sentAtMs = afterStalls(stalls, endAtMs + retryAfterS * 1000 + rng.next() * 1000) + timing.noteMs;
    const next: Pending = { ...p, sentAtMs, arriveAtMs: afterStalls(stalls, sentAtMs + way()) };
    const at = queue.findIndex((q) => q.arriveAtMs > next.arriveAtMs);
    queue.splice(at === -1 ? queue.length : at, 0, next);
  }
  return events;
}

function eventOf(
  p: {
    phase: number;
    intendedAtMs: number;
    firedAtMs: number;
    tries: { sentAtMs: number; endAtMs: number; status?: number }[];
    retryAfterS: number[];
  },
  outcome: 'ok' | 'http_429' | 'refused',
): RecordableEvent {
  const last = p.tries[p.tries.length - 1]!;
  return {
    phase: p.phase,
    intendedAtMs: p.intendedAtMs,
    outcome,
    firedAtMs: p.firedAtMs,
    result: {
      ...(last.status === undefined ? {} : { status: last.status }),
      attempts: p.tries.length,
      lastSentAtMs: last.sentAtMs,
      endAtMs: last.endAtMs,
      retryAfterS: [...p.retryAfterS],
      tries: [...p.tries],
    },
  };
}

/** Nothing known of the client's traffic before the run: the judge's default. */
const UNKNOWN: BucketStart = { known: 'nothing' };
/** The user declared the client idle for 10 minutes before the run: the bucket was full. */
const IDLE_10M: BucketStart = { known: 'idle', idleBeforeMs: 600_000 };

function judge(sim: Simulation, limits: EnvelopeLimits = DOCUMENTED, start: BucketStart = UNKNOWN) {
  const log = new AttemptLog();
  for (const e of simulate(sim)) log.add(e);
  return { log, judgement: envelopeFindings(sim.plan, log, limits, start) };
}

const total = (j: ReturnType<typeof envelopeFindings>, key: 'http429' | 'findings' | 'edge'): number =>
  j.phases.reduce((sum, p) => sum + p[key], 0);

/**
 * Timing as a busy 2-core machine gives it at k = 20: stalls up to 2 s of model time (100 ms of wall time), 20–60 ms of
 * transit.
 */
function randomTiming(rng: Rng): Timing {
  return {
    stallsPerMinute: pick(rng, [0, 0.5, 2, 10]),
    stallMaxMs: pick(rng, [0, 50, 500, 2000]),
    transitMs: pick(rng, [0.5, 5, 20, 60, 300]),
    noteMs: pick(rng, [0, 2.5, 20]),
  };
}

/** A random plan: 1–5 phases, flat or ramps, 10–300 rpm, 20 s to 6 min each. */
function randomPlanText(rng: Rng): string {
  const phases = Array.from({ length: nextInt(rng, 1, 5) }, (_, i) => {
    const duration = `${nextInt(rng, 20, 360)}s`;
    return rng.next() < 0.3
      ? `  - { name: p${i}, duration: ${duration}, fromRpm: ${nextInt(rng, 10, 300)}, toRpm: ${nextInt(rng, 10, 300)} }`
      : `  - { name: p${i}, duration: ${duration}, rpm: ${nextInt(rng, 10, 300)} }`;
  });
  return `name: random\ndescription: random phases\nphases:\n${phases.join('\n')}\n`;
}

describe('envelopeFindings: a correct limiter is never a finding', () => {
  it('burst.yaml spends the allowance exactly: the recovery arrivals inside by one token are not findings', () => {
    // With constant arrivals each recovery arrival finds exactly 1.000 token in the plan; 2.5 ms
    // of noting and 20 ms of transit hand it to a neighbour (the issue: exit 1 in 3 of 3 runs).
    for (const stepMs of [0, 600, 1000]) {
      const { judgement } = judge({
        plan: planOf(scenarioText('burst')),
        limiter: DOCUMENTED,
        stepMs,
        timing: { stallsPerMinute: 2, stallMaxMs: 600, transitMs: 20, noteMs: 2.5 },
        retry: false,
        seed: 7,
      });
      expect(total(judgement, 'http429')).toBeGreaterThan(0);
      expect(total(judgement, 'findings')).toBe(0);
    }
  });

  it.each(SHIPPED.flatMap((name) => [0, 1, 2].map((seed) => ({ name, seed }))))(
    '$name (seed $seed: constant and Poisson, record and retry)',
    ({ name, seed }) => {
      const rng = createRng(1000 + seed);
      for (const arrivals of ['', poisson(seed + 1)]) {
        for (const retry of [false, true]) {
          const sim: Simulation = {
            plan: planOf(scenarioText(name), arrivals),
            limiter: DOCUMENTED,
            stepMs: pick(rng, [0, 250, 600, 1000]),
            timing: randomTiming(rng),
            retry,
            seed: nextInt(rng, 1, 1e9),
          };
          const { judgement } = judge(sim);
          expect({ name, arrivals, retry, findings: total(judgement, 'findings') }).toEqual({
            name,
            arrivals,
            retry,
            findings: 0,
          });
        }
      }
    },
  );

  it('burst.yaml with a slow start: requests that left the client up to 20 s after their noted send are not findings later on', () => {
    // Seen at k = 60 on a busy machine: in the first 50 s of the warm-up (the bucket full) requests
    // reached the server up to 20 s late, bunched, so its full bucket wasted refill that the replay
    // at noted send times counted: 51 findings in the burst phase, 35 tokens where 19 were the margin.
    for (const seed of [1, 2, 3]) {
      const { judgement } = judge({
        plan: planOf(scenarioText('burst')),
        limiter: DOCUMENTED,
        stepMs: 0,
        timing: {
          stallsPerMinute: 0,
          stallMaxMs: 0,
          transitMs: 20,
          noteMs: 0,
          slowStart: { untilMs: 50_000, maxMs: 20_000 },
        },
        retry: false,
        seed,
      });
      expect(total(judgement, 'http429')).toBeGreaterThan(0);
      expect({ seed, findings: total(judgement, 'findings') }).toEqual({ seed, findings: 0 });
    }
  });

  it('capacity-step: the limiter refuses hundreds, the judge finds none (the issue: 793 findings)', () => {
    const { judgement } = judge({
      plan: planOf(scenarioText('capacity-step')),
      limiter: DOCUMENTED,
      stepMs: 0,
      timing: { stallsPerMinute: 2, stallMaxMs: 600, transitMs: 20, noteMs: 2.5 },
      retry: false,
      seed: 3,
    });
    expect(total(judgement, 'http429')).toBeGreaterThan(500);
    expect(total(judgement, 'findings')).toBe(0);
  });

  // 100 plans: 200 took 12 s of CPU on a busy machine for no case the first 100 do not already hold.
  it('100 random plans, timings, refill steps and limits (raised limits included)', () => {
    const rng = createRng(42);
    let refusals = 0;
    for (let i = 0; i < 100; i++) {
      const sustainedRpm = nextInt(rng, 20, 300);
      const raised: EnvelopeLimits =
        rng.next() < 0.3
          ? { sustainedRpm, burstRpm: sustainedRpm + nextInt(rng, 0, 200), burstMinutes: nextInt(rng, 0, 10) }
          : DOCUMENTED;
      const arrivals = rng.next() < 0.5 ? poisson(nextInt(rng, 1, 1e6)) : '';
      const sim: Simulation = {
        plan: planOf(randomPlanText(rng), arrivals),
        limiter: raised,
        stepMs: pick(rng, [0, 100, 600, 1000]),
        timing: randomTiming(rng),
        retry: rng.next() < 0.3,
        lost: pick(rng, [0, 0, 0.002]),
        seed: nextInt(rng, 1, 1e9),
      };
      const { judgement } = judge(sim, raised);
      refusals += total(judgement, 'http429');
      expect({ case: i, findings: total(judgement, 'findings') }).toEqual({ case: i, findings: 0 });
    }
    // The property is only worth something if the limiter refused plenty.
    expect(refusals).toBeGreaterThan(1000);
  });
});

describe('envelopeFindings: the bucket at the start is not known', () => {
  // The second run: 1 minute at 250 rpm right after a run that drained the client's bucket.
  const AFTER_A_DRAINING_RUN =
    'name: second\ndescription: right after another run\nphases:\n  - { name: again, duration: 1m, rpm: 250 }\n';

  it('a correct limiter whose bucket started empty admits at the refill rate: its 429s are no finding', () => {
    // Judged from a full bucket, the refill-rate admissions left it about 100 tokens short of its
    // replay: every 429 after the first seconds was a finding against a limiter set exactly as documented.
    for (const stepMs of [0, 1000]) {
      for (const seed of [1, 2, 3]) {
        const { judgement } = judge({
          plan: planOf(AFTER_A_DRAINING_RUN),
          limiter: DOCUMENTED,
          startTokens: 0,
          stepMs,
          timing: { stallsPerMinute: 2, stallMaxMs: 600, transitMs: 20, noteMs: 2.5 },
          retry: false,
          seed,
        });
        expect(total(judgement, 'http429')).toBeGreaterThan(100);
        expect({ stepMs, seed, findings: total(judgement, 'findings') }).toEqual({ stepMs, seed, findings: 0 });
      }
    }
  });
});

describe('envelopeFindings: a limiter tighter than documented is flagged', () => {
  it.each([
    { arrivals: '', label: 'constant' },
    { arrivals: poisson(5), label: 'Poisson' },
  ])(
    'burst.yaml ($label) against sustained 90, burst 180: about a hundred findings, on a busy machine too',
    ({ arrivals }) => {
      for (const timing of [
        { stallsPerMinute: 0, stallMaxMs: 0, transitMs: 1, noteMs: 0 },
        // A busy machine at k = 20: stalls of up to 2 s of model time, 60 ms of transit.
        { stallsPerMinute: 10, stallMaxMs: 2000, transitMs: 60, noteMs: 20 },
      ]) {
        const sim: Simulation = {
          plan: planOf(scenarioText('burst'), arrivals),
          limiter: TIGHTER,
          stepMs: 1000,
          timing,
          retry: false,
          seed: 11,
        };
        // Judged from an empty start (nothing known): once the tighter bucket runs dry it refills at 90 rpm, and
        // the documented one, empty at that moment, would refill at 100: the refill rate alone is the evidence.
        const { judgement } = judge(sim);
        expect(total(judgement, 'findings')).toBeGreaterThan(50);
        // Declared idle before the run, the full start adds what the documented bucket's extra 50 tokens allow.
        const declared = judge(sim, DOCUMENTED, IDLE_10M).judgement;
        expect(total(declared, 'findings')).toBeGreaterThanOrEqual(total(judgement, 'findings'));
        expect(total(judgement, 'findings') + total(judgement, 'edge')).toBeLessThanOrEqual(
          total(declared, 'findings') + total(declared, 'edge'),
        );
        expect(describeEnvelopePhase(judgement.phases[1]!)).toMatch(
          /^\d+ 429s on requests the documented limits clearly allow .*: a finding against the service/,
        );
      }
    },
  );

  it('raised limits move the envelope: what a limiter at 100/150 refuses in spike.yaml is a finding against limits raised to 150/300', () => {
    const sim: Simulation = {
      plan: planOf(scenarioText('spike')),
      limiter: { sustainedRpm: 100, burstRpm: 150, burstMinutes: 5 },
      stepMs: 0,
      timing: { stallsPerMinute: 0, stallMaxMs: 0, transitMs: 5, noteMs: 0 },
      retry: false,
      seed: 1,
    };
    expect(
      total(judge(sim, { sustainedRpm: 150, burstRpm: 300, burstMinutes: 5 }).judgement, 'findings'),
    ).toBeGreaterThan(50);
    expect(total(judge(sim, sim.limiter).judgement, 'findings')).toBe(0);
  });
});

describe('envelopeFindings: the rule, by hand', () => {
  /** A log from (sentAtMs, endAtMs, status) attempts, one request each, phase 0, no send lag. */
  function logOf(attempts: readonly [number, number, number][], lagMs = 0): AttemptLog {
    const log = new AttemptLog();
    for (const [sentAtMs, endAtMs, status] of attempts) {
      log.add({
        phase: 0,
        intendedAtMs: sentAtMs - lagMs,
        outcome: status === 429 ? 'http_429' : 'ok',
        firedAtMs: sentAtMs,
        result: {
          status,
          attempts: 1,
          lastSentAtMs: sentAtMs,
          endAtMs,
          retryAfterS: [],
          tries: [{ sentAtMs, endAtMs, status }],
        },
      });
    }
    return log;
  }
  // A bucket of 5 tokens refilled at 60 rpm, one a second: (64 − 60) × 1 + 1.
  const SMALL: EnvelopeLimits = { sustainedRpm: 60, burstRpm: 64, burstMinutes: 1 };
  const onePlan = { phases: [0] };
  /** Declared idle for a minute before the run: SMALL's bucket full at the start. */
  const SMALL_FULL: BucketStart = { known: 'idle', idleBeforeMs: 60_000 };

  it('has the capacity and margin it documents', () => {
    expect(bucketCapacityTokens(DOCUMENTED)).toBe(501);
    expect(bucketCapacityTokens(SMALL)).toBe(5);
    // 100 rpm × 1 s + 1 token = 2.67 tokens: the figure in docs/concepts.md.
    expect(envelopeMarginTokens(DOCUMENTED)).toBeCloseTo(100 / 60 + 1, 10);
    expect(envelopeMarginTokens(SMALL)).toBeCloseTo(2, 10);
  });

  it('judges on the requests admitted, wherever in [send, answer] they met the bucket: outside, edge and finding', () => {
    // Five admitted, sent at 0–40 ms and answered at 500 ms: at worst all five met the full bucket
    // just before 500 ms (5 → 0), which then holds 1 a second later. Margin: 1/s × 1 s + 1 = 2 tokens.
    const admitted: [number, number, number][] = [0, 10, 20, 30, 40].map((t) => [t, 500, 200]);
    const outside = envelopeFindings(onePlan, logOf([...admitted, [500, 510, 429]]), SMALL, UNKNOWN);
    expect(outside.phases[0]).toMatchObject({ http429: 1, findings: 0, edge: 0 });
    expect(outside.marginTokens).toBeCloseTo(2, 10);
    expect(outside.phases[0]!.maxTokensAt429).toBeCloseTo(0, 10);
    const edge = envelopeFindings(onePlan, logOf([...admitted, [2000, 2010, 429]]), SMALL, UNKNOWN);
    expect(edge.phases[0]).toMatchObject({ http429: 1, findings: 0, edge: 1 });
    expect(edge.phases[0]!.maxTokensAt429).toBeCloseTo(1.5, 10);
    const finding = envelopeFindings(onePlan, logOf([...admitted, [4500, 4510, 429]]), SMALL, UNKNOWN);
    expect(finding.phases[0]).toMatchObject({ http429: 1, findings: 1, edge: 0 });
    expect(finding.phases[0]!.maxTokensAt429).toBeCloseTo(4, 10);
  });

  it('takes the least the bucket held between the 429 send and its answer, admissions inside the window counted', () => {
    // The bucket is full (5) at 10 s; five admitted at 10.001–10.005 s may have emptied it before the 429's answer at
    // 10.1 s.
    const log = logOf([
      [0, 1, 200],
      [10_000, 10_100, 429],
      ...[1, 2, 3, 4, 5].map((i): [number, number, number] => [10_000 + i, 12_000, 200]),
    ]);
    const j = envelopeFindings(onePlan, log, SMALL, UNKNOWN);
    expect(j.phases[0]).toMatchObject({ http429: 1, findings: 0, edge: 0 });
    expect(j.phases[0]!.maxTokensAt429).toBeCloseTo(0, 9);
  });

  it('takes a slow answer as a late arrival: five sent at once but answered 3 s later may have met the bucket full at 3 s', () => {
    // Replayed at their send times the five leave the bucket at 0 at 40 ms and at 3.1 tokens at 3.1 s: a
    // 429 then was a finding (the old rule). Arriving at 3 s, while the bucket was full and refill was
    // wasted, they leave it at 0 at 3 s and 0.1 at 3.1 s: the 429 is no finding.
    const fast: [number, number, number][] = [0, 10, 20, 30, 40].map((t) => [t, 100, 200]);
    const slow: [number, number, number][] = [0, 10, 20, 30, 40].map((t) => [t, 3000, 200]);
    expect(envelopeFindings(onePlan, logOf([...fast, [4100, 4110, 429]]), SMALL, UNKNOWN).phases[0]).toMatchObject({
      findings: 1,
    });
    const late = envelopeFindings(onePlan, logOf([...slow, [3100, 3110, 429]]), SMALL, UNKNOWN);
    expect(late.phases[0]).toMatchObject({ findings: 0, edge: 0 });
    expect(late.phases[0]!.maxTokensAt429).toBeCloseTo(0.1, 9);
  });

  it('takes an attempt without an answer as possibly arriving until the service timeout, not only until the client gave up', () => {
    // Five sent at 0–40 ms and given up on by the client at 100 ms; the server, stalled, takes them at 3 s and
    // empties its bucket. A 429 at 3.5 s is then right (0.5 tokens). Bounded by the client's give-up, the replay
    // said 3.4 tokens: a finding against a correct limiter. The spec's 15 s timeout bounds when they arrived.
    const log = new AttemptLog();
    for (const t of [0, 10, 20, 30, 40])
      log.add({
        phase: 0,
        intendedAtMs: t,
        outcome: 'timeout',
        firedAtMs: t,
        result: { attempts: 1, lastSentAtMs: t, endAtMs: 100, retryAfterS: [], tries: [{ sentAtMs: t, endAtMs: 100 }] },
      });
    log.add({
      phase: 0,
      intendedAtMs: 3500,
      outcome: 'http_429',
      firedAtMs: 3500,
      result: {
        status: 429,
        attempts: 1,
        lastSentAtMs: 3500,
        endAtMs: 3510,
        retryAfterS: [1],
        tries: [{ sentAtMs: 3500, endAtMs: 3510, status: 429 }],
      },
    });
    // Judged from a full bucket (declared idle): the window, not the start, is what this checks.
    const j = envelopeFindings(onePlan, log, SMALL, SMALL_FULL);
    expect(j.phases[0]).toMatchObject({ http429: 1, findings: 0 });
    expect(j.phases[0]!.maxTokensAt429).toBeCloseTo(0, 9);
  });

  it('counts each 429 of a retried request in its phase, and unanswered attempts as admitted', () => {
    const log = logOf([0, 0, 0].map((): [number, number, number] => [0, 900, 200]));
    log.add({
      phase: 0,
      intendedAtMs: 0,
      outcome: 'timeout',
      firedAtMs: 0,
      result: {
        attempts: 1,
        lastSentAtMs: 0,
        endAtMs: 16_000,
        retryAfterS: [],
        tries: [{ sentAtMs: 0, endAtMs: 16_000 }],
      },
    });
    log.add({
      phase: 1,
      intendedAtMs: 0,
      outcome: 'ok',
      firedAtMs: 0,
      result: {
        status: 200,
        attempts: 3,
        lastSentAtMs: 3000,
        endAtMs: 3500,
        retryAfterS: [1, 1],
        tries: [
          { sentAtMs: 0, endAtMs: 5, status: 429 },
          { sentAtMs: 1500, endAtMs: 1505, status: 429 },
          { sentAtMs: 3000, endAtMs: 3500, status: 200 },
        ],
      },
    });
    expect([log.admittedCount, log.refusedCount]).toEqual([5, 2]);
    // Judged from a full bucket (declared idle): its figures are a full bucket's at 0 ms.
    const j = envelopeFindings({ phases: [0, 1] }, log, SMALL, SMALL_FULL);
    expect(j.phases.map((p) => p.http429)).toEqual([0, 2]);
    // Four may have met the bucket at 0 ms (the timeout among them): 1 token left. At 1.5 s, at worst the
    // three answered at 900 ms arrived just before then, with the timeout: 5 + 0.6 − 4 = 1.6. Both under 1 + 2.
    expect(j.phases[1]).toMatchObject({ findings: 0, edge: 2 });
    expect(j.phases[1]!.maxTokensAt429).toBeCloseTo(1.6, 10);
  });

  it('judges from the start that is known: empty unless declared, and says which in the reason', () => {
    // Two admitted at 0 ms, answered at 10 ms; a 429 at 20 ms. From a full bucket (5) it held 3.01 tokens (the two
    // may have come at 10 ms, on a full bucket): a finding. From an empty one it held 0.01: outside. Declared 4 s
    // idle (4 tokens): 2.02, at the edge.
    const log = (): AttemptLog =>
      logOf([
        [0, 10, 200],
        [0, 10, 200],
        [20, 25, 429],
      ]);
    const empty = envelopeFindings(onePlan, log(), SMALL, UNKNOWN);
    expect(empty.phases[0]).toMatchObject({ http429: 1, findings: 0, edge: 0, ifFullAtStart: 1 });
    expect(empty.start).toMatchObject({ known: 'nothing', idleBeforeS: null, tokens: 0, full: false });
    expect(describeEnvelopePhase(empty.phases[0]!)).toBe(
      "1 429s, none on a request the documented limits clearly allow, judged from an empty bucket at the start (nothing is known of the client's traffic before the run); but 1 would be findings from a full bucket, and nothing in the run tells how full it was (a limiter tighter than documented, or traffic just before the run): inconclusive. If the client sent nothing for 5s before the run, declaring it decides (--idle-before 5s on loadproof run, or after it: loadproof report <run-folder> --idle-before 5s); otherwise run again after 5s without traffic",
    );
    const partly = envelopeFindings(onePlan, log(), SMALL, { known: 'idle', idleBeforeMs: 4000 });
    expect(partly.phases[0]).toMatchObject({ findings: 0, edge: 1, ifFullAtStart: 1 });
    expect(partly.phases[0]!.maxTokensAt429).toBeCloseTo(2.02, 9);
    expect(describeEnvelopePhase(partly.phases[0]!)).toContain(
      'judged from 4.0 tokens at the start (declared: 4s idle before the run)',
    );
    const full = envelopeFindings(onePlan, log(), SMALL, SMALL_FULL);
    expect(full.phases[0]).toMatchObject({ findings: 1, edge: 0, ifFullAtStart: 1 });
    expect(full.phases[0]!.maxTokensAt429).toBeCloseTo(3.01, 9);
    expect(describeEnvelopePhase(full.phases[0]!)).toBe(
      '1 429s on requests the documented limits clearly allow (the bucket, replayed over the requests the service admitted and judged from a full bucket at the start (declared: 1m idle before the run), held up to 3.0 tokens where 1 + a margin of 2.0 was enough): a finding against the service',
    );
    const ownMock = envelopeFindings(onePlan, log(), SMALL, { known: 'own-mock' });
    expect(ownMock.phases[0]).toMatchObject({ findings: 1 });
    expect(ownMock.start.assumption).toBe('judged from a full bucket at the start (the run started its own mock)');
  });

  it("regains a full bucket from the run's own quiet spell: capacity ÷ refill without a request", () => {
    // Two admitted at 0 ms, then nothing for 10 s (SMALL fills in 5 s), then two more and a 429 20 ms later:
    // whatever the start, the bucket held 5 at 10 s, 3.01 at the 429: a finding from an empty start too.
    const log = logOf([
      [0, 10, 200],
      [0, 10, 200],
      [10_000, 10_010, 200],
      [10_000, 10_010, 200],
      [10_020, 10_025, 429],
    ]);
    const j = envelopeFindings(onePlan, log, SMALL, UNKNOWN);
    expect(j.phases[0]).toMatchObject({ findings: 1, ifFullAtStart: 1 });
    expect(j.phases[0]!.maxTokensAt429).toBeCloseTo(3.01, 9);
    // A quiet spell too short to fill it (2 s: 2 tokens) leaves it at 0.02: outside.
    const short = logOf([
      [0, 10, 200],
      [0, 10, 200],
      [2010, 2020, 200],
      [2010, 2020, 200],
      [2030, 2035, 429],
    ]);
    expect(envelopeFindings(onePlan, short, SMALL, UNKNOWN).phases[0]).toMatchObject({ findings: 0, edge: 0 });
  });

  it('has the least of a brute-force search over every arrival placement and start anchor, for 100 random small runs', () => {
    // least(τ) = min( min over s < τ of capacity + refill × (τ − s) − M(s, τ),
    //                 max over a in [T0, τ] of level(a) + refill × (τ − a) − M(a, τ) ),
    // M(s, τ) = #(sent ≤ τ and answered > s), level(T0) the start's tokens and 0 after: searched here on a
    // quarter-ms grid against the closed form. A fast bucket (6 tokens, 0.1 token per ms) keeps the runs short.
    const FAST: EnvelopeLimits = { sustainedRpm: 6000, burstRpm: 6005, burstMinutes: 1 };
    const starts: [BucketStart, number][] = [
      [UNKNOWN, 0],
      [{ known: 'idle', idleBeforeMs: 25 }, 2.5],
      [{ known: 'idle', idleBeforeMs: 1000 }, 6],
    ];
    const rng = createRng(9);
    for (let c = 0; c < 100; c++) {
      const attempts: [number, number, number][] = Array.from({ length: nextInt(rng, 1, 12) }, () => {
        const sent = nextInt(rng, 0, 60);
        return [sent, sent + nextInt(rng, 0, 40), 200];
      });
      const from = nextInt(rng, 0, 100);
      const to = from + nextInt(rng, 0, 20);
      const [start, startTokens] = pick(rng, starts);
      const log = logOf([...attempts, [from, to, 429]]);
      const judged = envelopeFindings(onePlan, log, FAST, start).phases[0]!.maxTokensAt429!;
      const firstSend = Math.min(from, ...attempts.map(([sent]) => sent));
      const mayArrive = (tau: number, afterMs: number): number =>
        attempts.filter(([sent, end]) => sent <= tau && end > afterMs).length;
      let brute = Number.POSITIVE_INFINITY;
      for (let tau = from; tau <= to; tau += 0.25) {
        let full = 6;
        for (let sMs = -1; sMs < tau; sMs += 0.25) full = Math.min(full, 6 + 0.1 * (tau - sMs) - mayArrive(tau, sMs));
        // The start's tokens are before the first send: every attempt sent by τ may take one after it.
        let anchored = startTokens + 0.1 * (tau - firstSend) - attempts.filter(([sent]) => sent <= tau).length;
        for (let aMs = firstSend; aMs <= tau; aMs += 0.25)
          anchored = Math.max(anchored, 0.1 * (tau - aMs) - mayArrive(tau, aMs));
        brute = Math.min(brute, Math.min(full, anchored));
      }
      // The grid's s stops a quarter ms short of τ and of each answer: up to 0.025 tokens of refill too many. Its
      // anchors fall on every answer (whole ms), where the maximum is: exact.
      expect(judged).toBeLessThanOrEqual(brute + 1e-9);
      expect({ c, gap: Math.round((brute - judged) * 1000) / 1000 <= 0.025 }).toEqual({ c, gap: true });
    }
  });

  it('reads an event without tries as its final attempt', () => {
    const log = new AttemptLog();
    log.add({
      phase: 0,
      intendedAtMs: 0,
      outcome: 'http_429',
      firedAtMs: 0,
      result: { status: 429, attempts: 1, lastSentAtMs: 5, endAtMs: 9, retryAfterS: [1] },
    });
    expect(log.refusedCount).toBe(1);
    expect(log.refusedAttempts()).toEqual({
      sentAtMs: new Float64Array([5]),
      endAtMs: new Float64Array([9]),
      phase: new Uint16Array([0]),
      code: new Uint16Array([0]),
      codes: [],
    });
  });

  it('without a 429 reports none', () => {
    const j = envelopeFindings(onePlan, logOf([[0, 1, 200]]), DOCUMENTED, UNKNOWN);
    expect(j.phases[0]).toEqual({
      http429: 0,
      findings: 0,
      edge: 0,
      ifFullAtStart: 0,
      maxTokensAt429: null,
      marginTokens: j.marginTokens,
      start: j.start,
    });
    expect(describeEnvelopePhase(j.phases[0]!)).toBe('0 429s, none on a request the documented limits clearly allow');
  });
});
