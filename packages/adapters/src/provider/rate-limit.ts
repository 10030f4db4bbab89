/** Time for a pacing queue: when "now" is, and a way to wait. Tests inject a virtual one. */
export interface Scheduler {
  /** Current instant in epoch milliseconds. */
  now(): number;
  /** Resolves after `ms` milliseconds. */
  sleep(ms: number): Promise<void>;
}

/** The machine's clock and timers. */
export const systemScheduler: Scheduler = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/** A provider's documented call limits. */
export interface PacingRule {
  /** Named in logs and docs. */
  name: string;
  /** At most this many calls start within any window of `perMs`. */
  maxCalls: number;
  perMs: number;
  /** At most this many calls run at once (unlimited when absent). */
  maxConcurrent?: number;
  /** Consecutive starts at least this far apart. */
  minIntervalMs?: number;
}

/**
 * LongPort OpenAPI limits (docs `index.md` #rate-limit): quote API 10 calls/s with 5 in flight;
 * trade API 30 calls per 30 s, at least 0.02 s apart. Both are per account, so one queue per
 * process serves every caller of that account. The trade window is paced a second wider than
 * LongPort's: it counts calls as they arrive, and a call that started 30 s after another may
 * arrive less than 30 s after it did (429002, seen against the fake LongPort).
 */
export const LongportRateLimits = {
  quote: { name: "longport-quote", maxCalls: 10, perMs: 1_000, maxConcurrent: 5 },
  trade: { name: "longport-trade", maxCalls: 30, perMs: 31_000, minIntervalMs: 20 },
} as const satisfies Record<string, PacingRule>;

/**
 * Runs calls in arrival order no faster than a rule allows: a burst waits in the queue and is
 * paced out, it is never refused. The window is sliding (the last `maxCalls` start times are
 * kept), so no `perMs` interval ever holds more than `maxCalls` starts.
 */
export class PacingQueue {
  private readonly waiting: (() => void)[] = [];
  /** Start times of the most recent calls, oldest first, at most `maxCalls`. */
  private readonly starts: number[] = [];
  private active = 0;
  private wakeScheduled = false;

  constructor(
    readonly rule: PacingRule,
    private readonly scheduler: Scheduler = systemScheduler,
  ) {}

  /** Calls waiting for their turn. */
  get queued(): number {
    return this.waiting.length;
  }

  /**
   * About how long (ms) a call asked for now would wait for its turn: 0 when it would start at
   * once; while calls queue, at least until the window lets the next one start (a lower bound).
   */
  backlogMs(): number {
    const wait = Math.max(0, this.earliestStart() - this.scheduler.now());
    return this.waiting.length > 0 ? Math.max(wait, 1) : wait;
  }

  /** Runs `call` when the rule allows; settles with its outcome. */
  run<T>(call: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.waiting.push(() => {
        this.active += 1;
        let outcome: Promise<T>;
        try {
          outcome = Promise.resolve(call());
        } catch (error) {
          outcome = Promise.reject(error);
        }
        outcome.then(resolve, reject).finally(() => {
          this.active -= 1;
          this.pump();
        });
      });
      this.pump();
    });
  }

  /** The earliest instant the next call may start, by the window and the spacing (not concurrency). */
  private earliestStart(): number {
    const { maxCalls, perMs, minIntervalMs } = this.rule;
    let earliest = -Infinity;
    if (this.starts.length >= maxCalls) earliest = this.starts[this.starts.length - maxCalls] + perMs;
    if (minIntervalMs && this.starts.length > 0) earliest = Math.max(earliest, this.starts[this.starts.length - 1] + minIntervalMs);
    return earliest;
  }

  private pump(): void {
    while (this.waiting.length > 0) {
      // A finishing call pumps again, so a full house just waits.
      if (this.rule.maxConcurrent !== undefined && this.active >= this.rule.maxConcurrent) return;
      const now = this.scheduler.now();
      const earliest = this.earliestStart();
      if (earliest > now) {
        this.wakeAt(earliest - now);
        return;
      }
      this.starts.push(now);
      if (this.starts.length > this.rule.maxCalls) this.starts.shift();
      this.waiting.shift()!();
    }
  }

  private wakeAt(delayMs: number): void {
    // Nothing can start before the pending wake-up (starts only happen in `pump` once due), so one timer is enough.
    if (this.wakeScheduled) return;
    this.wakeScheduled = true;
    void this.scheduler.sleep(delayMs).then(() => {
      this.wakeScheduled = false;
      this.pump();
    });
  }
}
