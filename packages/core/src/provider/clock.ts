/**
 * Time as the domain sees it. Every timestamp inside the service is epoch milliseconds, UTC;
 * only the edges format ISO strings. Backtests, replays and tests drive a `ManualClock`.
 */
export interface Clock {
  /** Current instant in epoch milliseconds (UTC). */
  now(): number;
}

/** The machine's wall clock. */
export class SystemClock implements Clock {
  now(): number {
    return Date.now();
  }
}

/** A clock that only moves when told to; for tests, backtests and replays. */
export class ManualClock implements Clock {
  private current: number;

  constructor(start: number | string | Date = 0) {
    this.current = ManualClock.toMs(start);
  }

  now(): number {
    return this.current;
  }

  /** Jumps to an instant (epoch ms, ISO string or Date); moving backwards is allowed for replays. */
  set(instant: number | string | Date): void {
    this.current = ManualClock.toMs(instant);
  }

  /** Moves forward by `ms` milliseconds and returns the new time. */
  advance(ms: number): number {
    this.current += ms;
    return this.current;
  }

  private static toMs(instant: number | string | Date): number {
    const ms = typeof instant === "number" ? instant : typeof instant === "string" ? Date.parse(instant) : instant.getTime();
    if (!Number.isFinite(ms)) throw new RangeError(`Not an instant: ${String(instant)}`);
    return ms;
  }
}

/**
 * A clock running `speed` times faster than another (the wall clock by default) from `start`:
 * it reads `start` when created and then moves `speed` milliseconds per millisecond of the other.
 * The embedded runtime's accelerated simulated market uses it, so a session can be watched trading
 * at any hour (SIMULATED_CLOCK_SPEED, SIMULATED_CLOCK_START).
 */
export class AcceleratedClock implements Clock {
  private origin: number;

  constructor(
    readonly start: number,
    readonly speed: number,
    private readonly base: () => number = Date.now,
  ) {
    if (!Number.isFinite(start)) throw new RangeError(`Not an instant: ${String(start)}`);
    if (!(speed > 0) || !Number.isFinite(speed)) throw new RangeError(`A clock speed must be a positive number, not ${String(speed)}`);
    this.origin = base();
  }

  now(): number {
    return this.start + Math.floor((this.base() - this.origin) * this.speed);
  }

  /** Reads `start` again from this moment (a runtime that took a while to start begins its clock when it is ready). */
  restart(): void {
    this.origin = this.base();
  }
}
