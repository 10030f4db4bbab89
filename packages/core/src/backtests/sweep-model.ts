import { z } from "zod";
import { PerformanceMetrics } from "../engine/metrics";
import { IsoDate } from "../money/decimal";
import { ParameterValue } from "../strategies/parameter";
import { type ControllableRun, type ControllableRunStore, controlResultOf, progressFieldsOf, resultFieldsOf } from "./controllable-run";
import { BacktestRequest, BacktestStatus, type BacktestControlDeps, type BacktestDeps } from "./backtest-model";
import type { StoredGrid, SweepGridStore } from "./sweep-grid";
import { type StoredWalkForward, WalkForwardPlan, WalkForwardResult } from "./walk-forward";

/**
 * Parameter sweeps: one strategy over a grid of its parameters, each point a backtest of its own
 * (a `StoredBacktest` with `sweep_id`, run by the backtest's own tasks), fanned out by the sweep
 * state machine's Map; the best runs are then run again over an out-of-sample window. A
 * walk-forward's in-sample points are run in process instead, a chunk of them per task, and only
 * their figures are stored (sweep-grid.ts); each window's best is then stored as a backtest. Every run
 * is planned exactly as `POST /backtest/start` plans it, so it gives that backtest's fills and
 * metrics. docs/backtests.md "Parameter sweeps".
 *
 * This module: the API's schemas, the sweep as stored, its storage port and dependencies; the
 * control side is sweep-control.ts, the state machine's tasks sweep-tasks.ts.
 */

/** A grid holds at most this many runs. */
export const MAX_SWEEP_RUNS = 1000;

/** Metrics a sweep ranks by; the ones where less is better rank ascending. */
export const SweepMetric = z
  .enum([
    "sharpe_ratio",
    "sortino_ratio",
    "total_return",
    "annualized_return",
    "profit_factor",
    "win_rate",
    "total_pnl",
    "realized_pnl",
    "final_equity",
    "exposure",
    "total_trades",
    "winning_trades",
    "average_win",
    "max_drawdown",
    "max_drawdown_duration_days",
    "current_drawdown",
    "losing_trades",
    "fees_paid",
  ])
  .meta({ id: "SweepMetric" });
export type SweepMetric = z.infer<typeof SweepMetric>;
export const ASCENDING: ReadonlySet<SweepMetric> = new Set(["max_drawdown", "max_drawdown_duration_days", "current_drawdown", "losing_trades", "fees_paid"]);

const ParameterRange = z
  .object({ min: z.number(), max: z.number(), step: z.number().positive() })
  .meta({ id: "SweepParameterRange", description: "min, min + step, … up to max (inclusive)" });
export const ParameterValues = z.union([z.array(ParameterValue).min(1).max(MAX_SWEEP_RUNS), ParameterRange]);

/** A sweep: the backtest request's fields (its `strategy_config` the base every point changes) plus the grid and how to rank it. */
export const SweepRequest = z
  .object({
    ...BacktestRequest.shape,
    parameters: z
      .record(z.string().min(1).max(64), ParameterValues)
      .refine((grid) => Object.keys(grid).length > 0, "name at least one parameter")
      .describe("Per parameter a list of values or {min, max, step}"),
    metric: SweepMetric.default("sharpe_ratio"),
    max_runs: z
      .int()
      .min(1)
      .max(MAX_SWEEP_RUNS)
      .default(MAX_SWEEP_RUNS)
      .describe("The most runs the grid may have (422 with the grid's size when it has more)"),
    out_of_sample: z
      .object({
        start_date: IsoDate,
        end_date: IsoDate,
        top: z.int().min(1).max(20).default(5).describe("How many of the best runs are run again over this window"),
      })
      .optional(),
    walk_forward: WalkForwardPlan.optional().describe(
      'A walk-forward plan: the range cut into windows, the grid run on each in-sample part and each window\'s best point on its out-of-sample part (docs/backtests.md "Walk-forward")',
    ),
  })
  .meta({ id: "SweepRequest" });
export type SweepRequest = z.infer<typeof SweepRequest>;

/** Where a sweep is; the same states as a backtest's. */
export type SweepStatus = BacktestStatus;

export type Point = Record<string, ParameterValue>;

/** A sweep as stored: the plan (every run's id and parameters), the phases' progress and the control flags. */
export interface StoredSweep extends ControllableRun {
  /** The request without its grid: what every run's backtest request is made from. */
  base: BacktestRequest;
  metric: SweepMetric;
  out_of_sample: { start_date: string; end_date: string; top: number } | null;
  /**
   * The grid's runs; with a walk-forward plan, every window's (`window` its index). A run's
   * `backtest_id` is its backtest's, or with `grid` the id a point of the grid is known by (only
   * each window's best is stored as a backtest, with this id).
   */
  runs: { backtest_id: string; parameters: Point; window?: number }[];
  /** Points of the grid the strategy refuses as a whole (a fast period not below the slow one…), with why. */
  skipped: { parameters: Point; reason: string }[];
  oos_runs: { backtest_id: string; of: string; window?: number }[];
  /** The walk-forward plan and its windows; null or absent for a plain sweep. */
  walk_forward?: StoredWalkForward | null;
  /** A walk-forward's in-sample grid run in process: its chunks, planned with the runs (absent before, and on sweeps whose runs are backtests). */
  grid?: StoredGrid | null;
  /** Phase of the plan: the candles checked and imported, the runs created, the out-of-sample runs created. */
  runs_created: boolean;
  oos_created: boolean;
  /** When (epoch seconds) the runs not kept expire: set when the plan creates them; null or absent, never. */
  runs_expire_at?: number | null;
}

/** Storage port of sweeps. */
export interface SweepStore extends ControllableRunStore<StoredSweep> {
  /** The control flags alone (what each run reads at its checkpoints). */
  flags(id: string): Promise<{ pause_requested: boolean; stop_requested: boolean } | undefined>;
}

/** Sweeps' control side (the HTTP endpoints). */
export type SweepControlDeps = BacktestControlDeps & { sweeps: SweepStore; grids: SweepGridStore };
/**
 * Sweeps' workflow tasks: the backtests' task deps plus the store, the Map's concurrency (the
 * stage's setting) and how many days a sweep's runs are kept (SWEEP_RUN_TTL_DAYS; 0: for ever).
 */
export type SweepDeps = BacktestDeps & { sweeps: SweepStore; grids: SweepGridStore; sweepConcurrency: number; sweepRunTtlDays: number };

/** Days a sweep's runs are kept unless configured (SWEEP_RUN_TTL_DAYS), defined beside the other workflow settings. */
export { SWEEP_RUN_TTL_DAYS } from "../workflows";

/** Best runs of a sweep's ranking kept past the retention when it has no out-of-sample phase (with one: its `top`). */
export const SWEEP_KEPT_RUNS = 5;

export const SweepStarted = z
  .object({
    success: z.boolean(),
    message: z.string(),
    sweep_id: z.string(),
    runs: z.int().describe("Backtests the grid runs"),
    skipped: z.int().describe("Points of the grid the strategy refuses (listed in the result)"),
  })
  .meta({ id: "SweepStarted" });

const shared = progressFieldsOf("sweep", ["in_sample", "out_of_sample"], "Percent of all runs (in and out of sample) ended");

export const SweepProgress = z
  .object({
    sweep_id: shared.sweep_id,
    status: shared.status,
    stage: shared.stage,
    runs_total: z.int(),
    runs_done: z.int().describe("Runs completed"),
    runs_failed: z.int(),
    runs_stopped: z.int(),
    out_of_sample_total: z.int(),
    out_of_sample_done: z.int(),
    progress: shared.progress,
    is_running: shared.is_running,
    is_paused: shared.is_paused,
    metric: SweepMetric,
    message: shared.message,
  })
  .meta({ id: "SweepProgress" });

export const SweepControlResult = controlResultOf("sweep", "SweepControlResult");

const RankedRun = z.object({
  rank: z.int().describe("1 for the best (of its window, with a walk-forward plan)"),
  window: z.int().nullable().describe("The walk-forward window of the run (0 for the first); null for a plain sweep"),
  backtest_id: z
    .string()
    .describe(
      "The run's backtest (GET /backtest/{backtest_id}/result) when `stored`; a walk-forward's other in-sample points are run in process and keep only their figures, this id naming the point",
    ),
  stored: z
    .boolean()
    .describe(
      "Whether backtest_id names a stored backtest: every run of a plain sweep; of a walk-forward's in-sample points, each window's best alone (docs/backtests.md \"Walk-forward\")",
    ),
  parameters: z.record(z.string(), ParameterValue),
  value: z.number().nullable().describe("The run's value of the metric (null when undefined, e.g. a Sharpe ratio without returns: ranked last)"),
  performance_metrics: PerformanceMetrics,
  out_of_sample: z
    .object({ backtest_id: z.string(), status: BacktestStatus, value: z.number().nullable(), performance_metrics: PerformanceMetrics.nullable() })
    .nullable()
    .describe("The same parameters over the out-of-sample window (the best `top` runs only)"),
});

export const SweepResult = z
  .object({
    ...resultFieldsOf("sweep"),
    metric: SweepMetric,
    order: z.enum(["descending", "ascending"]),
    out_of_sample: z.object({ start_date: z.string(), end_date: z.string(), top: z.int() }).nullable(),
    runs_total: z.int(),
    ranking: z.array(RankedRun).describe("Completed runs, best first (with a walk-forward plan: window by window, each best first)"),
    not_ranked: z.array(
      z.object({
        backtest_id: z.string().describe("The run's backtest; of a walk-forward's in-sample point, the id naming the point (no backtest is stored for it)"),
        window: z.int().nullable(),
        parameters: z.record(z.string(), ParameterValue),
        status: BacktestStatus,
        error: z.string().nullable(),
      }),
    ),
    skipped: z.array(z.object({ parameters: z.record(z.string(), ParameterValue), reason: z.string() })),
    completed_at: z.string().nullable(),
    runs_expire_at: z
      .string()
      .nullable()
      .describe(
        "When the runs the result does not keep expire (SWEEP_RUN_TTL_DAYS after they were created): each with its events and orders is then gone, and the ranking and not_ranked list only what is left; the best runs (out_of_sample.top of them, or 5) and the out-of-sample runs are kept. Null: kept for ever (a walk-forward's: its in-sample figures are kept with the sweep, and the backtests it stores, each window's best and out-of-sample runs, are kept)",
      ),
    walk_forward: WalkForwardResult.nullable().describe("The walk-forward's windows, stitched out-of-sample curve and efficiency; null for a plain sweep"),
  })
  .meta({ id: "SweepResult" });
export type SweepResult = z.infer<typeof SweepResult>;
