import type { z } from "zod";
import { conflict, DomainError, notFound, parseOrThrow } from "../errors";
import { iso } from "../util/time";
import type { Actor } from "../users";
import { feedsOf, strategyNameOf } from "../trading/session/config";
import { owned, type StoredSession } from "../trading/session/sessions";
import { ACTIVE, executionName, ownedBy, paused, resumed, stageOf, stopped, TERMINAL, transition, updateVersioned } from "./control";
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

export const backtestNotFound = (id: string) => notFound("BACKTEST_NOT_FOUND", `Backtest ${id} does not exist`);

/** The run of a backtest has the backtest's id. */
export const runIdOf = (backtest: Pick<StoredBacktest, "id">) => backtest.id;

/** The backtest if it exists and belongs to `actor`. */
const ownedBacktest = async (deps: BacktestControlDeps, actor: Actor, id: string): Promise<StoredBacktest> =>
  ownedBy(await deps.backtests.get(id), actor, id, "backtest", backtestNotFound);

/** The backtest, to pause, resume or stop: a sweep's run is controlled through its sweep (409). */
async function controllable(deps: BacktestControlDeps, actor: Actor, id: string, action: string): Promise<StoredBacktest> {
  const backtest = await ownedBacktest(deps, actor, id);
  if (backtest.sweep_id) {
    throw conflict("INVALID_STATE_TRANSITION", `Cannot ${action} backtest ${id}: it is a run of sweep ${backtest.sweep_id}; ${action} the sweep`, {
      current_status: backtest.status,
      action,
      sweep_id: backtest.sweep_id,
    });
  }
  return backtest;
}

/** Applies `change` to the freshest backtest, retrying version conflicts; undefined when `change` declines. */
export const updateBacktest = (
  deps: Pick<BacktestControlDeps, "backtests" | "now">,
  id: string,
  change: (current: StoredBacktest) => StoredBacktest | undefined,
) => updateVersioned(deps.backtests, deps.now, id, change, backtestNotFound, "BACKTEST_CHANGED", "Backtest");

/** Plans a backtest on a session and starts its workflow. */
export async function start(deps: BacktestControlDeps, actor: Actor, request: BacktestRequest): Promise<StoredBacktest> {
  const session = await owned(deps, actor, request.session_id);
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
    if (await deps.sessions.replace(next, current.version)) break;
  }
  await deps.workflows.start("backtest", executionName(backtest), { backtest_id: backtest.id });
  return backtest;
}

/**
 * A session's backtests, newest first, a page at a time (its runs reachable from the session:
 * docs/backtests.md "Listing a session's backtests"); the session's owner's, or an administrator's.
 */
export async function list(deps: BacktestControlDeps, actor: Actor, input: unknown): Promise<z.infer<typeof BacktestList>> {
  const query = parseOrThrow(BacktestListQuery, input, ["query"]);
  await owned(deps, actor, query.session_id);
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
export async function progress(deps: BacktestControlDeps, actor: Actor, id: string): Promise<z.infer<typeof BacktestProgress>> {
  return progressOf(deps, await ownedBacktest(deps, actor, id));
}

/** The progress view of a backtest (what `progress` answers and the session's stream pushes). */
export async function progressOf(deps: BacktestControlDeps, backtest: StoredBacktest): Promise<z.infer<typeof BacktestProgress>> {
  const id = backtest.id;
  // The run's progress alone: a poll does not read and unpack the run's state.
  const ran = await deps.runs.progress(runIdOf(backtest));
  const processed = ran?.bars ?? 0;
  const total = Math.max(backtest.bars_total, processed);
  const done = backtest.status === "completed";
  const percent = done ? 100 : total > 0 ? Math.min(99.99, Math.floor((processed / total) * 10_000) / 100) : 0;
  const stage = stageOf(backtest.status, "running");
  return {
    backtest_id: id,
    status: backtest.status,
    stage,
    progress: percent,
    // When the last bar fed closed (an hourly or daily bar at its market's close), not its open plus its period.
    current_time: ran?.cursor_ms ? iso(ran.close_ms ?? ran.cursor_ms) : null,
    start_date: backtest.start_date,
    end_date: backtest.end_date,
    is_running: ACTIVE.includes(backtest.status) && backtest.status !== "pausing",
    is_paused: backtest.status === "paused" || backtest.status === "pausing",
    bars_processed: processed,
    bars_total: total,
    message: backtest.message,
  };
}

const control = (backtest: StoredBacktest, message: string) => ({ success: true, message, backtest_id: backtest.id, status: backtest.status });

/** Asks the running workflow to stop at its next checkpoint; the checkpoint stays for resume. */
export async function pause(deps: BacktestControlDeps, actor: Actor, id: string) {
  await controllable(deps, actor, id, "pause");
  const next = await updateBacktest(deps, id, (b) => paused(b, "backtest"));
  await syncSession(deps, next!.session_id, "paused");
  return control(next!, `Backtest ${id} pausing; its checkpoint is kept`);
}

/** Continues a paused backtest from its checkpoint (a new workflow execution), or cancels a pause not yet taken. */
export async function resume(deps: BacktestControlDeps, actor: Actor, id: string) {
  await controllable(deps, actor, id, "resume");
  const next = await transition<StoredBacktest>(
    (change) => updateBacktest(deps, id, change),
    (b) => resumed(b, "backtest"),
    (b) => deps.workflows.start("backtest", executionName(b), { backtest_id: id }),
  );
  await syncSession(deps, next.session_id, "running");
  return control(next, `Backtest ${id} resumed`);
}

/** Stops the backtest; what ran so far is finalised into a result. */
export async function stop(deps: BacktestControlDeps, actor: Actor, id: string) {
  await controllable(deps, actor, id, "stop");
  const next = await transition<StoredBacktest>(
    (change) => updateBacktest(deps, id, change),
    (b) => stopped(b, "backtest"),
    (b) => deps.workflows.start("backtest", executionName(b), { backtest_id: id }),
  );
  return control(next, `Backtest ${id} stopping`);
}

/** The caller's backtest with its result recorded (completed or stopped): 409 while it still runs or after it failed. */
export async function finishedBacktest(deps: BacktestControlDeps, actor: Actor, id: string): Promise<StoredBacktest & { result: BacktestSummary }> {
  const backtest = await ownedBacktest(deps, actor, id);
  if (backtest.result) return backtest as StoredBacktest & { result: BacktestSummary };
  if (backtest.status === "failed") throw new DomainError(409, "BACKTEST_FAILED", `Backtest ${id} failed: ${backtest.error ?? "unknown error"}`);
  throw conflict("BACKTEST_NOT_FINISHED", `Backtest ${id} is ${backtest.status}; its result is ready when it completes or is stopped`, {
    status: backtest.status,
  });
}

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
    if (await deps.sessions.replace(next, current.version)) return;
  }
}

/** Marks a sweep's run that had not ended stopped, without a result: its sweep stopped before it ran. */
export async function endWithSweep(deps: BacktestControlDeps, id: string, at: string): Promise<void> {
  await updateBacktest(deps, id, (b) =>
    TERMINAL.includes(b.status) ? undefined : { ...b, status: "stopped", message: "Stopped with its sweep before it ran", finished_at: at },
  );
}

/** Restarts the workflows of active backtests (the embedded runtime's start-up: its executions did not survive). */
export async function recover(deps: BacktestControlDeps): Promise<string[]> {
  const restarted: string[] = [];
  for (const backtest of await deps.backtests.active()) {
    // A sweep's runs are run again by their sweep's execution (Sweeps.recover).
    if (backtest.sweep_id) continue;
    const next = await updateBacktest(deps, backtest.id, (b) => (ACTIVE.includes(b.status) ? { ...b, executions: b.executions + 1 } : undefined));
    if (!next) continue;
    await deps.workflows.start("backtest", executionName(next), { backtest_id: next.id });
    restarted.push(next.id);
  }
  return restarted;
}
