import type { z } from "zod";
import { conflict, DomainError, forbidden, notFound, ValidationError, type ValidationIssue } from "../errors";
import type { PerformanceMetrics } from "../engine/metrics";
import { type ParameterValue, resolveParameters } from "../strategies/parameter";
import { Strategies } from "../strategies/index";
import { owned, type StoredSession } from "../trading/sessions";
import type { Actor } from "../users";
import { iso } from "../time";
import { Markets, marketOf, normalizeSymbol } from "../market/market";
import { isoDateOf } from "../market/zoned-time";
import { allOf } from "../trading/pages";
import { TRADING_DAYS_PER_YEAR } from "../trading/session-config";
import { ACTIVE, paused, resumed, stageOf, stopped, transition, updateVersioned } from "./control";
import type { BacktestRequest, BacktestStatus, StoredBacktest } from "./backtest-model";
import { runIdOf } from "./backtest-control";
import { plan as planBacktest, requestIssues, requestSymbols, requireBacktestSession, sessionOrNone, unknownOf, wellFormed } from "./backtest-request";
import {
  ASCENDING,
  MAX_SWEEP_RUNS,
  type ParameterValues,
  type Point,
  type StoredSweep,
  type SweepControlDeps,
  type SweepMetric,
  type SweepProgress,
  SweepRequest,
  type SweepResult,
} from "./sweep-model";
import { gridRuns, type InSampleRun } from "./sweep-grid";
import {
  curveFigures,
  cutWindows,
  efficiency,
  planIssues,
  stitch,
  thin,
  tradingDaysOf,
  type StoredWalkForward,
  type WalkForwardPlan,
  type WalkForwardResult,
} from "./walk-forward";

/**
 * The control side of parameter sweeps (the HTTP endpoints): the grid, starting a sweep, its
 * progress and ranked result, pause, resume and stop, and the embedded runtime's recovery.
 */

export const sweepNotFound = (id: string) => notFound("SWEEP_NOT_FOUND", `Sweep ${id} does not exist`);
const executionName = (sweep: Pick<StoredSweep, "id" | "executions">) => `${sweep.id}-${sweep.executions}`;

async function ownedSweep(deps: SweepControlDeps, actor: Actor, id: string): Promise<StoredSweep> {
  const sweep = await deps.sweeps.get(id);
  if (!sweep) throw sweepNotFound(id);
  if (sweep.user_id !== actor.id && actor.user_type !== "admin") throw forbidden(`Sweep ${id} belongs to another user`);
  if (actor.session_ids && !actor.session_ids.includes(sweep.session_id)) throw forbidden(`This API key is limited to other sessions than sweep ${id}'s`);
  return sweep;
}

/** Applies `change` to the freshest sweep, retrying version conflicts; undefined when `change` declines. */
export const updateSweep = (deps: Pick<SweepControlDeps, "sweeps" | "now">, id: string, change: (current: StoredSweep) => StoredSweep | undefined) =>
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

/**
 * The grid's points, the first parameter changing slowest; 422 for unknown parameters, values
 * outside the strategy's ranges, a grid over `max_runs` (run on each of `windows` walk-forward
 * windows: their in-sample runs together over it).
 */
export function grid(request: Pick<SweepRequest, "strategy_name" | "parameters" | "max_runs">, windows = 1): Point[] {
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
  if (issues.length === 0 && size * windows > request.max_runs) {
    const runs = windows > 1 ? `${windows} windows × ${size} points = ${size * windows} in-sample runs` : `${size} runs`;
    issues.push({
      loc: ["body", "parameters"],
      msg: `the ${windows > 1 ? "walk-forward" : "grid"} has ${runs}, more than max_runs (${request.max_runs}; at most ${MAX_SWEEP_RUNS})`,
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
export function requestOf(base: BacktestRequest, point: Point, window?: { start_date: string; end_date: string }): BacktestRequest {
  const config = base.strategy_config as Record<string, unknown>;
  const nested = config.parameters && typeof config.parameters === "object";
  const strategy_config = nested ? { ...config, parameters: { ...(config.parameters as object), ...point } } : { ...config, ...point };
  return { ...base, strategy_config, ...(window ?? {}) };
}

/**
 * The problems of a sweep request that concern it as a whole, each at its field: the out-of-sample
 * window (its order, the calendar), the grid (`grid`: parameters, ranges, size) and the backtest
 * request's own (symbols, dates, the calendar), checked as `POST /backtest/start` checks them;
 * fields absent from `request` (malformed, already reported) are not looked at.
 */
function sweepIssues(
  deps: SweepControlDeps,
  session: StoredSession | undefined,
  request: Partial<SweepRequest>,
  unknown: ReadonlySet<string>,
): ValidationIssue[] {
  const { parameters, metric: _metric, max_runs, out_of_sample, walk_forward, ...base } = request;
  const issues: ValidationIssue[] = [];
  if (base.strategy_name !== undefined && parameters !== undefined) {
    try {
      grid({ strategy_name: base.strategy_name, parameters, max_runs: max_runs ?? MAX_SWEEP_RUNS }, walk_forward?.windows ?? 1);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      issues.push(...error.issues);
    }
  }
  // The strategy and its configuration are a point's (the grid reports an unknown strategy): what every run shares is checked here.
  const shared = requestIssues(deps, session, { ...base, strategy_name: undefined, strategy_config: undefined }, unknown);
  issues.push(...shared);
  if (walk_forward) issues.push(...walkForwardIssues(deps, session, base, walk_forward, out_of_sample !== undefined, shared.length > 0, unknown));
  if (out_of_sample) {
    if (out_of_sample.start_date > out_of_sample.end_date) {
      issues.push({ loc: ["body", "out_of_sample", "end_date"], msg: "end_date is before start_date", type: "value_error" });
    } else {
      const window = { symbols: base.symbols, timezone: base.timezone, start_date: out_of_sample.start_date, end_date: out_of_sample.end_date };
      for (const issue of requestIssues(deps, session, window, unknown)) {
        if (issue.loc[1] === "start_date" || issue.loc[1] === "end_date") issues.push({ ...issue, loc: ["body", "out_of_sample", ...issue.loc.slice(1)] });
      }
    }
  }
  return issues;
}

/**
 * The problems of a walk-forward plan: its sizes given one way and not beside `out_of_sample`, the
 * windows it cuts of the range's trading days (each part with at least one), and each part as a
 * backtest's range (the calendar, a session begun: `POST /backtest/start`'s checks), at
 * `body.walk_forward.windows.<k>.<part>`. The range is not cut when its own fields have problems.
 */
function walkForwardIssues(
  deps: SweepControlDeps,
  session: StoredSession | undefined,
  base: Partial<BacktestRequest>,
  plan: WalkForwardPlan,
  withOutOfSample: boolean,
  rangeRefused: boolean,
  unknown: ReadonlySet<string>,
): ValidationIssue[] {
  const issues = planIssues(plan, withOutOfSample);
  if (issues.some((issue) => issue.loc[1] === "walk_forward") || rangeRefused || !base.symbols || !base.start_date || !base.end_date) return issues;
  const cut = cutWindows(plan, tradingDaysOf(base.symbols, { start_date: base.start_date, end_date: base.end_date }));
  issues.push(...cut.issues);
  cut.windows.forEach((window, k) => {
    for (const part of ["in_sample", "out_of_sample"] as const) {
      const range = { symbols: base.symbols, timezone: base.timezone, start_date: window[part].start_date, end_date: window[part].end_date };
      for (const issue of requestIssues(deps, session, range, unknown)) {
        if (issue.loc[1] === "start_date" || issue.loc[1] === "end_date") issues.push({ ...issue, loc: ["body", "walk_forward", "windows", k, part] });
      }
    }
  });
  return issues;
}

/** A valid request's walk-forward plan with the windows it cuts; null without one. */
function walkForwardOf(request: Pick<SweepRequest, "walk_forward" | "symbols" | "start_date" | "end_date">): StoredWalkForward | null {
  if (!request.walk_forward) return null;
  return { plan: request.walk_forward, windows: cutWindows(request.walk_forward, tradingDaysOf(request.symbols, request)).windows };
}

/**
 * A sweep request whose body failed its schema (`issues`, the schema's): the sweep's checks run on
 * the fields that are well formed, so the 422 lists every problem of the request at once.
 */
export async function invalidRequest(deps: SweepControlDeps, actor: Actor, body: unknown, issues: ValidationIssue[]): Promise<ValidationError> {
  const request = wellFormed(SweepRequest, body);
  const [session, unknown] = await Promise.all([sessionOrNone(deps, actor, request.session_id), unknownOf(deps, requestSymbols(request), true)]);
  return new ValidationError([...issues, ...sweepIssues(deps, session, request, unknown)]);
}

/** Validates a sweep (422 listing every problem), plans its runs and starts its state machine. */
export async function start(deps: SweepControlDeps, actor: Actor, request: SweepRequest): Promise<StoredSweep> {
  const session = await owned(deps, actor, request.session_id);
  requireBacktestSession(session);
  const { parameters, metric, max_runs, out_of_sample, walk_forward: _plan, ...base } = request;
  const unknown = await unknownOf(deps, requestSymbols(base));
  const issues = sweepIssues(deps, session, request, unknown);
  const walkForward = issues.length === 0 ? walkForwardOf(request) : null;
  const runs: StoredSweep["runs"] = [];
  const skipped: StoredSweep["skipped"] = [];
  // A grid sweepIssues refused has no points; otherwise each is planned, also beside the request's problems (a base every point shares the faults of is one more).
  const points = issues.some((issue) => issue.loc[1] === "parameters" || issue.loc[1] === "strategy_name")
    ? []
    : grid({ strategy_name: base.strategy_name, parameters, max_runs }, request.walk_forward?.windows ?? 1);
  if (points.length > 0) {
    let firstProblem: ValidationError | undefined;
    for (const point of points) {
      try {
        // Planned as POST /backtest/start plans it (the run is stored only when the workflow gets to it); a walk-forward's over its first in-sample part.
        const planned = planBacktest(deps, session, requestOf(base, point, walkForward?.windows[0]?.in_sample), {}, unknown);
        runs.push({ backtest_id: planned.id, parameters: point, ...(walkForward ? { window: 0 } : {}) });
      } catch (error) {
        if (!(error instanceof ValidationError)) throw error;
        firstProblem ??= error;
        skipped.push({ parameters: point, reason: error.issues.map((i) => i.msg).join("; ") });
      }
    }
    // Every point refused: the request itself is wrong (the base configuration).
    if (runs.length === 0) issues.push(...firstProblem!.issues);
  }
  // A walk-forward runs the grid's points on every window's in-sample part, window after window.
  if (walkForward) {
    const first = [...runs];
    for (let window = 1; window < walkForward.windows.length; window++) {
      runs.push(...first.map((run) => ({ backtest_id: deps.newId(), parameters: run.parameters, window })));
    }
  }
  if (issues.length > 0) throw new ValidationError(issues);
  const now = iso(deps.now());
  const sweep: StoredSweep = {
    id: deps.newId(),
    session_id: session.id,
    user_id: session.user_id,
    base,
    metric,
    out_of_sample: out_of_sample ?? null,
    walk_forward: walkForward,
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

/** Progress: runs done, failed and stopped of each phase. */
export async function progress(deps: SweepControlDeps, actor: Actor, id: string): Promise<z.infer<typeof SweepProgress>> {
  return progressOf(deps, await ownedSweep(deps, actor, id));
}

/** The progress view of a sweep (what `progress` answers its owner, and a grid chunk's task pushes on the session's stream). */
export async function progressOf(deps: Pick<SweepControlDeps, "backtests" | "grids">, sweep: StoredSweep): Promise<z.infer<typeof SweepProgress>> {
  const { inSample, outOfSample } = await runsOf(deps, sweep);
  const count = (runs: (InSampleRun | undefined)[], status: BacktestStatus) => runs.filter((b) => b?.status === status).length;
  const oosPlanned = sweep.walk_forward ? sweep.walk_forward.windows.length : sweep.out_of_sample ? Math.min(sweep.out_of_sample.top, sweep.runs.length) : 0;
  const oosTotal = sweep.oos_created ? sweep.oos_runs.length : oosPlanned;
  const endedCount = inSample.filter(ended).length + outOfSample.filter(ended).length;
  const total = sweep.runs.length + oosTotal;
  const stage = stageOf(sweep.status, sweep.oos_created ? "out_of_sample" : "in_sample");
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

const control = (sweep: StoredSweep, message: string) => ({ success: true, message, sweep_id: sweep.id, status: sweep.status });

/** Asks every run to pause at its next checkpoint; the sweep is `paused` once they have. */
export async function pause(deps: SweepControlDeps, actor: Actor, id: string) {
  await ownedSweep(deps, actor, id);
  const next = await updateSweep(deps, id, (s) => paused(s, "sweep"));
  return control(next!, `Sweep ${id} pausing; every run keeps its checkpoint`);
}

/** Continues a paused sweep (a new execution: its runs go on from their checkpoints), or cancels a pause not yet taken. */
export async function resume(deps: SweepControlDeps, actor: Actor, id: string) {
  await ownedSweep(deps, actor, id);
  const next = await transition<StoredSweep>(
    (change) => updateSweep(deps, id, change),
    (s) => resumed(s, "sweep"),
    (s) => deps.workflows.start("sweep", executionName(s), { sweep_id: id }),
  );
  return control(next, `Sweep ${id} resumed`);
}

/** Stops the sweep: running runs stop at their next checkpoint, runs not started are not run; the result ranks what completed. */
export async function stop(deps: SweepControlDeps, actor: Actor, id: string) {
  await ownedSweep(deps, actor, id);
  const next = await transition<StoredSweep>(
    (change) => updateSweep(deps, id, change),
    (s) => stopped(s, "sweep"),
    (s) => deps.workflows.start("sweep", executionName(s), { sweep_id: id }),
  );
  return control(next, `Sweep ${id} stopping`);
}

/** Restarts the executions of active sweeps (the embedded runtime's start-up): each continues its runs from their checkpoints. */
export async function recover(deps: SweepControlDeps): Promise<string[]> {
  const restarted: string[] = [];
  for (const sweep of await deps.sweeps.active()) {
    const next = await updateSweep(deps, sweep.id, (s) => (ACTIVE.includes(s.status) ? { ...s, executions: s.executions + 1 } : undefined));
    if (!next) continue;
    await deps.workflows.start("sweep", executionName(next), { sweep_id: next.id });
    restarted.push(next.id);
  }
  return restarted;
}
