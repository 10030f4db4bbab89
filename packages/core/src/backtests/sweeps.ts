import { z } from "zod";
import { conflict, DomainError, forbidden, notFound, ValidationError, type ValidationIssue } from "../errors";
import { PerformanceMetrics } from "../engine/metrics";
import { IsoDate } from "../fees/money";
import { ParameterValue, resolveParameters } from "../strategies/parameter";
import { Strategies } from "../strategies/index";
import { feedsOf } from "../trading/session-config";
import { owned, type StoredSession } from "../trading/sessions";
import type { Actor } from "../users";
import type { SweepFailureInput, SweepTaskInput, SweepTaskOutput } from "../workflows";
import * as Backtests from "./backtests";
import { ACTIVE, type Controlled, paused, resumed, stopped, TERMINAL, transition, updateVersioned } from "./control";
import type { BacktestControlDeps, BacktestDeps, BacktestRequest, BacktestStatus, StoredBacktest } from "./backtests";
import { iso } from "../time";

/**
 * Parameter sweeps: one strategy over a grid of its parameters, each point a backtest of its own
 * (a `StoredBacktest` with `sweep_id`, run by the backtest's own tasks), fanned out by the sweep
 * state machine's Map; the best runs are then run again over an out-of-sample window. Every run
 * is planned exactly as `POST /backtest/start` plans it, so it gives that backtest's fills and
 * metrics. docs/backtests.md "Parameter sweeps".
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
const ASCENDING: ReadonlySet<SweepMetric> = new Set(["max_drawdown", "max_drawdown_duration_days", "current_drawdown", "losing_trades", "fees_paid"]);

const ParameterRange = z
  .object({ min: z.number(), max: z.number(), step: z.number().positive() })
  .meta({ id: "SweepParameterRange", description: "min, min + step, … up to max (inclusive)" });
const ParameterValues = z.union([z.array(ParameterValue).min(1).max(MAX_SWEEP_RUNS), ParameterRange]);

/** A sweep: the backtest request's fields (its `strategy_config` the base every point changes) plus the grid and how to rank it. */
export const SweepRequest = z
  .object({
    ...Backtests.BacktestRequest.shape,
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
  })
  .meta({ id: "SweepRequest" });
export type SweepRequest = z.infer<typeof SweepRequest>;

/** Where a sweep is; the same states as a backtest's. */
export type SweepStatus = BacktestStatus;

type Point = Record<string, ParameterValue>;

/** A sweep as stored: the plan (every run's id and parameters), the phases' progress and the control flags. */
export interface StoredSweep extends Controlled {
  id: string;
  session_id: string;
  user_id: string;
  /** The request without its grid: what every run's backtest request is made from. */
  base: BacktestRequest;
  metric: SweepMetric;
  out_of_sample: { start_date: string; end_date: string; top: number } | null;
  runs: { backtest_id: string; parameters: Point }[];
  /** Points of the grid the strategy refuses as a whole (a fast period not below the slow one…), with why. */
  skipped: { parameters: Point; reason: string }[];
  oos_runs: { backtest_id: string; of: string }[];
  /** Phase of the plan: the candles checked and imported, the runs created, the out-of-sample runs created. */
  runs_created: boolean;
  oos_created: boolean;
  import_task_ids: string[];
  status: SweepStatus;
  message: string;
  pause_requested: boolean;
  stop_requested: boolean;
  executions: number;
  error: string | null;
  version: number;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
}

/** Storage port of sweeps. */
export interface SweepStore {
  create(sweep: StoredSweep): Promise<void>;
  get(id: string): Promise<StoredSweep | undefined>;
  replace(sweep: StoredSweep, expectedVersion: number): Promise<boolean>;
  /** Sweeps in an active state: the embedded runtime's recovery list. */
  active(): Promise<StoredSweep[]>;
  /** The control flags alone (what each run reads at its checkpoints). */
  flags(id: string): Promise<{ pause_requested: boolean; stop_requested: boolean } | undefined>;
}

/** Sweeps' control side (the HTTP endpoints). */
export type SweepControlDeps = BacktestControlDeps & { sweeps: SweepStore };
/** Sweeps' workflow tasks: the backtests' task deps plus the store and the Map's concurrency (the stage's setting). */
export type SweepDeps = BacktestDeps & { sweeps: SweepStore; sweepConcurrency: number };

export const SweepStarted = z
  .object({
    success: z.boolean(),
    message: z.string(),
    sweep_id: z.string(),
    runs: z.int().describe("Backtests the grid runs"),
    skipped: z.int().describe("Points of the grid the strategy refuses (listed in the result)"),
  })
  .meta({ id: "SweepStarted" });

export const SweepProgress = z
  .object({
    sweep_id: z.string(),
    status: Backtests.BacktestStatus,
    stage: z.enum(["queued", "importing", "in_sample", "out_of_sample", "finalizing", "done"]),
    runs_total: z.int(),
    runs_done: z.int().describe("Runs completed"),
    runs_failed: z.int(),
    runs_stopped: z.int(),
    out_of_sample_total: z.int(),
    out_of_sample_done: z.int(),
    progress: z.number().describe("Percent of all runs (in and out of sample) ended"),
    is_running: z.boolean(),
    is_paused: z.boolean(),
    metric: SweepMetric,
    message: z.string(),
  })
  .meta({ id: "SweepProgress" });

export const SweepControlResult = z
  .object({ success: z.boolean(), message: z.string(), sweep_id: z.string(), status: Backtests.BacktestStatus })
  .meta({ id: "SweepControlResult" });

const RankedRun = z.object({
  rank: z.int(),
  backtest_id: z.string(),
  parameters: z.record(z.string(), ParameterValue),
  value: z.number().nullable().describe("The run's value of the metric (null when undefined, e.g. a Sharpe ratio without returns: ranked last)"),
  performance_metrics: PerformanceMetrics,
  out_of_sample: z
    .object({ backtest_id: z.string(), status: Backtests.BacktestStatus, value: z.number().nullable(), performance_metrics: PerformanceMetrics.nullable() })
    .nullable()
    .describe("The same parameters over the out-of-sample window (the best `top` runs only)"),
});

export const SweepResult = z
  .object({
    sweep_id: z.string(),
    session_id: z.string(),
    status: Backtests.BacktestStatus,
    strategy_name: z.string(),
    symbols: z.array(z.string()),
    start_date: z.string(),
    end_date: z.string(),
    metric: SweepMetric,
    order: z.enum(["descending", "ascending"]),
    out_of_sample: z.object({ start_date: z.string(), end_date: z.string(), top: z.int() }).nullable(),
    runs_total: z.int(),
    ranking: z.array(RankedRun).describe("Completed runs, best first"),
    not_ranked: z.array(
      z.object({ backtest_id: z.string(), parameters: z.record(z.string(), ParameterValue), status: Backtests.BacktestStatus, error: z.string().nullable() }),
    ),
    skipped: z.array(z.object({ parameters: z.record(z.string(), ParameterValue), reason: z.string() })),
    completed_at: z.string().nullable(),
  })
  .meta({ id: "SweepResult" });
export type SweepResult = z.infer<typeof SweepResult>;

const sweepNotFound = (id: string) => notFound("SWEEP_NOT_FOUND", `Sweep ${id} does not exist`);
const executionName = (sweep: Pick<StoredSweep, "id" | "executions">) => `${sweep.id}-${sweep.executions}`;

async function ownedSweep(deps: SweepControlDeps, actor: Actor, id: string): Promise<StoredSweep> {
  const sweep = await deps.sweeps.get(id);
  if (!sweep) throw sweepNotFound(id);
  if (sweep.user_id !== actor.id && actor.user_type !== "admin") throw forbidden(`Sweep ${id} belongs to another user`);
  return sweep;
}

/** Applies `change` to the freshest sweep, retrying version conflicts; undefined when `change` declines. */
const update = (deps: Pick<SweepControlDeps, "sweeps" | "now">, id: string, change: (current: StoredSweep) => StoredSweep | undefined) =>
  updateVersioned(deps.sweeps, deps.now, id, change, sweepNotFound, "SWEEP_CHANGED", "Sweep");

/** The values of one parameter's spec: a list as given, a range stepped from min to max (rounded to 10 decimals against float drift). */
function valuesOf(spec: z.infer<typeof ParameterValues>): ParameterValue[] {
  if (Array.isArray(spec)) return [...new Map(spec.map((v) => [JSON.stringify(v), v])).values()];
  const count = Math.floor((spec.max - spec.min) / spec.step + 1e-9) + 1;
  return Array.from({ length: count }, (_, i) => Number((spec.min + i * spec.step).toFixed(10)));
}

/** How many values a spec gives, without listing them (a range may be asked for millions). */
function countOf(spec: z.infer<typeof ParameterValues>): number {
  return Array.isArray(spec) ? valuesOf(spec).length : spec.max < spec.min ? 0 : Math.floor((spec.max - spec.min) / spec.step + 1e-9) + 1;
}

/** The grid's points, the first parameter changing slowest; 422 for unknown parameters, values outside the strategy's ranges, a grid over `max_runs`. */
export function grid(request: Pick<SweepRequest, "strategy_name" | "parameters" | "max_runs">): Point[] {
  const issues: ValidationIssue[] = [];
  if (!Strategies.exists(request.strategy_name)) {
    throw new ValidationError([
      {
        loc: ["body", "strategy_name"],
        msg: `strategy '${request.strategy_name}' does not exist (a sweep runs one catalog strategy)`,
        type: "strategy_not_found",
      },
    ]);
  }
  const definitions = Strategies.parameters(request.strategy_name).parameters;
  const names = Object.keys(request.parameters);
  let size = 1;
  for (const name of names) {
    const spec = request.parameters[name]!;
    if (!definitions.some((d) => d.name === name)) {
      issues.push({
        loc: ["body", "parameters", name],
        msg: `${name} is not a parameter of ${request.strategy_name}; expected one of ${definitions.map((d) => d.name).join(", ")}`,
        type: "unknown_parameter",
      });
      continue;
    }
    const count = countOf(spec);
    if (count === 0) issues.push({ loc: ["body", "parameters", name, "max"], msg: "max is below min", type: "value_error" });
    size *= Math.max(1, count);
    // Each value alone against the strategy's definition (a range's ends bound every value between).
    const checked: { value: ParameterValue; loc: (string | number)[] }[] = Array.isArray(spec)
      ? spec.map((value, index) => ({ value, loc: ["body", "parameters", name, index] }))
      : [
          { value: spec.min, loc: ["body", "parameters", name, "min"] },
          { value: spec.max, loc: ["body", "parameters", name, "max"] },
          ...(count > 1 ? [{ value: Number((spec.min + spec.step).toFixed(10)), loc: ["body", "parameters", name, "step"] }] : []),
        ];
    for (const { value, loc } of checked) {
      const problem = resolveParameters(definitions, { [name]: value }).errors.find((e) => e.field === `parameters.${name}`);
      if (problem) issues.push({ loc, msg: `${name} = ${JSON.stringify(value)}: ${problem.message}`, type: problem.code.toLowerCase() });
    }
  }
  if (issues.length === 0 && size > request.max_runs) {
    issues.push({
      loc: ["body", "parameters"],
      msg: `the grid has ${size} runs, more than max_runs (${request.max_runs}; at most ${MAX_SWEEP_RUNS})`,
      type: "grid_too_large",
    });
  }
  if (issues.length > 0) throw new ValidationError(issues);
  let points: Point[] = [{}];
  for (const name of names) {
    const values = valuesOf(request.parameters[name]!);
    points = points.flatMap((point) => values.map((value) => ({ ...point, [name]: value })));
  }
  return points;
}

/** The backtest request of one point of the grid: the base `strategy_config` with the point's values (inside `parameters` when the base nests them there). */
function requestOf(base: BacktestRequest, point: Point, window?: { start_date: string; end_date: string }): BacktestRequest {
  const config = base.strategy_config as Record<string, unknown>;
  const nested = config.parameters && typeof config.parameters === "object";
  const strategy_config = nested ? { ...config, parameters: { ...(config.parameters as object), ...point } } : { ...config, ...point };
  return { ...base, strategy_config, ...(window ?? {}) };
}

/** Validates a sweep, plans its runs and starts its state machine. */
export async function start(deps: SweepControlDeps, actor: Actor, request: SweepRequest): Promise<StoredSweep> {
  const session = await owned(deps, actor, request.session_id);
  Backtests.requireBacktestSession(session);
  const { parameters, metric, max_runs, out_of_sample, ...base } = request;
  if (out_of_sample && out_of_sample.start_date > out_of_sample.end_date) {
    throw new ValidationError([{ loc: ["body", "out_of_sample", "end_date"], msg: "end_date is before start_date", type: "value_error" }]);
  }
  const points = grid({ strategy_name: base.strategy_name, parameters, max_runs });
  const runs: StoredSweep["runs"] = [];
  const skipped: StoredSweep["skipped"] = [];
  let firstProblem: ValidationError | undefined;
  for (const point of points) {
    try {
      // Planned as POST /backtest/start plans it (the run is stored only when the workflow gets to it).
      const planned = Backtests.plan(deps, session, requestOf(base, point));
      runs.push({ backtest_id: planned.id, parameters: point });
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      firstProblem ??= error;
      skipped.push({ parameters: point, reason: error.issues.map((i) => i.msg).join("; ") });
    }
  }
  // Every point refused: the request itself is wrong (symbols, dates, the base configuration).
  if (runs.length === 0) throw firstProblem!;
  if (out_of_sample) Backtests.plan(deps, session, requestOf(base, runs[0]!.parameters, out_of_sample));
  const now = iso(deps.now());
  const sweep: StoredSweep = {
    id: deps.newId(),
    session_id: session.id,
    user_id: session.user_id,
    base,
    metric,
    out_of_sample: out_of_sample ?? null,
    runs,
    skipped,
    oos_runs: [],
    runs_created: false,
    oos_created: false,
    import_task_ids: [],
    status: "queued",
    message: "Queued",
    pause_requested: false,
    stop_requested: false,
    executions: 1,
    error: null,
    version: 1,
    created_at: now,
    updated_at: now,
    finished_at: null,
  };
  await deps.sweeps.create(sweep);
  await deps.workflows.start("sweep", executionName(sweep), { sweep_id: sweep.id });
  return sweep;
}

/** The sweep's runs (in sample, then out of sample) as stored; absent until the plan created them. */
async function runsOf(deps: Pick<BacktestControlDeps, "backtests">, sweep: StoredSweep) {
  const ids = [...(sweep.runs_created ? sweep.runs.map((r) => r.backtest_id) : []), ...sweep.oos_runs.map((r) => r.backtest_id)];
  const found = new Map((await deps.backtests.getMany(ids)).map((b) => [b.id, b]));
  return { inSample: sweep.runs.map((r) => found.get(r.backtest_id)), outOfSample: sweep.oos_runs.map((r) => found.get(r.backtest_id)) };
}

const ended = (b: StoredBacktest | undefined) => b !== undefined && (b.status === "completed" || b.status === "stopped" || b.status === "failed");

/** Progress: runs done, failed and stopped of each phase. */
export async function progress(deps: SweepControlDeps, actor: Actor, id: string): Promise<z.infer<typeof SweepProgress>> {
  const sweep = await ownedSweep(deps, actor, id);
  const { inSample, outOfSample } = await runsOf(deps, sweep);
  const count = (runs: (StoredBacktest | undefined)[], status: BacktestStatus) => runs.filter((b) => b?.status === status).length;
  const oosTotal = sweep.out_of_sample ? (sweep.oos_created ? sweep.oos_runs.length : Math.min(sweep.out_of_sample.top, sweep.runs.length)) : 0;
  const endedCount = inSample.filter(ended).length + outOfSample.filter(ended).length;
  const total = sweep.runs.length + oosTotal;
  const stage = TERMINAL.includes(sweep.status)
    ? "done"
    : sweep.status === "queued"
      ? "queued"
      : sweep.status === "importing"
        ? "importing"
        : sweep.status === "stopping"
          ? "finalizing"
          : sweep.oos_created
            ? "out_of_sample"
            : "in_sample";
  return {
    sweep_id: sweep.id,
    status: sweep.status,
    stage,
    runs_total: sweep.runs.length,
    runs_done: count(inSample, "completed"),
    runs_failed: count(inSample, "failed"),
    runs_stopped: count(inSample, "stopped"),
    out_of_sample_total: oosTotal,
    out_of_sample_done: count(outOfSample, "completed"),
    progress: sweep.status === "completed" ? 100 : Math.min(99.99, Math.floor((endedCount / Math.max(1, total)) * 10_000) / 100),
    is_running: ACTIVE.includes(sweep.status) && sweep.status !== "pausing",
    is_paused: sweep.status === "paused" || sweep.status === "pausing",
    metric: sweep.metric,
    message: sweep.message,
  };
}

/** A run's value of the metric as a number (metrics in money are decimal strings); null when it has none. */
function valueOf(metrics: z.infer<typeof PerformanceMetrics> | undefined, metric: SweepMetric): number | null {
  const raw = metrics?.[metric];
  if (raw === null || raw === undefined) return null;
  const value = Number(raw);
  return Number.isFinite(value) ? value : null;
}

/** Completed runs of the grid, best first by the metric (undefined values last, ties in grid order). */
function ranked(sweep: StoredSweep, inSample: (StoredBacktest | undefined)[]) {
  const sign = ASCENDING.has(sweep.metric) ? 1 : -1;
  return sweep.runs
    .map((run, index) => ({ run, index, backtest: inSample[index] }))
    .filter((entry): entry is typeof entry & { backtest: StoredBacktest } => entry.backtest?.status === "completed" && entry.backtest.result !== null)
    .map((entry) => ({ ...entry, value: valueOf(entry.backtest.result!.performance_metrics, sweep.metric) }))
    .sort((a, b) => (a.value === null ? (b.value === null ? 0 : 1) : b.value === null ? -1 : sign * (a.value - b.value)) || a.index - b.index);
}

/** The ranking; 409 SWEEP_NOT_FINISHED while the sweep runs, 409 SWEEP_FAILED after a failure. */
export async function result(deps: SweepControlDeps, actor: Actor, id: string): Promise<SweepResult> {
  const sweep = await ownedSweep(deps, actor, id);
  if (sweep.status === "failed") throw new DomainError(409, "SWEEP_FAILED", `Sweep ${id} failed: ${sweep.error ?? "unknown error"}`);
  if (sweep.status !== "completed" && sweep.status !== "stopped") {
    throw conflict("SWEEP_NOT_FINISHED", `Sweep ${id} is ${sweep.status}; its result is ready when it completes or is stopped`, { status: sweep.status });
  }
  const { inSample, outOfSample } = await runsOf(deps, sweep);
  const oosOf = new Map(sweep.oos_runs.map((r, index) => [r.of, outOfSample[index]]));
  const best = ranked(sweep, inSample);
  const rankedIds = new Set(best.map((entry) => entry.run.backtest_id));
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
    ranking: best.map((entry, rank) => {
      const oos = oosOf.get(entry.run.backtest_id);
      return {
        rank: rank + 1,
        backtest_id: entry.run.backtest_id,
        parameters: entry.run.parameters,
        value: entry.value,
        performance_metrics: entry.backtest.result!.performance_metrics,
        out_of_sample: oos
          ? {
              backtest_id: oos.id,
              status: oos.status,
              value: valueOf(oos.result?.performance_metrics, sweep.metric),
              performance_metrics: oos.result?.performance_metrics ?? null,
            }
          : null,
      };
    }),
    not_ranked: sweep.runs
      .map((run, index) => ({ run, backtest: inSample[index] }))
      .filter(({ run }) => !rankedIds.has(run.backtest_id))
      .map(({ run, backtest }) => ({
        backtest_id: run.backtest_id,
        parameters: run.parameters,
        status: backtest?.status ?? "stopped",
        error: backtest?.error ?? null,
      })),
    skipped: sweep.skipped,
    completed_at: sweep.finished_at,
  };
}

const control = (sweep: StoredSweep, message: string) => ({ success: true, message, sweep_id: sweep.id, status: sweep.status });

/** Asks every run to pause at its next checkpoint; the sweep is `paused` once they have. */
export async function pause(deps: SweepControlDeps, actor: Actor, id: string) {
  await ownedSweep(deps, actor, id);
  const next = await update(deps, id, (s) => paused(s, "sweep"));
  return control(next!, `Sweep ${id} pausing; every run keeps its checkpoint`);
}

/** Continues a paused sweep (a new execution: its runs go on from their checkpoints), or cancels a pause not yet taken. */
export async function resume(deps: SweepControlDeps, actor: Actor, id: string) {
  await ownedSweep(deps, actor, id);
  const next = await transition<StoredSweep>(
    (change) => update(deps, id, change),
    (s) => resumed(s, "sweep"),
    (s) => deps.workflows.start("sweep", executionName(s), { sweep_id: id }),
  );
  return control(next, `Sweep ${id} resumed`);
}

/** Stops the sweep: running runs stop at their next checkpoint, runs not started are not run; the result ranks what completed. */
export async function stop(deps: SweepControlDeps, actor: Actor, id: string) {
  await ownedSweep(deps, actor, id);
  const next = await transition<StoredSweep>(
    (change) => update(deps, id, change),
    (s) => stopped(s, "sweep"),
    (s) => deps.workflows.start("sweep", executionName(s), { sweep_id: id }),
  );
  return control(next, `Sweep ${id} stopping`);
}

// ---- workflow tasks ---------------------------------------------------------------------------

const out = (sweep: StoredSweep, status: SweepTaskOutput["status"], runs: string[] = [], deps?: Pick<SweepDeps, "sweepConcurrency">): SweepTaskOutput => ({
  sweep_id: sweep.id,
  status,
  runs,
  max_concurrency: Math.max(1, deps?.sweepConcurrency ?? 1),
});

/** The stored backtests of one phase's runs: planned again exactly as at the start, with their ids, the sweep's id and the counted bars. */
function backtestsOf(
  deps: SweepDeps,
  sweep: StoredSweep,
  session: StoredSession,
  runs: { backtest_id: string; parameters: Point }[],
  barsTotal: number,
  window?: { start_date: string; end_date: string },
): StoredBacktest[] {
  return runs.map((run) =>
    Backtests.plan(deps, session, requestOf(sweep.base, run.parameters, window), {
      id: run.backtest_id,
      sweep_id: sweep.id,
      candles_ready: true,
      bars_total: barsTotal,
    }),
  );
}

/**
 * Plan: on the first pass imports what is missing of each symbol's candles (for the window and
 * the out-of-sample window: once per symbol, not once per run), then creates the runs; every pass
 * answers the runs not yet ended for the Map, then (with `out_of_sample`) creates and answers the
 * out-of-sample runs of the best, then `done`. Pause and stop flags end the execution here.
 */
export async function plan(deps: SweepDeps, input: SweepTaskInput): Promise<SweepTaskOutput> {
  let sweep = await deps.sweeps.get(input.sweep_id);
  if (!sweep) throw sweepNotFound(input.sweep_id);
  if (TERMINAL.includes(sweep.status)) return out(sweep, sweep.status === "completed" ? "done" : "stopped");
  if (sweep.stop_requested) return out(sweep, "stopped");
  if (sweep.pause_requested) {
    const paused = await update(deps, sweep.id, (s) =>
      s.pause_requested ? { ...s, status: "paused", message: "Paused: every run at a checkpoint" } : undefined,
    );
    if (paused) return out(paused, "paused");
  }
  const session = await deps.sessions.get(sweep.session_id);
  if (!session) throw new DomainError(409, "SESSION_NOT_FOUND", `The session of sweep ${sweep.id} was deleted`);
  if (!sweep.runs_created) {
    const first = Backtests.plan(deps, session, requestOf(sweep.base, sweep.runs[0]!.parameters));
    const feeds = feedsOf(first.config);
    const windows: [number, number][] = [first.window];
    if (sweep.out_of_sample) windows.push(Backtests.plan(deps, session, requestOf(sweep.base, sweep.runs[0]!.parameters, sweep.out_of_sample)).window);
    if (sweep.import_task_ids.length === 0 && sweep.status === "queued") {
      const started: string[] = [];
      for (const window of windows) {
        const imported = await Backtests.importMissing(
          deps,
          sweep.user_id,
          feeds.map((feed) => ({ ...feed, from: window[0] })),
          window,
        );
        if (imported.busy) return out(sweep, "importing");
        started.push(...imported.started);
      }
      if (started.length > 0) {
        sweep = (await update(deps, sweep.id, (s) => ({
          ...s,
          status: "importing",
          import_task_ids: started,
          message: `Importing missing candles (${started.length} import task${started.length > 1 ? "s" : ""}), once for every run`,
        })))!;
        return out(sweep, "importing");
      }
    }
    if (!(await Backtests.importsDone(deps, sweep.import_task_ids))) return out(sweep, "importing");
    const bars = (await Backtests.importMissing(deps, sweep.user_id, [], first.window, feeds)).bars;
    await deps.backtests.createMany(backtestsOf(deps, sweep, session, sweep.runs, bars));
    sweep = (await update(deps, sweep.id, (s) => ({
      ...s,
      runs_created: true,
      status: s.status === "queued" || s.status === "importing" ? "running" : s.status,
      message: "Running",
    })))!;
  } else if (sweep.status === "queued") {
    sweep = (await update(deps, sweep.id, (s) => ({ ...s, status: s.status === "queued" ? "running" : s.status, message: "Running" })))!;
  }
  const { inSample, outOfSample } = await runsOf(deps, sweep);
  const pending = (runs: (StoredBacktest | undefined)[]) => runs.filter((b): b is StoredBacktest => b !== undefined && !ended(b)).map((b) => b.id);
  const left = pending(inSample);
  if (left.length > 0) return out(sweep, "running", left, deps);
  if (sweep.out_of_sample && !sweep.oos_created) {
    const best = ranked(sweep, inSample).slice(0, sweep.out_of_sample.top);
    const oosRuns = best.map((entry) => ({ backtest_id: deps.newId(), of: entry.run.backtest_id, parameters: entry.run.parameters }));
    const window = Backtests.plan(deps, session, requestOf(sweep.base, sweep.runs[0]!.parameters, sweep.out_of_sample));
    const bars = (await Backtests.importMissing(deps, sweep.user_id, [], window.window, feedsOf(window.config))).bars;
    await deps.backtests.createMany(backtestsOf(deps, sweep, session, oosRuns, bars, sweep.out_of_sample));
    sweep = (await update(deps, sweep.id, (s) => ({
      ...s,
      oos_created: true,
      oos_runs: oosRuns.map(({ backtest_id, of }) => ({ backtest_id, of })),
      message: "Running the best runs out of sample",
    })))!;
    return out(
      sweep,
      "running",
      oosRuns.map((r) => r.backtest_id),
      deps,
    );
  }
  const oosLeft = pending(outOfSample);
  if (oosLeft.length > 0) return out(sweep, "running", oosLeft, deps);
  return out(sweep, "done");
}

/** Finalize: the sweep ends completed, or stopped (its runs not ended are marked stopped: they will not run). */
export async function finalize(deps: SweepDeps, input: SweepTaskInput): Promise<SweepTaskOutput> {
  const sweep = await deps.sweeps.get(input.sweep_id);
  if (!sweep) throw sweepNotFound(input.sweep_id);
  if (TERMINAL.includes(sweep.status)) return out(sweep, sweep.status === "completed" ? "done" : "stopped");
  const stopped = sweep.stop_requested;
  const now = iso(deps.now());
  if (stopped) {
    const { inSample, outOfSample } = await runsOf(deps, sweep);
    for (const run of [...inSample, ...outOfSample]) {
      if (!run || ended(run)) continue;
      await Backtests.endWithSweep(deps, run.id, now);
    }
  }
  const done = await update(deps, sweep.id, (s) => ({
    ...s,
    status: stopped ? "stopped" : "completed",
    finished_at: now,
    message: stopped ? "Stopped" : "Completed",
  }));
  return out(done!, stopped ? "stopped" : "done");
}

/** Failure: records why the sweep's workflow failed. */
export async function fail(deps: SweepDeps, input: SweepFailureInput): Promise<SweepTaskOutput> {
  const reason = [input.error?.Error, input.error?.Cause].filter(Boolean).join(": ").slice(0, 2000) || "the workflow failed";
  const failed = await update(deps, input.sweep_id, (s) =>
    TERMINAL.includes(s.status) ? undefined : { ...s, status: "failed", error: reason, message: `Failed: ${reason}`, finished_at: iso(deps.now()) },
  );
  return out(failed ?? (await deps.sweeps.get(input.sweep_id))!, "stopped");
}

/** Restarts the executions of active sweeps (the embedded runtime's start-up): each continues its runs from their checkpoints. */
export async function recover(deps: SweepControlDeps): Promise<string[]> {
  const restarted: string[] = [];
  for (const sweep of await deps.sweeps.active()) {
    const next = await update(deps, sweep.id, (s) => (ACTIVE.includes(s.status) ? { ...s, executions: s.executions + 1 } : undefined));
    if (!next) continue;
    await deps.workflows.start("sweep", executionName(next), { sweep_id: next.id });
    restarted.push(next.id);
  }
  return restarted;
}
