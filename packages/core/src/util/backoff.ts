import { DomainError } from "../errors";

/**
 * Retries for optimistic writers that lost a race: full-jitter exponential backoff (a random
 * wait between 0 and base·2^attempt, capped), bounded attempts, so writers that collided spread
 * out instead of colliding again in lockstep.
 */
export interface RetryOptions {
  /** Tries in all, the first included. */
  attempts: number;
  baseMs: number;
  maxMs: number;
  /** Whether an error is worth another try (others are thrown at once). */
  retryable: (error: unknown) => boolean;
  random?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

const wait = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

export async function retrying<T>(work: (attempt: number) => Promise<T>, options: RetryOptions): Promise<T> {
  const random = options.random ?? Math.random;
  const sleep = options.sleep ?? wait;
  for (let attempt = 1; ; attempt++) {
    try {
      return await work(attempt);
    } catch (error) {
      if (attempt >= options.attempts || !options.retryable(error)) throw error;
      await sleep(Math.floor(random() * Math.min(options.maxMs, options.baseMs * 2 ** attempt)));
    }
  }
}

/**
 * The wait before retry number `retry` (1 for the first retry) of a schedule that grows by
 * `factor` from `baseMs`, at most `maxMs`: deterministic, for work retried on a schedule (a
 * webhook delivery's next try through its queue's delay) rather than racing writers.
 */
export function scheduledDelayMs(retry: number, schedule: { baseMs: number; factor: number; maxMs: number }): number {
  return Math.min(schedule.maxMs, schedule.baseMs * schedule.factor ** Math.max(0, retry - 1));
}

/**
 * An update without `If-Match` that lost the race to another writer (409 `…_CHANGED`) reads
 * again and reapplies: the last writer wins (docs/api-conventions.md "Concurrent updates").
 */
export const LAST_WRITER_WINS: Omit<RetryOptions, "random" | "sleep"> = {
  attempts: 12,
  baseMs: 5,
  maxMs: 200,
  retryable: (error) => error instanceof DomainError && error.status === 409 && error.code.endsWith("_CHANGED"),
};
