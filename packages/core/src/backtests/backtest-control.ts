import type { z } from "zod";
import { conflict, parseOrThrow } from "../errors";
import { iso } from "../util/time";
import type { Actor } from "../users";
import { feedsOf, strategyNameOf } from "../trading/session/config";
import { owned as ownedSession, type StoredSession } from "../trading/session/sessions";
import { stageOf, TERMINAL } from "./control";
import { flagsOf, percentOf, runControl } from "./controllable-run";
import {
  type BacktestControlDeps,
  type BacktestList,
  BacktestListQuery,
  type BacktestProgress,
  type BacktestRequest,
  type BacktestResult,
  type BacktestSummary,
  type StoredBacktest,
} from "./backtest-model";
import { plan, requestSymbols, requireBacktestSession, unknownOf } from "./backtest-request";
import { listsOf, NO_ADJUSTMENT } from "./backtest-result";

/**
 * The control side of backtests (the HTTP endpoints): starting one, the session's list, its
 * progress, pause, resume and stop, its result, and the embedded runtime's recovery. A request's
 * checks and planning are in backtest-request.ts, the workflow's tasks in backtest-tasks.ts.
 */

/** The run of a backtest has the backtest's id. */
export const runIdOf = (backtest: Pick<StoredBacktest, "id">) => backtest.id;

/** What a backtest does differently from a sweep under the control every run kind shares (controllable-run.ts). */
const control = runControl({
  name: "backtest",
  store: "backtests",
  progressOf: (deps: BacktestControlDeps, backtest: StoredBacktest) => progressOf(deps, backtest),
  said: { pause: "pausing; its checkpoint is kept", resume: "resumed", stop: "stopping" },
  hasResult: (backtest) => Boolean(backtest.result),
  // A sweep's run is controlled through its sweep.
  refuse: (backtest, action) =>
    backtest.sweep_id
      ? conflict("INVALID_STATE_TRANSITION", `Cannot ${action} backtest ${backtest.id}: it is a run of sweep ${backtest.sweep_id}; ${action} the sweep`, {
          current_status: backtest.status,
          action,
          sweep_id: backtest.sweep_id,
        })
      : undefined,
  // The session shows its backtest paused or running again.
  after: async (deps, backtest, action) => {
    if (action !== "stop") await syncSession(deps, backtest.session_id, action === "pause" ? "paused" : "running");
  },
  // A sweep's runs are run again by their sweep's execution (Sweeps.recover).
  recovers: (backtest) => !backtest.sweep_id,
});

export const backtestNotFound = control.missing;

/** Applies `change` to the freshest backtest, retrying version conflicts; undefined when `change` declines. */
export const updateBacktest = control.update;

/** Plans a backtest on a session and starts its workflow. */
export async function start(deps: BacktestControlDeps, actor: Actor, request: BacktestRequest): Promise<StoredBacktest> {
  const session = await ownedSession(deps, actor, request.session_id);
  requireBacktestSession(session);
  if (session.status === "running" || session.status === "paused") {
    throw conflict("INVALID_STATE_TRANSITION", `Session ${session.id} is ${session.status} with another backtest; stop it first`, {
      current_status: session.status,
    });
  }
  const backtest = plan(deps, session, request, {}, await unknownOf(deps, requestSymbols(request)));
  const now = backtest.created_at;
  await deps.backtests.create(backtest);
  // The session follows its latest backtest: its views read this run from now on.
  for (let attempt = 0; attempt < 5; attempt++) {
    const current = (await deps.sessions.get(session.id))!;
    const next: StoredSession = {
      ...current,
      status: "running",
      run_id: runIdOf(backtest),
      run_strategy_name: strategyNameOf(backtest.config),
      start_time: now,
      end_time: null,
      initial_capital: request.initial_capital,
      version: current.version + 1,
      updated_at: now,
    };
    if (await deps.sessions.replace(next, current)) break;
  }
  await control.startExecution(deps, backtest);
  return backtest;
}

/**
 * A session's backtests, newest first, a page at a time (its runs reachable from the session:
 * docs/backtests.md "Listing a session's backtests"); the session's owner's, or an administrator's.
 */
export async function list(deps: BacktestControlDeps, actor: Actor, input: unknown): Promise<z.infer<typeof BacktestList>> {
  const query = parseOrThrow(BacktestListQuery, input, ["query"]);
  await ownedSession(deps, actor, query.session_id);
  const page = await deps.backtests.listBySession(query.session_id, { limit: query.limit, cursor: query.cursor });
  return {
    session_id: query.session_id,
    backtests: page.items.map((b) => ({
      backtest_id: b.id,
      status: b.status,
      strategy_name: b.strategy_name,
      symbols: b.symbols,
      start_date: b.start_date,
      end_date: b.end_date,
      created_at: b.created_at,
      finished_at: b.finished_at,
      message: b.message,
      sweep_id: b.sweep_id ?? null,
    })),
    cursor: page.cursor ?? null,
  };
}

/** The interface's progress view. */
export const progress = control.progress;

/** The progress view of a backtest (what `progress` answers and the session's stream pushes). */
export async function progressOf(deps: BacktestControlDeps, backtest: StoredBacktest): Promise<z.infer<typeof BacktestProgress>> {
  // The run's progress alone: a poll does not read and unpack the run's state.
  const ran = await deps.runs.progress(runIdOf(backtest));
  const processed = ran?.bars ?? 0;
  const total = Math.max(backtest.bars_total, processed);
  const { is_running, is_paused } = flagsOf(backtest);
  return {
    backtest_id: backtest.id,
    status: backtest.status,
    stage: stageOf(backtest.status, "running"),
    progress: percentOf(backtest, processed, total),
    // When the last bar fed closed (an hourly or daily bar at its market's close), not its open plus its period.
    current_time: ran?.cursor_ms ? iso(ran.close_ms ?? ran.cursor_ms) : null,
    start_date: backtest.start_date,
    end_date: backtest.end_date,
    is_running,
    is_paused,
    bars_processed: processed,
    bars_total: total,
    message: backtest.message,
  };
}

/** Asks the running workflow to stop at its next checkpoint; the checkpoint stays for resume. */
export const pause = control.pause;

/** Continues a paused backtest from its checkpoint (a new workflow execution), or cancels a pause not yet taken. */
export const resume = control.resume;

/** Stops the backtest; what ran so far is finalised into a result. */
export const stop = control.stop;

/** The caller's backtest with its result recorded (completed or stopped): 409 while it still runs or after it failed. */
export const finishedBacktest = (deps: BacktestControlDeps, actor: Actor, id: string) =>
  control.finished(deps, actor, id) as Promise<StoredBacktest & { result: BacktestSummary }>;

/** The result of a finished or stopped backtest; 409 while it still runs. */
export async function result(deps: BacktestControlDeps, actor: Actor, id: string): Promise<BacktestResult> {
  const backtest = await finishedBacktest(deps, actor, id);
  const feeds = feedsOf(backtest.config).map((feed) => feed.timeframe);
  // Results recorded before prices were adjusted were fed the stored prices.
  // Results recorded before benchmarks were measured had none.
  const summary = { ...backtest.result, price_adjustment: backtest.result.price_adjustment ?? NO_ADJUSTMENT, benchmark: backtest.result.benchmark ?? null };
  return { ...summary, ...(await listsOf(deps, runIdOf(backtest), { ...summary, feeds })) };
}

/** Keeps the session's status in step with its backtest. */
export async function syncSession(deps: BacktestControlDeps, sessionId: string, status: StoredSession["status"], extra: Partial<StoredSession> = {}) {
  for (let attempt = 0; attempt < 5; attempt++) {
    const current = await deps.sessions.get(sessionId);
    if (!current) return;
    const next = { ...current, ...extra, status, version: current.version + 1, updated_at: iso(deps.now()) };
    if (await deps.sessions.replace(next, current)) return;
  }
}

/** Marks a sweep's run that had not ended stopped, without a result: its sweep stopped before it ran. */
export async function endWithSweep(deps: BacktestControlDeps, id: string, at: string): Promise<void> {
  await updateBacktest(deps, id, (b) =>
    TERMINAL.includes(b.status) ? undefined : { ...b, status: "stopped", message: "Stopped with its sweep before it ran", finished_at: at },
  );
}

/** Restarts the workflows of active backtests (the embedded runtime's start-up: its executions did not survive); a sweep's runs are its sweep's. */
export const recover = control.recover;

/** Pushes a backtest's progress view on its session's stream (`backtest_progress`), after each task of its workflow has written its progress. */
export const publishProgress = control.publishProgress;
