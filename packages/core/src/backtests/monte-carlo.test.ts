import { describe, expect, it } from "vitest";
import { bandIndices, percentileOf, simulate, Xoshiro128, type MonteCarloInput } from "./monte-carlo";

/** A small series of trades: returns on the equity before each, exits a day apart from day 100. */
function trades(returns: number[], paths: number, seed: number, method: MonteCarloInput["method"]): MonteCarloInput {
  return { initial: 100_000, returns, exitDays: returns.map((_, i) => 101 + i), startDay: 100, paths, seed, method };
}

const cents = (value: number) => Math.round(value * 100) / 100;

describe("the Monte Carlo PRNG", () => {
  it("gives xoshiro128**'s sequence for a splitmix32 seed, the same for the same seed", () => {
    const a = new Xoshiro128(42);
    const b = new Xoshiro128(42);
    const first = Array.from({ length: 5 }, () => a.nextUint32());
    expect(Array.from({ length: 5 }, () => b.nextUint32())).toEqual(first);
    expect(first.every((v) => Number.isInteger(v) && v >= 0 && v < 2 ** 32)).toBe(true);
    expect(new Xoshiro128(43).nextUint32()).not.toBe(first[0]);
  });

  it("draws every integer below n about equally often", () => {
    const random = new Xoshiro128(7);
    const counts = new Array(10).fill(0);
    for (let i = 0; i < 100_000; i++) counts[random.below(10)]++;
    for (const count of counts) expect(Math.abs(count - 10_000)).toBeLessThan(400);
  });
});

describe("percentiles and bands", () => {
  it("takes the nearest rank", () => {
    const sorted = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    expect([5, 25, 50, 75, 95].map((p) => percentileOf(sorted, p))).toEqual([1, 3, 5, 8, 10]);
    expect(percentileOf([7], 5)).toBe(7);
  });

  it("reports every trade index up to 200 points, else 200 spread with the first and the last", () => {
    expect(Array.from(bandIndices(3))).toEqual([0, 1, 2, 3]);
    const many = bandIndices(1000);
    expect(many.length).toBe(200);
    expect([many[0], many[199]]).toEqual([0, 1000]);
    expect(many.every((v, i) => i === 0 || v > many[i - 1]!)).toBe(true);
  });
});

describe("a Monte Carlo of closed trades", () => {
  const returns = [0.05, -0.02, 0.1, -0.07, 0.03, 0.01, -0.04, 0.08];
  const final = returns.reduce((equity, r) => equity * (1 + r), 100_000);

  it("reshuffles: every path ends at the trades' final equity to the cent, only the path differs", () => {
    const figures = simulate(trades(returns, 500, 1, "reshuffle"));
    for (const path of figures.finals) expect(cents(path)).toBe(cents(final));
    expect(cents(figures.final_equity.p5)).toBe(cents(final));
    expect(cents(figures.final_equity.p95)).toBe(cents(final));
    expect(figures.total_return.p50).toBeCloseTo(final / 100_000 - 1, 12);
    // The drawdowns differ from path to path: the order matters.
    expect(figures.max_drawdown.p95).toBeGreaterThan(figures.max_drawdown.p5);
    const last = figures.bands.at(-1)!;
    expect(last.trade).toBe(returns.length);
    expect(Math.abs(last.p5 - final)).toBeLessThan(0.02);
  });

  it("gives the same figures for the same seed and others for another", () => {
    const a = simulate(trades(returns, 300, 99, "bootstrap"));
    const b = simulate(trades(returns, 300, 99, "bootstrap"));
    expect(Array.from(b.finals)).toEqual(Array.from(a.finals));
    expect(b.max_drawdown).toEqual(a.max_drawdown);
    expect(b.bands).toEqual(a.bands);
    const c = simulate(trades(returns, 300, 100, "bootstrap"));
    expect(Array.from(c.finals)).not.toEqual(Array.from(a.finals));
  });

  it("bootstraps: paths draw with replacement, so their final equities spread", () => {
    const figures = simulate(trades(returns, 2000, 5, "bootstrap"));
    expect(figures.final_equity.p5).toBeLessThan(final);
    expect(figures.final_equity.p95).toBeGreaterThan(final);
    // The smallest and largest possible: every draw the worst trade, or every draw the best.
    expect(figures.final_equity.p5).toBeGreaterThan(100_000 * 0.93 ** returns.length);
    expect(figures.final_equity.p95).toBeLessThan(100_000 * 1.1 ** returns.length);
  });

  it("measures a path's drawdown and its duration in trades and in days by hand", () => {
    // One path whatever the draws: a single trade kind. Bootstrap of [-10 %] is -10 % every trade.
    const down = simulate({ initial: 100, returns: [-0.1, -0.1, -0.1], exitDays: [10, 12, 20], startDay: 5, paths: 3, seed: 1, method: "bootstrap" });
    expect(down.max_drawdown.p50).toBeCloseTo(1 - 0.9 ** 3, 12);
    expect(down.max_drawdown_trades.p50).toBe(3);
    // The peak is the start (day 5), the last step below it is dated at the third exit (day 20).
    expect(down.max_drawdown_days.p50).toBe(15);
    expect(down.bands.map((b) => b.trade)).toEqual([0, 1, 2, 3]);
    expect(down.bands.map((b) => b.p50)).toEqual([100, Math.fround(90), Math.fround(81), Math.fround(72.9)]);
  });

  it("takes a recovered drawdown's duration from its peak to the last step below it", () => {
    // Down 20 % then up 25 %: 100 → 80 → 100, below the start's peak for 1 trade, dated day 3 (peak day 0).
    // Up 25 % then down 20 %: 100 → 125 → 100, below the first exit's peak for 1 trade, days 3 → 8.
    const figures = simulate({ initial: 100, returns: [-0.2, 0.25], exitDays: [3, 8], startDay: 0, paths: 200, seed: 3, method: "reshuffle" });
    expect(figures.max_drawdown).toEqual({ p5: 0.2, p25: 0.2, p50: 0.2, p75: 0.2, p95: 0.2 });
    expect(figures.max_drawdown_trades).toEqual({ p5: 1, p25: 1, p50: 1, p75: 1, p95: 1 });
    expect([figures.max_drawdown_days.p5, figures.max_drawdown_days.p95]).toEqual([3, 5]);
    expect(Array.from(figures.finals).every((f) => f === 100)).toBe(true);
  });

  it("runs 10,000 paths of 1,000 trades in under a second", () => {
    const random = new Xoshiro128(11);
    const many = Array.from({ length: 1000 }, () => (random.nextUint32() / 2 ** 32 - 0.49) * 0.04);
    const exitDays = many.map((_, i) => 20000 + i);
    // CPU time, not wall time: the suite's other files run beside this one.
    const started = process.cpuUsage();
    const figures = simulate({ initial: 100_000, returns: many, exitDays, startDay: 19999, paths: 10_000, seed: 1, method: "reshuffle" });
    const used = process.cpuUsage(started);
    expect((used.user + used.system) / 1000).toBeLessThan(1000);
    expect(figures.bands.length).toBe(200);
  });
});
