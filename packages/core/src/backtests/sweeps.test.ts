import { describe, expect, it } from "vitest";
import { ValidationError } from "../errors";
import { grid } from "./sweeps";

const issuesOf = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    if (error instanceof ValidationError) return error.issues.map((issue) => ({ loc: issue.loc.join("."), msg: issue.msg }));
    throw error;
  }
  throw new Error("expected a ValidationError");
};

describe("a sweep's grid", () => {
  it("lists every combination, the first parameter changing slowest, ranges stepped to max without float drift", () => {
    expect(grid({ strategy_name: "bollinger_breakout", parameters: { period: [10, 20], std_dev: { min: 1.5, max: 2.1, step: 0.3 } }, max_runs: 1000 })).toEqual(
      [
        { period: 10, std_dev: 1.5 },
        { period: 10, std_dev: 1.8 },
        { period: 10, std_dev: 2.1 },
        { period: 20, std_dev: 1.5 },
        { period: 20, std_dev: 1.8 },
        { period: 20, std_dev: 2.1 },
      ],
    );
  });

  it("keeps a repeated value once and takes enum values from a list", () => {
    expect(grid({ strategy_name: "ma_crossover", parameters: { ma_type: ["sma", "ema", "sma"], fast_period: [5] }, max_runs: 10 })).toEqual([
      { ma_type: "sma", fast_period: 5 },
      { ma_type: "ema", fast_period: 5 },
    ]);
  });

  it("names every value outside the strategy's ranges, unknown parameters and wrong types", () => {
    const issues = issuesOf(() =>
      grid({
        strategy_name: "ma_crossover",
        parameters: { fast_period: [1, 5.5], slow_period: { min: 3, max: 600, step: 100 }, ma_type: ["wma"], speed: [1] },
        max_runs: 1000,
      }),
    );
    expect(issues.map((issue) => issue.loc)).toEqual([
      "body.parameters.fast_period.0",
      "body.parameters.fast_period.1",
      "body.parameters.slow_period.max",
      "body.parameters.ma_type.0",
      "body.parameters.speed",
    ]);
    expect(issues[0]!.msg).toContain("fast_period = 1");
    expect(issues[2]!.msg).toContain("slow_period = 600");
  });

  it("states the size of a grid over max_runs without listing it", () => {
    const issues = issuesOf(() =>
      grid({
        strategy_name: "ma_crossover",
        parameters: { fast_period: { min: 2, max: 200, step: 1 }, slow_period: { min: 3, max: 500, step: 1 } },
        max_runs: 1000,
      }),
    );
    expect(issues).toEqual([{ loc: "body.parameters", msg: "the grid has 99102 runs, more than max_runs (1000; at most 1000)" }]);
    expect(issuesOf(() => grid({ strategy_name: "nope", parameters: { a: [1] }, max_runs: 1 }))[0]!.loc).toBe("body.strategy_name");
  });
});
