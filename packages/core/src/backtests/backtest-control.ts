import type { z } from "zod";
import { ACTIVE, paused, resumed, stageOf, stopped, TERMINAL, transition, updateVersioned } from "./control";
import { conflict, DomainError, forbidden, notFound, ValidationError, type ValidationIssue } from "../errors";
import { marketOf, Markets, normalizeSymbol } from "../market/market";
import { zonedTimeToUtc, dayNumberOf } from "../market/zoned-time";
import { Strategies } from "../strategies/index";
import { iso } from "../time";
import type { Actor } from "../users";
import { normalizeConfig, strategyNameOf, type SessionConfig } from "../trading/session-config";
import { owned, type StoredSession } from "../trading/sessions";
import type { BacktestControlDeps, BacktestProgress, BacktestRequest, BacktestResult, StoredBacktest } from "./backtest-model";
import { listsOf } from "./backtest-result";

/**
 * The control side of backtests (the HTTP endpoints): planning and starting one, its progress,
 * pause, resume and stop, its result, and the embedded runtime's recovery. The workflow's tasks
 * are in backtest-tasks.ts.
 */

export const backtestNotFound = (id: string) => notFound("BACKTEST_NOT_FOUND", `Backtest ${id} does not exist`);

/** The run of a backtest has the backtest's id. */
export const runIdOf = (backtest: Pick<StoredBacktest, "id">) => backtest.id;

/** The backtest if it exists and belongs to `actor`. */
async function ownedBacktest(deps: BacktestControlDeps, actor: Actor, id: string): Promise<StoredBacktest> {
  const backtest = await deps.backtests.get(id);
  if (!backtest) throw backtestNotFound(id);
  if (backtest.user_id !== actor.id && actor.user_type !== "admin") throw forbidden(`Backtest ${id} belongs to another user`);
  return backtest;
}

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

/**
 * The strategy configuration of a request as a session configuration (one channel, `main`), and
 * whether the run applies its risk rules (`strategy_config.risk_config: null` turns them off).
 */
function configOf(request: BacktestRequest, session: StoredSession, symbols: string[]): { config: SessionConfig; enforceRisk: boolean } {
  const { execution, risk_config, timeframe, parameters, ...rest } = request.strategy_config as Record<string, unknown>;
  const strategyParameters = (parameters && typeof parameters === "object" ? parameters : rest) as Record<string, unknown>;
  const issues: ValidationIssue[] = [];
  // Each problem at the field the request sent: the strategy's name is the request's own
  // `strategy_name`, its parameters are `strategy_config` itself unless nested under `parameters`.
  const fieldOf = (loc: (string | number)[]): (string | number)[] => {
    if (request.strategy_name === "multi_channel") return ["body", "strategy_config", ...loc];
    if (loc[0] === "strategy_name") return ["body", "strategy_name"];
    if (loc[0] === "parameters") return ["body", "strategy_config", ...(parameters && typeof parameters === "object" ? loc : loc.slice(1))];
    return ["body", "strategy_config", ...loc];
  };
  const relocate = (error: unknown) => {
    if (error instanceof ValidationError) for (const i of error.issues) issues.push({ ...i, loc: fieldOf(i.loc.slice(1)) });
    else throw error;
  };
  let config: SessionConfig | undefined;
  // One rule in every mode (docs/trading-sessions.md, "Which risk configuration applies"): the
  // session's risk configuration, unless the run gives its own; fields it leaves out are the session's.
  // What the session gave stays given; what it left to the preset stays the preset's (or a strategy's own exits).
  const sessionGiven = session.config.risk_given ?? Object.keys(session.config.risk_config);
  const fromSession = Object.fromEntries(sessionGiven.map((field) => [field, (session.config.risk_config as Record<string, unknown>)[field]]));
  const risk =
    risk_config === null || risk_config === undefined ? fromSession : typeof risk_config === "object" ? { ...fromSession, ...risk_config } : risk_config;
  try {
    const base =
      request.strategy_name === "multi_channel"
        ? { ...session.config, risk_config: risk }
        : { strategy_name: request.strategy_name, parameters: strategyParameters, risk_config: risk };
    config = normalizeConfig({ ...base, symbols, ...(timeframe !== undefined ? { timeframe } : {}), execution: execution ?? {} }, symbols);
  } catch (error) {
    relocate(error);
  }
  if (request.strategy_name !== "multi_channel" && !Strategies.exists(request.strategy_name) && !issues.some((i) => i.loc[1] === "strategy_name")) {
    issues.push({ loc: ["body", "strategy_name"], msg: `strategy '${request.strategy_name}' does not exist`, type: "strategy_not_found" });
  }
  if (config && config.channels.length === 0)
    issues.push({ loc: ["body", "strategy_name"], msg: "the session has no channels to backtest", type: "no_channels" });
  if (issues.length > 0 || !config) throw new ValidationError(issues);
  return { config, enforceRisk: risk_config !== null };
}

/** A session backtests run on: one created with trading_mode backtest (409 otherwise). */
export function requireBacktestSession(session: StoredSession): void {
  if (session.trading_mode !== "backtest") {
    throw conflict(
      "INVALID_STATE_TRANSITION",
      `Session ${session.id} trades in ${session.trading_mode} mode; backtests run on sessions created with trading_mode backtest`,
      { current_status: session.status },
    );
  }
}

/** A new backtest of `request` on `session`, validated (422 listing every problem) and not yet stored; `extra` for a sweep's runs. */
export function plan(
  deps: Pick<BacktestControlDeps, "now" | "newId">,
  session: StoredSession,
  request: BacktestRequest,
  extra: Partial<StoredBacktest> = {},
): StoredBacktest {
  const symbols: string[] = [];
  const issues: ValidationIssue[] = [];
  request.symbols.forEach((symbol, index) => {
    try {
      const normal = normalizeSymbol(symbol);
      if (!Markets[marketOf(normal)].supported) throw new Error(`${normal}: the ${marketOf(normal)} market has no calendar here`);
      if (!symbols.includes(normal)) symbols.push(normal);
    } catch (error) {
      issues.push({ loc: ["body", "symbols", index], msg: (error as Error).message, type: "invalid_symbol" });
    }
  });
  if (request.start_date > request.end_date) issues.push({ loc: ["body", "end_date"], msg: "end_date is before start_date", type: "value_error" });
  if (issues.length > 0) throw new ValidationError(issues);
  const { config, enforceRisk } = configOf(request, session, symbols);
  const timezone = request.timezone ?? Markets[marketOf(symbols[0])].timeZone;
  const window: [number, number] = [
    Math.floor(zonedTimeToUtc(timezone, dayNumberOf(request.start_date), 0) / 1000),
    Math.floor(zonedTimeToUtc(timezone, dayNumberOf(request.end_date) + 1, 0) / 1000) - 1,
  ];
  const now = iso(deps.now());
  return {
    id: deps.newId(),
    session_id: session.id,
    user_id: session.user_id,
    strategy_name: request.strategy_name,
    config,
    enforce_risk: enforceRisk,
    symbols,
    start_date: request.start_date,
    end_date: request.end_date,
    timezone,
    window,
    initial_capital: request.initial_capital,
    status: "queued",
    message: "Queued",
    pause_requested: false,
    stop_requested: false,
    executions: 1,
    import_task_ids: [],
    bars_total: 0,
    result: null,
    error: null,
    version: 1,
    created_at: now,
    updated_at: now,
    finished_at: null,
    ...extra,
  };
}

/** Plans a backtest on a session and starts its workflow. */
export async function start(deps: BacktestControlDeps, actor: Actor, request: BacktestRequest): Promise<StoredBacktest> {
  const session = await owned(deps, actor, request.session_id);
  requireBacktestSession(session);
  if (session.status === "running" || session.status === "paused") {
    throw conflict("INVALID_STATE_TRANSITION", `Session ${session.id} is ${session.status} with another backtest; stop it first`, {
      current_status: session.status,
    });
  }
  const backtest = plan(deps, session, request);
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

export const executionName = (backtest: Pick<StoredBacktest, "id" | "executions">) => `${backtest.id}-${backtest.executions}`;

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

/** The result of a finished or stopped backtest; 409 while it still runs. */
export async function result(deps: BacktestControlDeps, actor: Actor, id: string): Promise<BacktestResult> {
  const backtest = await ownedBacktest(deps, actor, id);
  if (backtest.result) return { ...backtest.result, ...(await listsOf(deps, runIdOf(backtest))) };
  if (backtest.status === "failed") throw new DomainError(409, "BACKTEST_FAILED", `Backtest ${id} failed: ${backtest.error ?? "unknown error"}`);
  throw conflict("BACKTEST_NOT_FINISHED", `Backtest ${id} is ${backtest.status}; its result is ready when it completes or is stopped`, {
    status: backtest.status,
  });
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
