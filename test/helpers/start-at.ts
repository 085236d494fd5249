/**
 * A common `--start-at` for shards started together, on a busy machine. A shard must be ready within 1 s
 * of model time after the start (50 ms of wall time at k = 20), and beside two CPU hogs a node process
 * alone took over 7 s to start: no lead is long enough for sure. What the tool promises then is a
 * refusal that says why (docs/guides/sharded-runs-on-kubernetes.md): before anything, `--start-at …: n s in the past`
 * (exit 2); after its token call and warm-up, `--start-at: ready n ms after it` (exit 4, every request
 * unsent). A test that meets exactly that refusal does what the sharded-runs guide tells a user to do — a start
 * further ahead — and tries again, a bounded number of times; any other outcome is the test's to judge.
 */

/** What an attempt returns when a shard refused its start as too late for this machine. */
export const LATE_START = Symbol('late start');

const PAST = /--start-at \S+: \d+(\.\d+)? s in the past/;
const NOT_READY =
  /--start-at: ready \d+ ms after it, more than \d+(\.\d+)? ms \(1 s of model time\): no request is sent/;

/** A shard's exit that is the tool's refusal of a start this machine could not make in time. */
export function refusedAsLate(code: number | null, stderr: string): boolean {
  return (code === 2 && PAST.test(stderr)) || (code === 4 && NOT_READY.test(stderr));
}

/**
 * Runs `attempt` with a start `firstLeadMs` ahead of now; each time it reports LATE_START, again with
 * twice the lead, at most `attempts` times in all (then it fails, saying so). Each attempt starts its
 * own servers and folders: a shard that was on time has already sent its share.
 */
export async function withCommonStart<T>(
  firstLeadMs: number,
  attempt: (startAtMs: number) => Promise<T | typeof LATE_START>,
  attempts = 3,
): Promise<T> {
  let leadMs = firstLeadMs;
  for (let i = 1; i <= attempts; i++, leadMs *= 2) {
    const result = await attempt(Date.now() + leadMs);
    if (result !== LATE_START) return result;
  }
  throw new Error(
    `an attempt was too late ${attempts} times (a shard refused its --start-at, or a run could not keep its schedule), the last ${leadMs / 2} ms ahead: this machine is too busy for it`,
  );
}

/** The wall time `withCommonStart` may take at most, for a test's timeout: every lead, plus `perAttemptMs` each. */
export const commonStartBudgetMs = (firstLeadMs: number, perAttemptMs: number, attempts = 3): number =>
  firstLeadMs * (2 ** attempts - 1) + perAttemptMs * attempts;
