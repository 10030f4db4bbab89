import { describe, expect, it } from "vitest";
import { curveFigures, cutWindows, efficiency, planIssues, stitch, tradingDaysOf } from "./walk-forward";

/** `count` made-up trading days, D00, D01, … (the cut only orders and counts them). */
const days = (count: number) => Array.from({ length: count }, (_, i) => `D${String(i).padStart(2, "0")}`);

describe("a walk-forward plan's windows", () => {
  it("cuts rolling windows by days, back to back, ending on the range's last trading day", () => {
    const { windows, issues } = cutWindows({ windows: 3, mode: "rolling", in_sample_days: 4, out_of_sample_days: 2 }, days(12));
    expect(issues).toEqual([]);
    // 4 + 3 × 2 = 10 of the 12 days: the first two are left out.
    expect(windows.map((w) => [w.in_sample.start_date, w.in_sample.end_date, w.out_of_sample.start_date, w.out_of_sample.end_date])).toEqual([
      ["D02", "D05", "D06", "D07"],
      ["D04", "D07", "D08", "D09"],
      ["D06", "D09", "D10", "D11"],
    ]);
    expect(windows.map((w) => [w.in_sample.trading_days, w.out_of_sample.trading_days])).toEqual([
      [4, 2],
      [4, 2],
      [4, 2],
    ]);
  });

  it("anchors every in-sample part at the first window's start", () => {
    const { windows } = cutWindows({ windows: 3, mode: "anchored", in_sample_days: 4, out_of_sample_days: 2 }, days(10));
    expect(windows.map((w) => [w.in_sample.start_date, w.in_sample.end_date, w.in_sample.trading_days, w.out_of_sample.start_date])).toEqual([
      ["D00", "D03", 4, "D04"],
      ["D00", "D05", 6, "D06"],
      ["D00", "D07", 8, "D08"],
    ]);
  });

  it("uses every day with a ratio: out-of-sample parts of floor(T / (N + r / (1 - r))) days, the first in-sample part the rest", () => {
    // 1,258 days, 10 windows at 0.8: floor(1258 / 14) = 89 out of sample, 1258 - 890 = 368 in sample.
    const { windows } = cutWindows(
      { windows: 10, mode: "rolling", ratio: 0.8 },
      Array.from({ length: 1258 }, (_, i) => String(i).padStart(4, "0")),
    );
    expect(windows[0]!.in_sample).toEqual({ start_date: "0000", end_date: "0367", trading_days: 368 });
    expect(windows[0]!.out_of_sample).toEqual({ start_date: "0368", end_date: "0456", trading_days: 89 });
    expect(windows[9]!.out_of_sample).toEqual({ start_date: "1169", end_date: "1257", trading_days: 89 });
  });

  it("says how many days a plan needs beyond the range's, and a ratio that leaves a part without a day", () => {
    expect(cutWindows({ windows: 5, mode: "rolling", in_sample_days: 10, out_of_sample_days: 3 }, days(20)).issues).toEqual([
      {
        loc: ["body", "walk_forward", "windows"],
        msg: "the plan needs 25 trading days (in_sample_days 10 + 5 windows × out_of_sample_days 3), the range has 20",
        type: "range_too_short",
      },
    ]);
    expect(cutWindows({ windows: 10, mode: "rolling", ratio: 0.9 }, days(15)).issues[0]!.msg).toBe(
      "the range's 15 trading days cut into 10 windows at ratio 0.9 leave an out-of-sample part without a trading day",
    );
  });

  it("asks for the days or a ratio, not both, and not beside out_of_sample", () => {
    expect(planIssues({ windows: 2, mode: "rolling" }, false).map((i) => i.loc.join("."))).toEqual([
      "body.walk_forward.in_sample_days",
      "body.walk_forward.out_of_sample_days",
    ]);
    expect(planIssues({ windows: 2, mode: "rolling", ratio: 0.5, in_sample_days: 3 }, true).map((i) => i.loc.join("."))).toEqual([
      "body.walk_forward.ratio",
      "body.out_of_sample",
    ]);
  });

  it("counts trading days on the first symbol's exchange calendar", () => {
    // 2024-07-04 is Independence Day, the 6th and 7th a weekend.
    expect(tradingDaysOf(["AAPL.US"], { start_date: "2024-07-03", end_date: "2024-07-08" })).toEqual(["2024-07-03", "2024-07-05", "2024-07-08"]);
  });
});

describe("the stitched out-of-sample curve", () => {
  it("chains each window's returns on the equity the window before ended at", () => {
    const curve = stitch(100, [
      {
        window: 0,
        days: [
          { date: "a", equity: 110 },
          { date: "b", equity: 120 },
        ],
      },
      {
        window: 1,
        days: [
          { date: "c", equity: 90 },
          { date: "d", equity: 105 },
        ],
      },
    ]);
    // Window 1 ran from 100 too: its closes scaled by 120 / 100.
    expect(curve.map((d) => [d.date, Number(d.equity.toFixed(6)), d.window])).toEqual([
      ["a", 110, 0],
      ["b", 120, 0],
      ["c", 108, 1],
      ["d", 126, 1],
    ]);
    const figures = curveFigures(
      100,
      curve.map((d) => d.equity),
      252,
    );
    expect(figures).toMatchObject({ initial_equity: "100.00", final_equity: "126.00", total_return: 0.26, trading_days: 4 });
    // Peak 120 to 108: 10 %, one day under water until 126.
    expect(figures.max_drawdown).toBe(0.1);
    expect(figures.max_drawdown_duration_days).toBe(1);
    expect(figures.annualized_return).toBeCloseTo(1.26 ** (252 / 4) - 1, 0);
  });

  it("measures efficiency as out-of-sample over in-sample annualised return, undefined without both", () => {
    expect(efficiency(0.05, 0.2)).toBe(0.25);
    expect(efficiency(0.05, 0)).toBeNull();
    expect(efficiency(null, 0.2)).toBeNull();
  });
});
