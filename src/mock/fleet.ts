/**
 * The replicas behind an endpoint: each replica serves up to `slotsPerReplica` requests at once
 * (its batch); requests wait in one FIFO queue for a slot. With autoscaling, sustained high
 * utilisation adds a replica that serves only after a warm-up delay, and sustained low
 * utilisation drains one. Utilisation is averaged over each evaluation interval (time-weighted), as
 * a real autoscaler's metric is: a sample of the instant would turn on whether an arrival came a
 * millisecond before or after it. Everything runs on an injected clock, so it is tested without sleeping.
 */
import type { CancelTimer, Clock } from '../core/index.js';
import type { ServiceTimeFn, Work } from './latency-model.js';

export interface AutoscaleConfig {
  /** How often utilisation is evaluated (model ms), averaged over the interval since the last evaluation. */
  readonly evaluateEveryMs: number;
  /** Utilisation (time-averaged (busy slots + waiting) / ready slots) above which the fleet wants to grow. */
  readonly scaleUpUtilisation: number;
  /** How long utilisation must stay above it before a replica is added (ms). */
  readonly scaleUpAfterMs: number;
  /** Delay before a new replica serves (ms). */
  readonly warmupMs: number;
  /** Utilisation below which the fleet wants to shrink. */
  readonly scaleDownUtilisation: number;
  /** How long utilisation must stay below it before a replica is drained (ms). */
  readonly scaleDownAfterMs: number;
}

export interface FleetConfig {
  readonly minReplicas: number;
  readonly maxReplicas: number;
  readonly slotsPerReplica: number;
  /** Absent: the fleet stays at minReplicas. */
  readonly autoscale?: AutoscaleConfig;
}

export interface FleetSnapshot {
  readonly ready: number;
  readonly warming: number;
  readonly draining: number;
  readonly busySlots: number;
  readonly totalSlots: number;
  readonly waiting: number;
  readonly scaleUps: number;
  readonly scaleDowns: number;
}

interface Replica {
  readonly id: number;
  state: 'warming' | 'ready' | 'draining';
  active: number;
}

/** A request in the fleet, from submit to completion. */
export interface FleetTicket {
  readonly work: Work;
  /** When it was submitted (model ms). */
  readonly submittedAtMs: number;
  startedAtMs?: number;
  doneAtMs?: number;
}

type OnDone = (ticket: FleetTicket) => void;

export class Fleet {
  private readonly replicas: Replica[] = [];
  /** FIFO: a Map keeps insertion order and deletes in O(1). */
  private readonly waiting = new Map<FleetTicket, OnDone>();
  private readonly timers = new Set<CancelTimer>();
  private nextReplicaId = 0;
  private highSinceMs: number | undefined;
  private lowSinceMs: number | undefined;
  private scaleUps = 0;
  private scaleDowns = 0;
  private stopped = false;
  private evaluating = false;
  /** Since the last evaluation: ∫ (busy slots + waiting) dt and ∫ ready slots dt (model ms), to `accruedToMs`. */
  private loadAreaMs = 0;
  private slotAreaMs = 0;
  private accruedToMs = 0;

  constructor(
    private readonly config: FleetConfig,
    private readonly serviceTime: ServiceTimeFn,
    private readonly clock: Clock,
  ) {
    for (let i = 0; i < config.minReplicas; i++)
      this.replicas.push({ id: this.nextReplicaId++, state: 'ready', active: 0 });
  }

  /** Queues work, arrived at `nowMs` (model ms; now by default); `onDone` is called when its service completes. */
  submit(work: Work, onDone: (ticket: FleetTicket) => void, nowMs = this.clock.nowMs()): FleetTicket {
    // The autoscaler samples every evaluateEveryMs from the first request, not from the server's start: its
    // grid then sits where the load starts whatever the time scale (the start-up before it is k times longer in model
    // time at k).
    if (!this.evaluating && this.config.autoscale !== undefined) {
      this.evaluating = true;
      this.accruedToMs = nowMs;
      this.scheduleEvaluation(this.config.autoscale, nowMs);
    }
    this.accrue(nowMs);
    const ticket: FleetTicket = { work, submittedAtMs: nowMs };
    this.waiting.set(ticket, onDone);
    this.dispatch(nowMs);
    return ticket;
  }

  /** Withdraws work still waiting for a slot; work already in service runs to completion. */
  withdraw(ticket: FleetTicket): boolean {
    this.accrue(this.clock.nowMs());
    return this.waiting.delete(ticket);
  }

  snapshot(): FleetSnapshot {
    let ready = 0;
    let warming = 0;
    let draining = 0;
    let busySlots = 0;
    for (const r of this.replicas) {
      busySlots += r.active;
      if (r.state === 'ready') ready++;
      else if (r.state === 'warming') warming++;
      else draining++;
    }
    return {
      ready,
      warming,
      draining,
      busySlots,
      totalSlots: ready * this.config.slotsPerReplica,
      waiting: this.waiting.size,
      scaleUps: this.scaleUps,
      scaleDowns: this.scaleDowns,
    };
  }

  /** Cancels the fleet's timers (the server is closing). */
  stop(): void {
    this.stopped = true;
    for (const cancel of this.timers) cancel();
    this.timers.clear();
  }

  private setTimer(atMs: number, fn: () => void): void {
    if (this.stopped) return;
    const cancel = this.clock.setTimer(atMs, () => {
      this.timers.delete(cancel);
      fn();
    });
    this.timers.add(cancel);
  }

  /**
   * Starts waiting work, oldest first, on the least-busy ready replica with a free slot.
   * `freeAtMs`: when the model freed the slot (the intended end of the work that held it, or of a
   * warm-up), so a timer that fired late does not delay the next start on the model's timeline.
   */
  private dispatch(freeAtMs: number): void {
    for (const [ticket, onDone] of this.waiting) {
      const replica = this.leastBusyReadyReplica();
      if (replica === undefined) return;
      this.waiting.delete(ticket);
      this.start(ticket, onDone, replica, Math.max(ticket.submittedAtMs, freeAtMs));
    }
  }

  private leastBusyReadyReplica(): Replica | undefined {
    let best: Replica | undefined;
    for (const r of this.replicas) {
      if (
        r.state === 'ready' &&
        r.active < this.config.slotsPerReplica &&
        (best === undefined || r.active < best.active)
      )
        best = r;
    }
    return best;
  }

  private start(ticket: FleetTicket, onDone: OnDone, replica: Replica, startAtMs: number): void {
    replica.active++;
    const serviceMs = this.serviceTime(ticket.work, replica.active);
    ticket.startedAtMs = startAtMs;
    const doneAtMs = startAtMs + serviceMs;
    ticket.doneAtMs = doneAtMs;
    const finish = (): void => {
      this.accrue(doneAtMs);
      replica.active--;
      if (replica.state === 'draining' && replica.active === 0) this.replicas.splice(this.replicas.indexOf(replica), 1);
      onDone(ticket);
      this.dispatch(doneAtMs);
    };
    // Zero service time (the `zero` profile) completes at once, without a timer.
    if (serviceMs <= 0) finish();
    else this.setTimer(ticket.doneAtMs, finish);
  }

  private scheduleEvaluation(autoscale: AutoscaleConfig, fromMs: number): void {
    const atMs = fromMs + autoscale.evaluateEveryMs;
    this.setTimer(atMs, () => {
      this.evaluate(autoscale);
      this.scheduleEvaluation(autoscale, atMs);
    });
  }

  /**
   * Adds the time since the last change to the integrals, at the load and slots as they were: called
   * at the model time of each change (an arrival, an end, a withdrawal, a replica ready or drained), before it.
   */
  private accrue(atMs: number): void {
    if (!this.evaluating || atMs <= this.accruedToMs) return;
    // As snapshot() counts them, without its object: this runs twice per request on the mock's hot path.
    let busy = 0;
    let ready = 0;
    for (const r of this.replicas) {
      busy += r.active;
      if (r.state === 'ready') ready++;
    }
    const dtMs = atMs - this.accruedToMs;
    this.loadAreaMs += (busy + this.waiting.size) * dtMs;
    this.slotAreaMs += ready * this.config.slotsPerReplica * dtMs;
    this.accruedToMs = atMs;
  }

  /**
   * One autoscaler step: sustained high utilisation (averaged since the last step) adds a replica, sustained low drains
   * one.
   */
  private evaluate(autoscale: AutoscaleConfig): void {
    const nowMs = this.clock.nowMs();
    this.accrue(nowMs);
    const s = this.snapshot();
    const utilisation =
      this.slotAreaMs === 0 ? (s.busySlots + s.waiting > 0 ? 1 : 0) : this.loadAreaMs / this.slotAreaMs;
    this.loadAreaMs = 0;
    this.slotAreaMs = 0;
    this.highSinceMs = utilisation > autoscale.scaleUpUtilisation ? (this.highSinceMs ?? nowMs) : undefined;
    this.lowSinceMs = utilisation < autoscale.scaleDownUtilisation ? (this.lowSinceMs ?? nowMs) : undefined;
    if (this.highSinceMs !== undefined && nowMs - this.highSinceMs >= autoscale.scaleUpAfterMs) {
      if (s.ready + s.warming < this.config.maxReplicas && s.warming === 0) this.addReplica(autoscale.warmupMs);
      this.highSinceMs = undefined;
    }
    if (this.lowSinceMs !== undefined && nowMs - this.lowSinceMs >= autoscale.scaleDownAfterMs) {
      if (s.ready > this.config.minReplicas) this.drainReplica();
      this.lowSinceMs = undefined;
    }
  }

  private addReplica(warmupMs: number): void {
    const replica: Replica = { id: this.nextReplicaId++, state: 'warming', active: 0 };
    this.replicas.push(replica);
    this.scaleUps++;
    const readyAtMs = this.clock.nowMs() + warmupMs;
    this.setTimer(readyAtMs, () => {
      this.accrue(readyAtMs);
      replica.state = 'ready';
      this.dispatch(readyAtMs);
    });
  }

  private drainReplica(): void {
    // Drain the least busy ready replica: it takes no new work and leaves when empty.
    let victim: Replica | undefined;
    for (const r of this.replicas)
      if (r.state === 'ready' && (victim === undefined || r.active < victim.active)) victim = r;
    if (victim === undefined) return;
    this.accrue(this.clock.nowMs());
    victim.state = 'draining';
    this.scaleDowns++;
    if (victim.active === 0) this.replicas.splice(this.replicas.indexOf(victim), 1);
  }
}
