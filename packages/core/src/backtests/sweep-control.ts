import type { z } from "zod";
import { conflict, DomainError, forbidden, notFound, ValidationError, type ValidationIssue } from "../errors";
import type { PerformanceMetrics } from "../engine/metrics";
import { type ParameterValue, resolveParameters } from "../strategies/parameter";
import { Strategies } from "../strategies/index";
import { owned, type StoredSession } from "../trading/sessions";
import type { Actor } from "../users";
import { iso } from "../time";
import { ACTIVE, paused, resumed, stageOf, stopped, transition, updateVersioned } from "./control";
import type { BacktestControlDeps, BacktestRequest, BacktestStatus, StoredBacktest } from "./backtest-model";
import { plan as planBacktest, requestIssues, requireBacktestSession, sessionOrNone, unknownOf, wellFormed } from "./backtest-control";
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
  const { parameters, metric: _metric, max_runs, out_of_sample, ...base } = request;
  const issues: ValidationIssue[] = [];
  if (base.strategy_name !== undefined && parameters !== undefined) {
    try {
      grid({ strategy_name: base.strategy_name, parameters, max_runs: max_runs ?? MAX_SWEEP_RUNS });
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      issues.push(...error.issues);
    }
  }
  // The strategy and its configuration are a point's (the grid reports an unknown strategy): what every run shares is checked here.
  issues.push(...requestIssues(deps, session, { ...base, strategy_name: undefined, strategy_config: undefined }, unknown));
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
 * A sweep request whose body failed its schema (`issues`, the schema's): the sweep's checks run on
 * the fields that are well formed, so the 422 lists every problem of the request at once.
 */
export async function invalidRequest(deps: SweepControlDeps, actor: Actor, body: unknown, issues: ValidationIssue[]): Promise<ValidationError> {
  const request = wellFormed(SweepRequest, body);
  const [session, unknown] = await Promise.all([sessionOrNone(deps, actor, request.session_id), unknownOf(deps, request.symbols ?? [], true)]);
  return new ValidationError([...issues, ...sweepIssues(deps, session, request, unknown)]);
}

/** Validates a sweep (422 listing every problem), plans its runs and starts its state machine. */
export async function start(deps: SweepControlDeps, actor: Actor, request: SweepRequest): Promise<StoredSweep> {
  const session = await owned(deps, actor, request.session_id);
  requireBacktestSession(session);
  const { parameters, metric, max_runs, out_of_sample, ...base } = request;
  const unknown = await unknownOf(deps, base.symbols);
  const issues = sweepIssues(deps, session, request, unknown);
  const runs: StoredSweep["runs"] = [];
  const skipped: StoredSweep["skipped"] = [];
  // A grid sweepIssues refused has no points; otherwise each is planned, also beside the request's problems (a base every point shares the faults of is one more).
  const points = issues.some((issue) => issue.loc[1] === "parameters" || issue.loc[1] === "strategy_name")
    ? []
    : grid({ strategy_name: base.strategy_name, parameters, max_runs });
  if (points.length > 0) {
    let firstProblem: ValidationError | undefined;
    for (const point of points) {
      try {
        // Planned as POST /backtest/start plans it (the run is stored only when the workflow gets to it).
        const planned = planBacktest(deps, session, requestOf(base, point), {}, unknown);
        runs.push({ backtest_id: planned.id, parameters: point });
      } catch (error) {
        if (!(error instanceof ValidationError)) throw error;
        firstProblem ??= error;
        skipped.push({ parameters: point, reason: error.issues.map((i) => i.msg).join("; ") });
      }
    }
    // Every point refused: the request itself is wrong (the base configuration).
    if (runs.length === 0) issues.push(...firstProblem!.issues);
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
export async function runsOf(deps: Pick<BacktestControlDeps, "backtests">, sweep: StoredSweep) {
  const ids = [...(sweep.runs_created ? sweep.runs.map((r) => r.backtest_id) : []), ...sweep.oos_runs.map((r) => r.backtest_id)];
  const found = new Map((await deps.backtests.getMany(ids)).map((b) => [b.id, b]));
  return { inSample: sweep.runs.map((r) => found.get(r.backtest_id)), outOfSample: sweep.oos_runs.map((r) => found.get(r.backtest_id)) };
}

export const ended = (b: StoredBacktest | undefined) => b !== undefined && (b.status === "completed" || b.status === "stopped" || b.status === "failed");

/** Progress: runs done, failed and stopped of each phase. */
export async function progress(deps: SweepControlDeps, actor: Actor, id: string): Promise<z.infer<typeof SweepProgress>> {
  const sweep = await ownedSweep(deps, actor, id);
  const { inSample, outOfSample } = await runsOf(deps, sweep);
  const count = (runs: (StoredBacktest | undefined)[], status: BacktestStatus) => runs.filter((b) => b?.status === status).length;
  const oosTotal = sweep.out_of_sample ? (sweep.oos_created ? sweep.oos_runs.length : Math.min(sweep.out_of_sample.top, sweep.runs.length)) : 0;
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

/** Completed runs of the grid, best first by the metric (undefined values last, ties in grid order). */
export function ranked(sweep: StoredSweep, inSample: (StoredBacktest | undefined)[]) {
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
      // A run created and no longer stored has expired (runs_expire_at): it is gone, not stopped.
      .filter(({ run, backtest }) => !rankedIds.has(run.backtest_id) && !(backtest === undefined && sweep.runs_created && sweep.runs_expire_at))
      .map(({ run, backtest }) => ({
        backtest_id: run.backtest_id,
        parameters: run.parameters,
        status: backtest?.status ?? "stopped",
        error: backtest?.error ?? null,
      })),
    skipped: sweep.skipped,
    completed_at: sweep.finished_at,
    runs_expire_at: sweep.runs_expire_at ? iso(sweep.runs_expire_at * 1000) : null,
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
