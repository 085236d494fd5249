/**
 * Scenario → Plan: every phase laid end to end on the model timeline, with its arrival offsets,
 * offered rate and the spec's load band and p95 target. Nothing here runs or sends anything.
 */
import { createRng, ScenarioError } from '../core/index.js';
import { type Scenario, SCENARIO_BOUNDS } from '../scenario/index.js';
import { planArrivals } from './arrivals.js';
import { type BandSlice, bandSlices } from './bands.js';

export interface PlannedPhase {
  readonly index: number;
  readonly name: string;
  /** Offset of the phase start from the run start (model ms). */
  readonly startMs: number;
  readonly durationMs: number;
  readonly fromRpm: number;
  readonly toRpm: number;
  /** Time-averaged offered rate (requests per minute). */
  readonly offeredRpm: number;
  readonly peakRpm: number;
  /**
   * The spec's bands the phase's arrivals fall in, by the rate at each arrival's intended time, in
   * time order: one for a constant rate, up to four for a ramp (see bands.ts).
   */
  readonly bands: readonly BandSlice[];
  readonly warmupMs: number;
  /**
   * Arrival offsets from the run start (model ms), ascending: one per request (in deid mode, a document's pieces share
   * its time).
   */
  readonly arrivalsMs: Float64Array;
  /**
   * mode deid: the documents that arrive in the phase, and their rate (documents per minute; fromRpm and toRpm are then
   * requests).
   */
  readonly documents?: { readonly count: number; readonly fromRpm: number; readonly toRpm: number };
}

/** mode deid: which requests belong to which document. */
export interface PlannedDocuments {
  readonly count: number;
  /**
   * The first request (seq) of each document, and the plan's request count at the end: document d is seqs [firstSeq[d],
   * firstSeq[d + 1]).
   */
  readonly firstSeq: Uint32Array;
}

export interface Plan {
  readonly scenario: Scenario;
  readonly phases: readonly PlannedPhase[];
  /** Model time from the first arrival slot to the end of the last phase (ms). */
  readonly durationMs: number;
  readonly arrivals: number;
  /** k: the plan runs k times fast on the wall clock (1 against real environments). */
  readonly timeScale: number;
  /** mode deid: the documents, each sent as its pieces' requests. */
  readonly documents?: PlannedDocuments;
  /**
   * `run --shard i/n`: this plan holds only the arrivals whose seq ≡ i (mod n) of the whole plan (src/plan/shard.ts),
   * or in mode deid those of the documents d ≡ i (mod n).
   */
  readonly shard?: Shard;
  /**
   * A deid shard: the seq in the whole plan of each of its arrivals, ascending (whole documents are not every n-th
   * request). Absent otherwise. `documents` stays the whole plan's, so a seq finds its document as in the whole plan.
   */
  readonly seqs?: Uint32Array;
}

interface PlanOptions {
  readonly timeScale?: number;
  /** mode deid: how many requests the next document is sent in, called once per document in arrival order. */
  readonly piecesOfNextDocument?: () => number;
}

export function buildPlan(scenario: Scenario, options: PlanOptions = {}): Plan {
  const plan = buildRequestPlan(scenario, options);
  if (scenario.mode !== 'deid') return plan;
  if (options.piecesOfNextDocument === undefined)
    throw new Error('a deid plan needs the pieces of its documents (planScenario)');
  return expandDocuments(plan, options.piecesOfNextDocument);
}

/**
 * A plan of documents as a plan of requests: each document's pieces arrive at its time, one request
 * each, with consecutive seqs. A phase's rates become request rates (× its mean pieces per document),
 * so the guard, the bands and the envelope judge the identification requests actually sent.
 */
function expandDocuments(plan: Plan, piecesOfNext: () => number): Plan {
  const firstSeq: number[] = [];
  let seq = 0;
  const phases = plan.phases.map((p): PlannedPhase => {
    const times: number[] = [];
    for (const t of p.arrivalsMs) {
      firstSeq.push(seq);
      const n = Math.max(1, piecesOfNext());
      for (let i = 0; i < n; i++) times.push(t);
      seq += n;
    }
    const count = p.arrivalsMs.length;
    const perDocument = count === 0 ? 1 : times.length / count;
    const arrivalsMs = Float64Array.from(times);
    const [fromRpm, toRpm] = [p.fromRpm * perDocument, p.toRpm * perDocument];
    return {
      ...p,
      fromRpm,
      toRpm,
      offeredRpm: (fromRpm + toRpm) / 2,
      peakRpm: Math.max(fromRpm, toRpm),
      bands: bandSlices(
        { startMs: p.startMs, durationMs: p.durationMs, fromRpm, toRpm, warmupMs: p.warmupMs },
        arrivalsMs,
      ),
      arrivalsMs,
      documents: { count, fromRpm: p.fromRpm, toRpm: p.toRpm },
    };
  });
  firstSeq.push(seq);
  if (seq > SCENARIO_BOUNDS.plannedRequests) {
    throw new ScenarioError(plan.scenario.name, [
      `phases: ${firstSeq.length - 1} documents make ${seq} identification requests; expected at most ${SCENARIO_BOUNDS.plannedRequests} in a plan (fewer documents, or a larger payload.split.maxTokens)`,
    ]);
  }
  return {
    ...plan,
    phases,
    arrivals: seq,
    documents: { count: firstSeq.length - 1, firstSeq: Uint32Array.from(firstSeq) },
  };
}

/** The document request `seq` belongs to (deid plans). */
export function documentOfSeq(documents: PlannedDocuments, seq: number): number {
  let lo = 0;
  let hi = documents.count - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (documents.firstSeq[mid]! <= seq) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

function buildRequestPlan(scenario: Scenario, options: PlanOptions): Plan {
  // One arrival process for the whole plan, its generator seeded by the scenario, so arrivals are
  // repeatable and a phase boundary does not restart the process.
  // The scenario's bound holds for the expected counts; the cap holds it for Poisson draws too.
  const offsets = planArrivals(
    scenario.phases,
    scenario.arrivals.process,
    createRng(scenario.arrivals.seed),
    SCENARIO_BOUNDS.plannedRequests,
  );
  let startMs = 0;
  const phases = scenario.phases.map((phase, index): PlannedPhase => {
    const arrivalsMs = offsets[index]!.map((t) => t + startMs);
    const offeredRpm = (phase.fromRpm + phase.toRpm) / 2;
    const planned: PlannedPhase = {
      index,
      name: phase.name,
      startMs,
      durationMs: phase.durationMs,
      fromRpm: phase.fromRpm,
      toRpm: phase.toRpm,
      offeredRpm,
      peakRpm: Math.max(phase.fromRpm, phase.toRpm),
      bands: bandSlices(
        { startMs, durationMs: phase.durationMs, fromRpm: phase.fromRpm, toRpm: phase.toRpm, warmupMs: phase.warmupMs },
        arrivalsMs,
      ),
      warmupMs: phase.warmupMs,
      arrivalsMs,
    };
    startMs += phase.durationMs;
    return planned;
  });
  return {
    scenario,
    phases,
    durationMs: startMs,
    arrivals: phases.reduce((sum, p) => sum + p.arrivalsMs.length, 0),
    timeScale: options.timeScale ?? 1,
  };
}

/** The plan's arrivals due by model time `elapsedMs` (intended at or before it): a binary search per phase. */
export function arrivalsDueBy(plan: Plan, elapsedMs: number): number {
  let before = 0;
  let due = 0;
  for (const p of plan.phases) {
    if (elapsedMs >= p.startMs) {
      // Offsets are from the run start, in order: the first one after elapsedMs.
      let lo = 0;
      let hi = p.arrivalsMs.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (p.arrivalsMs[mid]! <= elapsedMs) lo = mid + 1;
        else hi = mid;
      }
      due = before + lo;
    }
    before += p.arrivalsMs.length;
  }
  return due;
}

/** The plan's arrivals intended before model time `ms`, counted up to `most` (a long plan is not walked whole). */
export function arrivalsBefore(plan: Plan, ms: number, most: number): number {
  let n = 0;
  for (const phase of plan.phases) {
    for (const t of phase.arrivalsMs) {
      if (t >= ms || n >= most) return n;
      n++;
    }
  }
  return n;
}

/** One share of a plan sent by one process (`--shard i/n`); shard.ts cuts it out. */
export interface Shard {
  /** 0-based: a Kubernetes Indexed Job's JOB_COMPLETION_INDEX. */
  readonly index: number;
  /** How many shards the plan is split into: the Job's completions. */
  readonly count: number;
}
