import type { z } from "zod";
import { ValidationError } from "../errors";
import { owned as ownedSession } from "../trading/session/sessions";
import type { Actor } from "../users";
import { iso } from "../util/time";
import { stageOf } from "./control";
import { flagsOf, percentOf, runControl } from "./controllable-run";
import type { BacktestStatus } from "./backtest-model";
import { plan as planBacktest, requestSymbols, requireBacktestSession, unknownOf } from "./backtest-request";
import type { StoredSweep, SweepControlDeps, SweepProgress, SweepRequest, SweepResult } from "./sweep-model";
import type { InSampleRun } from "./sweep-grid";
import { grid, requestOf, sweepIssues, walkForwardOf } from "./sweep-request";
import { ended, resultOf, runsOf } from "./sweep-result";

/**
 * The control side of parameter sweeps (the HTTP endpoints): starting a sweep (its runs planned
 * over the grid), its progress, pause, resume and stop, its result's read, and the embedded
 * runtime's recovery. A request's grid and checks are in sweep-request.ts, the runs read back and
 * ranked in sweep-result.ts, the state machine's tasks in sweep-tasks.ts.
 */

/** What a sweep does differently from a backtest under the control every run kind shares (controllable-run.ts). */
const control = runControl({
  name: "sweep",
  store: "sweeps",
  progressOf: (deps: SweepControlDeps, sweep: StoredSweep) => progressOf(deps, sweep),
  said: { pause: "pausing; every run keeps its checkpoint", resume: "resumed", stop: "stopping" },
  hasResult: (sweep) => sweep.status === "completed" || sweep.status === "stopped",
});

export const sweepNotFound = control.missing;

/** Applies `change` to the freshest sweep, retrying version conflicts; undefined when `change` declines. */
export const updateSweep = control.update;

/** Validates a sweep (422 listing every problem), plans its runs and starts its state machine. */
export async function start(deps: SweepControlDeps, actor: Actor, request: SweepRequest): Promise<StoredSweep> {
  const session = await ownedSession(deps, actor, request.session_id);
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
  await control.startExecution(deps, sweep);
  return sweep;
}

/** Progress: runs done, failed and stopped of each phase. */
export const progress = control.progress;

/** The progress view of a sweep (what `progress` answers its owner, and a grid chunk's task pushes on the session's stream). */
export async function progressOf(deps: Pick<SweepControlDeps, "backtests" | "grids">, sweep: StoredSweep): Promise<z.infer<typeof SweepProgress>> {
  const { inSample, outOfSample } = await runsOf(deps, sweep);
  const count = (runs: (InSampleRun | undefined)[], status: BacktestStatus) => runs.filter((b) => b?.status === status).length;
  const oosPlanned = sweep.walk_forward ? sweep.walk_forward.windows.length : sweep.out_of_sample ? Math.min(sweep.out_of_sample.top, sweep.runs.length) : 0;
  const oosTotal = sweep.oos_created ? sweep.oos_runs.length : oosPlanned;
  const endedCount = inSample.filter(ended).length + outOfSample.filter(ended).length;
  const { is_running, is_paused } = flagsOf(sweep);
  return {
    sweep_id: sweep.id,
    status: sweep.status,
    stage: stageOf(sweep.status, sweep.oos_created ? "out_of_sample" : "in_sample"),
    runs_total: sweep.runs.length,
    runs_done: count(inSample, "completed"),
    runs_failed: count(inSample, "failed"),
    runs_stopped: count(inSample, "stopped"),
    out_of_sample_total: oosTotal,
    out_of_sample_done: count(outOfSample, "completed"),
    progress: percentOf(sweep, endedCount, sweep.runs.length + oosTotal),
    is_running,
    is_paused,
    metric: sweep.metric,
    message: sweep.message,
  };
}

/** The ranking; 409 SWEEP_NOT_FINISHED while the sweep runs, 409 SWEEP_FAILED after a failure. */
export async function result(deps: SweepControlDeps, actor: Actor, id: string): Promise<SweepResult> {
  return resultOf(deps, await control.finished(deps, actor, id));
}

/** Asks every run to pause at its next checkpoint; the sweep is `paused` once they have. */
export const pause = control.pause;

/** Continues a paused sweep (a new execution: its runs go on from their checkpoints), or cancels a pause not yet taken. */
export const resume = control.resume;

/** Stops the sweep: running runs stop at their next checkpoint, runs not started are not run; the result ranks what completed. */
export const stop = control.stop;

/** Restarts the executions of active sweeps (the embedded runtime's start-up): each continues its runs from their checkpoints. */
export const recover = control.recover;

/**
 * Pushes a sweep's progress view on its session's stream (`sweep_progress`): once per chunk of a
 * walk-forward's grid (its points push nothing of their own: they are no backtests).
 */
export const publishProgress = control.publishProgress;
