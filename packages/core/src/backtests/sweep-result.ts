import type { z } from "zod";
import type { PerformanceMetrics } from "../engine/metrics";
import { Markets, marketOf, normalizeSymbol } from "../market/market";
import { isoDateOf } from "../market/zoned-time";
import { iso } from "../util/time";
import { allOf } from "../util/pages";
import { TRADING_DAYS_PER_YEAR } from "../trading/session/config";
import type { StoredBacktest } from "./backtest-model";
import { runIdOf } from "./backtest-control";
import { ASCENDING, type StoredSweep, type SweepControlDeps, type SweepMetric, type SweepResult } from "./sweep-model";
import { gridRuns, type InSampleRun } from "./sweep-grid";
import { curveFigures, efficiency, stitch, thin, type StoredWalkForward, type WalkForwardResult } from "./walk-forward";

/**
 * A sweep's runs read back and ranked: its runs as stored (a walk-forward grid's outcomes in
 * sample), the completed ones ranked by the sweep's metric and each walk-forward window's best,
 * and the result a finished sweep answers: the ranking, the runs not ranked, and a walk-forward's
 * windows with its out-of-sample runs stitched into one curve (docs/backtests.md "Walk-forward").
 */

/**
 * The sweep's runs (in sample, then out of sample) as stored; absent until the plan created them.
 * A walk-forward's grid (`grid`) answers its points' outcomes in sample (a point not run is
 * `stopped` once the sweep is), and `stored` the backtests it stored of each window's best (by
 * out-of-sample run; empty for a sweep whose runs are backtests).
 */
export async function runsOf(deps: Pick<SweepControlDeps, "backtests" | "grids">, sweep: StoredSweep) {
  const grid = Boolean(sweep.grid);
  const ids = [
    ...(sweep.runs_created && !grid ? sweep.runs.map((r) => r.backtest_id) : []),
    ...sweep.oos_runs.map((r) => r.backtest_id),
    ...(grid ? sweep.oos_runs.map((r) => r.of) : []),
  ];
  const [stored, chunks] = await Promise.all([deps.backtests.getMany(ids), grid ? deps.grids.chunks(sweep.id) : []]);
  const found = new Map(stored.map((b) => [b.id, b]));
  const inSample: (InSampleRun | undefined)[] = grid
    ? gridRuns(sweep.runs, chunks, sweep.status === "stopped")
    : sweep.runs.map((r) => found.get(r.backtest_id));
  return {
    inSample,
    outOfSample: sweep.oos_runs.map((r) => found.get(r.backtest_id)),
    stored: grid ? sweep.oos_runs.map((r) => found.get(r.of)) : [],
  };
}

export const ended = (b: Pick<InSampleRun, "status"> | undefined) =>
  b !== undefined && (b.status === "completed" || b.status === "stopped" || b.status === "failed");

/** A run's value of the metric as a number (metrics in money are decimal strings); null when it has none. */
function valueOf(metrics: z.infer<typeof PerformanceMetrics> | undefined, metric: SweepMetric): number | null {
  const raw = metrics?.[metric];
  if (raw === null || raw === undefined) return null;
  const value = Number(raw);
  return Number.isFinite(value) ? value : null;
}

/** An out-of-sample run as a result names it: its id, status, metric and figures (null until it has a result). */
const outOfSampleOf = (oos: StoredBacktest, metric: SweepMetric) => ({
  backtest_id: oos.id,
  status: oos.status,
  value: valueOf(oos.result?.performance_metrics, metric),
  performance_metrics: oos.result?.performance_metrics ?? null,
});

/**
 * Completed runs of the grid, best first by the metric (undefined values last, ties in grid
 * order); with a walk-forward plan window by window, each window's best first.
 */
export function ranked(sweep: StoredSweep, inSample: (InSampleRun | undefined)[]) {
  const sign = ASCENDING.has(sweep.metric) ? 1 : -1;
  return sweep.runs
    .map((run, index) => ({ run, index, backtest: inSample[index] }))
    .filter((entry): entry is typeof entry & { backtest: InSampleRun } => entry.backtest?.status === "completed" && entry.backtest.result !== null)
    .map((entry) => ({ ...entry, value: valueOf(entry.backtest.result!.performance_metrics, sweep.metric) }))
    .sort(
      (a, b) =>
        (a.run.window ?? 0) - (b.run.window ?? 0) ||
        (a.value === null ? (b.value === null ? 0 : 1) : b.value === null ? -1 : sign * (a.value - b.value)) ||
        a.index - b.index,
    );
}

/** Each walk-forward window's best completed in-sample run (the argmax of the metric over the window's runs), by window. */
export function bestOfWindows(sweep: StoredSweep, inSample: (InSampleRun | undefined)[]) {
  const best = new Map<number, ReturnType<typeof ranked>[number]>();
  for (const entry of ranked(sweep, inSample)) if (!best.has(entry.run.window ?? 0)) best.set(entry.run.window ?? 0, entry);
  return best;
}

/** The result of a finished sweep (completed or stopped): its ranking, its runs not ranked and a walk-forward's result. */
export async function resultOf(deps: Pick<SweepControlDeps, "backtests" | "grids" | "runs">, sweep: StoredSweep): Promise<SweepResult> {
  const { inSample, outOfSample } = await runsOf(deps, sweep);
  const oosOf = new Map(sweep.oos_runs.map((r, index) => [r.of, outOfSample[index]]));
  const best = ranked(sweep, inSample);
  const rankedIds = new Set(best.map((entry) => entry.run.backtest_id));
  // A walk-forward's grid stores a backtest of each window's best alone (the in-sample run its out-of-sample run is `of`).
  const storedIds = sweep.grid ? new Set(sweep.oos_runs.map((r) => r.of)) : null;
  return {
    sweep_id: sweep.id,
    session_id: sweep.session_id,
    status: sweep.status,
    strategy_name: sweep.base.strategy_name,
    symbols: sweep.base.symbols,
    start_date: sweep.base.start_date,
    end_date: sweep.base.end_date,
    metric: sweep.metric,
    order: ASCENDING.has(sweep.metric) ? "ascending" : "descending",
    out_of_sample: sweep.out_of_sample,
    runs_total: sweep.runs.length,
    ranking: best.map((entry, at) => {
      const oos = oosOf.get(entry.run.backtest_id);
      // Ranks count within a walk-forward window (the ranking lists the windows in order).
      const rank = at - best.findIndex((other) => (other.run.window ?? 0) === (entry.run.window ?? 0));
      return {
        rank: rank + 1,
        window: entry.run.window ?? null,
        backtest_id: entry.run.backtest_id,
        stored: storedIds === null || storedIds.has(entry.run.backtest_id),
        parameters: entry.run.parameters,
        value: entry.value,
        performance_metrics: entry.backtest.result!.performance_metrics,
        out_of_sample: oos ? outOfSampleOf(oos, sweep.metric) : null,
      };
    }),
    not_ranked: sweep.runs
      .map((run, index) => ({ run, backtest: inSample[index] }))
      // A run created and no longer stored has expired (runs_expire_at): it is gone, not stopped.
      .filter(({ run, backtest }) => !rankedIds.has(run.backtest_id) && !(backtest === undefined && sweep.runs_created && sweep.runs_expire_at))
      .map(({ run, backtest }) => ({
        backtest_id: run.backtest_id,
        window: run.window ?? null,
        parameters: run.parameters,
        status: backtest?.status ?? "stopped",
        error: backtest?.error ?? null,
      })),
    skipped: sweep.skipped,
    completed_at: sweep.finished_at,
    runs_expire_at: sweep.runs_expire_at ? iso(sweep.runs_expire_at * 1000) : null,
    walk_forward: sweep.walk_forward ? await walkForwardResult(deps, sweep, sweep.walk_forward, inSample, outOfSample) : null,
  };
}

/** Points of the stitched curve a result carries at most. */
const MAX_STITCHED_POINTS = 1000;

/**
 * A walk-forward's result: per window its parts, its best in-sample point and that point's
 * out-of-sample run; the completed out-of-sample runs stitched (`stitch`: returns chained) with
 * the curve's figures; the efficiency, the stitched annualised return over the mean of the
 * windows' best in-sample annualised returns (docs/backtests.md "Walk-forward").
 */
async function walkForwardResult(
  deps: Pick<SweepControlDeps, "runs">,
  sweep: StoredSweep,
  walkForward: StoredWalkForward,
  inSample: (InSampleRun | undefined)[],
  outOfSample: (StoredBacktest | undefined)[],
): Promise<WalkForwardResult> {
  const best = bestOfWindows(sweep, inSample);
  const completed = ranked(sweep, inSample);
  const oosOf = new Map(sweep.oos_runs.map((r, index) => [r.window ?? 0, outOfSample[index]]));
  const windows = walkForward.windows.map((window, k) => {
    const top = best.get(k);
    const oos = oosOf.get(k);
    return {
      window: k,
      in_sample: window.in_sample,
      out_of_sample: window.out_of_sample,
      in_sample_runs: completed.filter((entry) => (entry.run.window ?? 0) === k).length,
      best: top
        ? {
            backtest_id: top.run.backtest_id,
            parameters: top.run.parameters,
            value: top.value,
            annualized_return: top.backtest.result!.performance_metrics.annualized_return,
          }
        : null,
      out_of_sample_run: oos ? outOfSampleOf(oos, sweep.metric) : null,
    };
  });
  const initial = Number(sweep.base.initial_capital);
  const stitchedRuns = [];
  for (const [k, oos] of [...oosOf.entries()].sort((a, b) => a[0] - b[0])) {
    if (oos?.status !== "completed" || !oos.result) continue;
    const dayEnds = await allOf((cursor) => deps.runs.events(runIdOf(oos), { category: "day", limit: 1000, cursor }));
    stitchedRuns.push({ window: k, days: dayEnds.map((e) => ({ date: isoDateOf(Number(e.data.day)), equity: Number(e.data.equity) })) });
  }
  const curve = stitch(initial, stitchedRuns);
  const perYear = TRADING_DAYS_PER_YEAR[Markets[marketOf(normalizeSymbol(sweep.base.symbols[0]!))].currency] ?? 252;
  const figures =
    curve.length > 0
      ? curveFigures(
          initial,
          curve.map((day) => day.equity),
          perYear,
        )
      : null;
  const inSampleReturns = windows.map((w) => w.best?.annualized_return).filter((r): r is number => r !== null && r !== undefined);
  const inSampleMean = inSampleReturns.length > 0 ? Math.round((inSampleReturns.reduce((a, b) => a + b, 0) / inSampleReturns.length) * 1e6) / 1e6 : null;
  const outOfSampleReturn = figures?.annualized_return ?? null;
  return {
    plan: walkForward.plan,
    windows,
    stitched: figures
      ? {
          windows: stitchedRuns.length,
          ...figures,
          equity_curve: thin(curve, MAX_STITCHED_POINTS).map((day) => ({ date: day.date, equity: day.equity.toFixed(2), window: day.window })),
        }
      : null,
    in_sample_annualized_return: inSampleMean,
    out_of_sample_annualized_return: outOfSampleReturn,
    efficiency: efficiency(outOfSampleReturn, inSampleMean),
  };
}
