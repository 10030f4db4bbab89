import { z } from "zod";
import type { ValidationIssue } from "../errors";
import { dailyReturns, PerformanceMetrics } from "../engine/metrics";
import { Calendar } from "../market/calendar";
import { marketOf, normalizeSymbol } from "../market/market";
import { ParameterValue } from "../strategies/parameter";
import { BacktestStatus } from "./backtest-model";

/**
 * Walk-forward optimisation, a plan a sweep may carry (docs/backtests.md "Walk-forward"): the
 * sweep's range cut into windows of trading days, each an in-sample part and the out-of-sample
 * part right after it; the grid runs on every in-sample part, the best point of each window (by
 * the sweep's metric) runs on its out-of-sample part, and the out-of-sample runs are stitched into
 * one equity curve. This module: the plan's schema, cutting the range, and the stitched curve's
 * figures; the sweep's modules run it (sweep-request.ts, sweep-result.ts, sweep-tasks.ts).
 */

/** Windows a plan may ask for at most. */
export const MAX_WINDOWS = 50;

export const WalkForwardPlan = z
  .object({
    windows: z.int().min(1).max(MAX_WINDOWS).describe("How many windows the range is cut into"),
    mode: z
      .enum(["rolling", "anchored"])
      .default("rolling")
      .describe(
        "rolling: every in-sample part has the same length and moves on by one out-of-sample part; anchored: every in-sample part starts at the first window's start",
      ),
    in_sample_days: z.int().min(1).optional().describe("Trading days of an in-sample part (of the first one when anchored); with out_of_sample_days"),
    out_of_sample_days: z.int().min(1).optional().describe("Trading days of an out-of-sample part; with in_sample_days"),
    ratio: z.number().gt(0).lt(1).optional().describe("Instead of the days: the in-sample share of the first window; the range's trading days are all used"),
  })
  .meta({ id: "WalkForwardPlan" });
export type WalkForwardPlan = z.infer<typeof WalkForwardPlan>;

export interface DateRange {
  start_date: string;
  end_date: string;
}

/** One window of a plan: its in-sample part and the out-of-sample part after it. */
export interface WalkForwardWindow {
  in_sample: DateRange & { trading_days: number };
  out_of_sample: DateRange & { trading_days: number };
}

/** A plan as a sweep stores it: as asked, and the windows it cut. */
export interface StoredWalkForward {
  plan: WalkForwardPlan;
  windows: WalkForwardWindow[];
}

const loc = (field: string): (string | number)[] => ["body", "walk_forward", field];

/**
 * The windows of `plan` over the trading days `days` (ascending): out-of-sample parts of
 * `out_of_sample_days` back to back, each after its in-sample part. With days the windows end on
 * the range's last trading day (the days before the first window are not used); with `ratio` every
 * day is used: the out-of-sample parts are `floor(T / (N + r / (1 - r)))` days and the first
 * in-sample part takes the rest. Issues instead when a part would have no trading day or the plan
 * needs more days than the range has.
 */
export function cutWindows(plan: WalkForwardPlan, days: readonly string[]): { windows: WalkForwardWindow[]; issues: ValidationIssue[] } {
  const total = days.length;
  const n = plan.windows;
  let inSample: number;
  let outOfSample: number;
  if (plan.ratio !== undefined) {
    outOfSample = Math.floor(total / (n + plan.ratio / (1 - plan.ratio)));
    inSample = total - n * outOfSample;
    if (outOfSample < 1 || inSample < 1) {
      return {
        windows: [],
        issues: [
          {
            loc: loc("ratio"),
            msg: `the range's ${total} trading days cut into ${n} windows at ratio ${plan.ratio} leave ${outOfSample < 1 ? "an out-of-sample" : "an in-sample"} part without a trading day`,
            type: "window_without_trading_day",
          },
        ],
      };
    }
  } else {
    inSample = plan.in_sample_days!;
    outOfSample = plan.out_of_sample_days!;
    const needed = inSample + n * outOfSample;
    if (needed > total) {
      return {
        windows: [],
        issues: [
          {
            loc: loc("windows"),
            msg: `the plan needs ${needed} trading days (in_sample_days ${inSample} + ${n} windows × out_of_sample_days ${outOfSample}), the range has ${total}`,
            type: "range_too_short",
          },
        ],
      };
    }
  }
  const first = total - (inSample + n * outOfSample);
  const part = (from: number, count: number) => ({ start_date: days[from]!, end_date: days[from + count - 1]!, trading_days: count });
  const windows = Array.from({ length: n }, (_, k) => {
    const outStart = first + inSample + k * outOfSample;
    const inStart = plan.mode === "anchored" ? first : first + k * outOfSample;
    return { in_sample: part(inStart, outStart - inStart), out_of_sample: part(outStart, outOfSample) };
  });
  return { windows, issues: [] };
}

/** Problems of a plan as a whole (its sizes given one way); the range's are `cutWindows`'. */
export function planIssues(plan: WalkForwardPlan, withOutOfSample: boolean): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const days = plan.in_sample_days !== undefined || plan.out_of_sample_days !== undefined;
  if (plan.ratio !== undefined && days) {
    issues.push({ loc: loc("ratio"), msg: "give ratio or in_sample_days and out_of_sample_days, not both", type: "value_error" });
  } else if (plan.ratio === undefined) {
    for (const field of ["in_sample_days", "out_of_sample_days"] as const) {
      if (plan[field] === undefined)
        issues.push({ loc: loc(field), msg: `${field} is required without ratio (or give ratio instead of the days)`, type: "missing" });
    }
  }
  if (withOutOfSample) {
    issues.push({
      loc: ["body", "out_of_sample"],
      msg: "out_of_sample and walk_forward exclude each other: a walk-forward runs each window's best out of sample itself",
      type: "value_error",
    });
  }
  return issues;
}

/** The trading days of the range on the calendar of the first symbol's market (the run's base market); none when it cannot tell. */
export function tradingDaysOf(symbols: readonly string[], range: DateRange): string[] {
  try {
    return Calendar.for(marketOf(normalizeSymbol(symbols[0]!))).tradingDays(range.start_date, range.end_date);
  } catch {
    return [];
  }
}

/** One day of the stitched curve. */
export interface StitchedDay {
  date: string;
  equity: number;
  window: number;
}

const round = (value: number) => Math.round(value * 1e6) / 1e6;
const finite = (value: number): number | null => (Number.isFinite(value) ? round(value) : null);

/**
 * The out-of-sample runs chained into one curve: every run started from the sweep's capital, so
 * each window's daily closes are scaled by the stitched equity the window before ended at over that
 * capital (the runs' returns compounded, window after window).
 */
export function stitch(initial: number, runs: { window: number; days: { date: string; equity: number }[] }[]): StitchedDay[] {
  const out: StitchedDay[] = [];
  let level = initial;
  for (const run of runs) {
    const scale = level / initial;
    for (const day of run.days) out.push({ date: day.date, equity: day.equity * scale, window: run.window });
    if (run.days.length > 0) level = run.days.at(-1)!.equity * scale;
  }
  return out;
}

/** Figures of a daily equity curve, by the formulas of a backtest's (docs/trading-engine.md), on its daily closes. */
export function curveFigures(initial: number, equity: readonly number[], tradingDaysPerYear: number) {
  const returns = dailyReturns(initial, equity);
  const n = returns.length;
  const mean = n > 0 ? returns.reduce((a, b) => a + b, 0) / n : 0;
  const variance = n > 1 ? returns.reduce((a, r) => a + (r - mean) ** 2, 0) / (n - 1) : 0;
  const downside = n > 0 ? Math.sqrt(returns.reduce((a, r) => a + Math.min(r, 0) ** 2, 0) / n) : 0;
  const final = n > 0 ? equity[n - 1]! : initial;
  const growth = initial > 0 ? final / initial : 1;
  let peak = initial;
  let peakDay = -1;
  let maxDrawdown = 0;
  let maxDays = 0;
  equity.forEach((value, day) => {
    if (value >= peak) {
      peak = value;
      peakDay = day;
    } else {
      maxDrawdown = Math.max(maxDrawdown, (peak - value) / peak);
      maxDays = Math.max(maxDays, day - peakDay);
    }
  });
  const annual = Math.sqrt(tradingDaysPerYear);
  return {
    initial_equity: initial.toFixed(2),
    final_equity: final.toFixed(2),
    total_return: round(growth - 1),
    annualized_return: n > 0 && growth > 0 ? finite(growth ** (tradingDaysPerYear / n) - 1) : null,
    sharpe_ratio: variance > 0 ? finite((mean / Math.sqrt(variance)) * annual) : null,
    sortino_ratio: downside > 0 ? finite((mean / downside) * annual) : null,
    max_drawdown: round(maxDrawdown),
    max_drawdown_duration_days: maxDays,
    trading_days: n,
  };
}

/** Walk-forward efficiency: the out-of-sample annualised return over the in-sample one; null when either is undefined or the in-sample one is 0. */
export function efficiency(outOfSample: number | null, inSample: number | null): number | null {
  if (outOfSample === null || inSample === null || inSample === 0) return null;
  return finite(outOfSample / inSample);
}

const Range = z.object({ start_date: z.string(), end_date: z.string(), trading_days: z.int() });

export const WalkForwardResult = z
  .object({
    plan: WalkForwardPlan,
    windows: z.array(
      z.object({
        window: z.int().describe("0 for the first"),
        in_sample: Range,
        out_of_sample: Range,
        in_sample_runs: z.int().describe("The window's in-sample runs that completed"),
        best: z
          .object({
            backtest_id: z.string().describe("The in-sample run of the best point"),
            parameters: z.record(z.string(), ParameterValue),
            value: z.number().nullable().describe("Its in-sample value of the metric"),
            annualized_return: z.number().nullable().describe("Its in-sample annualised return"),
          })
          .nullable()
          .describe("The window's best point in sample (the ranking's first); null when no in-sample run completed"),
        out_of_sample_run: z
          .object({ backtest_id: z.string(), status: BacktestStatus, value: z.number().nullable(), performance_metrics: PerformanceMetrics.nullable() })
          .nullable()
          .describe("The best point run over the out-of-sample part; null until it is created (or when there is no best)"),
      }),
    ),
    stitched: PerformanceMetrics.pick({
      initial_equity: true,
      final_equity: true,
      total_return: true,
      annualized_return: true,
      sharpe_ratio: true,
      sortino_ratio: true,
      max_drawdown: true,
      max_drawdown_duration_days: true,
    })
      .extend({
        windows: z.int().describe("Out-of-sample runs stitched (the completed ones, in window order)"),
        trading_days: z.int(),
        equity_curve: z
          .array(z.object({ date: z.string(), equity: z.string(), window: z.int() }))
          .describe("The stitched daily closes (at most 1,000 points: evenly thinned, the last kept)"),
      })
      .nullable()
      .describe("The out-of-sample runs chained: each window's returns compounded on the equity the one before ended at; null when none completed"),
    in_sample_annualized_return: z.number().nullable().describe("The mean of the windows' best in-sample annualised returns"),
    out_of_sample_annualized_return: z.number().nullable().describe("The stitched curve's annualised return"),
    efficiency: z.number().nullable().describe("Walk-forward efficiency: out_of_sample_annualized_return / in_sample_annualized_return"),
  })
  .meta({ id: "WalkForwardResult" });
export type WalkForwardResult = z.infer<typeof WalkForwardResult>;

/** At most `max` points of a curve, evenly spaced, the last always kept. */
export function thin<T>(points: T[], max: number): T[] {
  if (points.length <= max) return points;
  const step = points.length / max;
  const out = Array.from({ length: max - 1 }, (_, i) => points[Math.floor(i * step)]!);
  out.push(points.at(-1)!);
  return out;
}
