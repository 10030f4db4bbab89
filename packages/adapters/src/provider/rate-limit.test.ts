import { describe, expect, it } from "vitest";
import { LongportRateLimits, PacingQueue, type Scheduler } from "./rate-limit";

/** Virtual time: `sleep` registers a timer; `settle` runs timers in time order until none are left. */
class VirtualScheduler implements Scheduler {
  time = 0;
  private timers: { at: number; seq: number; wake: () => void }[] = [];
  private seq = 0;

  now(): number {
    return this.time;
  }

  sleep(ms: number): Promise<void> {
    return new Promise((wake) => this.timers.push({ at: this.time + ms, seq: this.seq++, wake }));
  }

  async settle(): Promise<void> {
    for (;;) {
      await new Promise((resolve) => setImmediate(resolve));
      if (this.timers.length === 0) return;
      this.timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = this.timers.shift()!;
      this.time = Math.max(this.time, next.at);
      next.wake();
    }
  }
}

/** Sends `count` calls at once; each records its start time and lasts `durationMs` of virtual time. */
async function burst(queue: PacingQueue, scheduler: VirtualScheduler, count: number, durationMs = 0) {
  const starts: number[] = [];
  const results = Array.from({ length: count }, (_, index) =>
    queue.run(async () => {
      starts.push(scheduler.now());
      if (durationMs > 0) await scheduler.sleep(durationMs);
      return index;
    }),
  );
  await scheduler.settle();
  return { starts, values: await Promise.all(results) };
}

describe("PacingQueue with LongPort's quote limits (10 calls/s, 5 concurrent)", () => {
  it("queues a burst of 25 instant calls and starts them 10 per second, in order", async () => {
    const scheduler = new VirtualScheduler();
    const { starts, values } = await burst(new PacingQueue(LongportRateLimits.quote, scheduler), scheduler, 25);
    expect(starts).toEqual([...Array(10).fill(0), ...Array(10).fill(1000), ...Array(5).fill(2000)]);
    expect(values).toEqual(Array.from({ length: 25 }, (_, index) => index));
  });

  it("keeps at most 5 calls in flight: 12 calls of 100 ms start at 0, 100 and (the window full) 1000", async () => {
    const scheduler = new VirtualScheduler();
    const { starts } = await burst(new PacingQueue(LongportRateLimits.quote, scheduler), scheduler, 12, 100);
    expect(starts).toEqual([...Array(5).fill(0), ...Array(5).fill(100), 1000, 1000]);
  });

  it("uses a sliding window: calls spread over time start as soon as the oldest of the last 10 is a second old", async () => {
    const scheduler = new VirtualScheduler();
    const queue = new PacingQueue(LongportRateLimits.quote, scheduler);
    const starts: number[] = [];
    const record = () => queue.run(async () => void starts.push(scheduler.now()));
    const first = Array.from({ length: 5 }, record);
    await scheduler.settle();
    scheduler.time = 600;
    const second = Array.from({ length: 7 }, record);
    await scheduler.settle();
    await Promise.all([...first, ...second]);
    expect(starts).toEqual([0, 0, 0, 0, 0, 600, 600, 600, 600, 600, 1000, 1000]);
  });
});

describe("PacingQueue with LongPort's trade limits (30 per 30 s, 20 ms apart, paced a second wider)", () => {
  it("spaces a burst 20 ms apart and holds the 31st and 32nd call until a 31-second window allows", async () => {
    const scheduler = new VirtualScheduler();
    const { starts } = await burst(new PacingQueue(LongportRateLimits.trade, scheduler), scheduler, 32);
    expect(starts).toEqual([...Array.from({ length: 30 }, (_, index) => index * 20), 31_000, 31_020]);
  });

  it("says how long a call asked for now would wait: 0 while the window has room, the rest of the window once 30 calls started in it", async () => {
    const scheduler = new VirtualScheduler();
    const queue = new PacingQueue(LongportRateLimits.trade, scheduler);
    expect(queue.backlogMs()).toBe(0);
    await burst(queue, scheduler, 30);
    // The 30th started at 580 ms: the next may start when the first is 31 s old, 20 ms after the last at the earliest.
    scheduler.time = 1_000;
    expect(queue.backlogMs()).toBe(30_000);
    scheduler.time = 31_000;
    expect(queue.backlogMs()).toBe(0);
  });

  it("passes a failing call's error to its caller and keeps pacing the rest", async () => {
    const scheduler = new VirtualScheduler();
    const queue = new PacingQueue(LongportRateLimits.trade, scheduler);
    const starts: number[] = [];
    const failing = queue.run(async () => {
      starts.push(scheduler.now());
      throw new Error("rejected by the provider");
    });
    const next = queue.run(async () => {
      starts.push(scheduler.now());
      return "filled";
    });
    const outcome = failing.catch((error: Error) => error.message);
    await scheduler.settle();
    expect(await outcome).toBe("rejected by the provider");
    expect(await next).toBe("filled");
    expect(starts).toEqual([0, 20]);
  });
});
