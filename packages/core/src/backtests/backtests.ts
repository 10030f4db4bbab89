import { z } from "zod";
import { Buckets, type StoredPeriod } from "../candles/buckets";
import type { CandleStore } from "../candles/index";
import type { CandleBatch } from "../candles/candle-batch";
import { TradeSessionCode } from "../market/trade-session";
import { ACTIVE, type Controlled, paused, resumed, stopped, TERMINAL, transition, updateVersioned } from "./control";
import { conflict, DomainError, forbidden, notFound, ValidationError, type ValidationIssue } from "../errors";
import { TradingEngine } from "../engine/engine";
import type { EngineEvent, FillData } from "../engine/events";
import { Execution } from "../engine/setup";
import { performance, PerformanceMetrics } from "../engine/metrics";
import type { FeeConfig } from "../fees/index";
import { Dec, DecimalInput, IsoDate } from "../fees/money";
import { Imports, type ImportDeps } from "../imports/index";
import { Calendar } from "../market/calendar";
import { marketOf, Markets, normalizeSymbol } from "../market/market";
import { zonedTimeToUtc, dayNumberOf, isoDateOf, utcToZoned } from "../market/zoned-time";
import { Strategies } from "../strategies/index";
import { Timeframe } from "../strategies/definition";
import { TimeZone, iso } from "../time";
import type { Actor } from "../users";
import { engineSetup, feedsOf, normalizeConfig, strategyNameOf, type SessionConfig } from "../trading/session-config";
import { valueIn } from "../trading/closing";
import { warmupWindows, warmUpFromStore } from "../trading/warm-up";
import * as Risk from "../risk/risk";
import type { RunStore, StoredEvent, StoredRun } from "../trading/runs";
import { capitalOf, owned, type SessionDeps, type StoredSession } from "../trading/sessions";
import type { BacktestTaskInput, BacktestTaskOutput, WorkflowStarter } from "../workflows";
import { BarFeed } from "./bar-feed";

/**
 * Backtests: a session's strategy run over stored candles by the Step Functions machine
 * (prepare → run chunk → … → finalize). Every task reads the backtest and its run from the
 * table and writes them back version-checked, so a task may be retried, a whole runtime may be
 * restarted, and pause and resume may come at any time: the result is that of one
 * uninterrupted run. docs/backtests.md has the states and fields.
 */

/** Where a backtest is: `queued` → `importing` → `running` ⇄ `pausing`/`paused` → `stopping` → `completed`, `stopped` or `failed`. */
export const BacktestStatus = z
  .enum(["queued", "importing", "running", "pausing", "paused", "stopping", "completed", "stopped", "failed"])
  .meta({ id: "BacktestStatus" });
export type BacktestStatus = z.infer<typeof BacktestStatus>;

/** Interface BacktestRequest. `strategy_config` holds the strategy's parameters plus `execution`, `risk_config` and `timeframe`. */
export const BacktestRequest = z
  .object({
    session_id: z.string().min(1).max(128),
    strategy_name: z.string().min(1).max(64),
    strategy_config: z.record(z.string(), z.unknown()),
    symbols: z.array(z.string().min(1).max(32)).min(1).max(20),
    start_date: IsoDate,
    end_date: IsoDate,
    initial_capital: DecimalInput.refine((v) => new Dec(v).gt(0), "must be greater than zero").refine((v) => new Dec(v).lte("1e15"), "must be at most 1e15"),
    timezone: TimeZone.optional(),
  })
  .meta({ id: "BacktestRequest" });
export type BacktestRequest = z.infer<typeof BacktestRequest>;

/** Interface BacktestResponse. */
export const BacktestResponse = z
  .object({ success: z.boolean(), message: z.string(), backtest_id: z.string().nullable(), performance_metrics: PerformanceMetrics.nullable() })
  .meta({ id: "BacktestResponse" });

/** Interface BacktestProgressResponse, with the stage and counts behind the percentage. */
export const BacktestProgress = z
  .object({
    backtest_id: z.string(),
    status: BacktestStatus,
    stage: z.enum(["queued", "importing", "running", "finalizing", "done"]),
    progress: z.number().describe("Percent of the backtest's bars processed, 0 to 100"),
    current_time: z.string().nullable(),
    start_date: z.string(),
    end_date: z.string(),
    is_running: z.boolean(),
    is_paused: z.boolean(),
    bars_processed: z.int(),
    bars_total: z.int(),
    message: z.string(),
  })
  .meta({ id: "BacktestProgressResponse" });

/** Answer of pause, resume and stop. */
export const BacktestControlResult = z
  .object({ success: z.boolean(), message: z.string(), backtest_id: z.string(), status: BacktestStatus })
  .meta({ id: "BacktestControlResult" });

const Fill = z.object({
  order_id: z.string(),
  timestamp: z.string(),
  symbol: z.string(),
  side: z.enum(["buy", "sell"]),
  quantity: z.string(),
  price: z.string(),
  commission: z.string(),
  channel_id: z.string().nullable(),
});

const ClosedTrade = z.object({
  symbol: z.string(),
  channel_id: z.string().nullable(),
  direction: z.enum(["long", "short"]),
  quantity: z.string(),
  entry_time: z.string(),
  exit_time: z.string(),
  entry_price: z.string(),
  exit_price: z.string(),
  pnl: z.string(),
  fees: z.string(),
});

/** The result of a finished (or stopped) backtest. */
export const BacktestResult = z
  .object({
    backtest_id: z.string(),
    session_id: z.string(),
    status: BacktestStatus,
    strategy_name: z.string(),
    symbols: z.array(z.string()),
    start_date: z.string(),
    end_date: z.string(),
    timeframe: Timeframe,
    execution: Execution,
    risk_config: Risk.Config.nullable().describe(
      "The risk configuration the run applied: the session's, or strategy_config.risk_config over it (docs/trading-sessions.md); null for a backtest started before every run applied one",
    ),
    initial_capital: z.string(),
    final_capital: z.string(),
    final_capital_by_currency: z.record(z.string(), z.string()).describe("Cash plus positions at their last close per currency, to the cent"),
    final_value_by_currency: z.record(z.string(), z.string()).describe("The same, unrounded (commissions of the percent model are not rounded)"),
    final_cash_by_currency: z.record(z.string(), z.string()).describe("Cash per currency, unrounded"),
    performance_metrics: PerformanceMetrics,
    channels: z.record(z.string(), PerformanceMetrics),
    fills: z.array(Fill),
    trades: z.array(ClosedTrade),
    equity_curve: z.array(z.object({ date: z.string(), equity: z.string() })),
    bars_processed: z.int(),
    completed_at: z.string().nullable(),
  })
  .meta({ id: "BacktestResult" });
export type BacktestResult = z.infer<typeof BacktestResult>;

/** What finalize stores on the backtest: the result without its lists, which are read from the run's log (they can outgrow an item). */
export type BacktestSummary = Omit<BacktestResult, "fills" | "trades" | "equity_curve">;

/** A backtest as stored. Progress lives in its run; this record holds the plan and the control flags. */
export interface StoredBacktest extends Controlled {
  id: string;
  session_id: string;
  user_id: string;
  strategy_name: string;
  config: SessionConfig;
  enforce_risk: boolean;
  symbols: string[];
  start_date: string;
  end_date: string;
  timezone: string;
  /** The window in UNIX seconds (inclusive). */
  window: [number, number];
  initial_capital: string;
  status: BacktestStatus;
  message: string;
  pause_requested: boolean;
  stop_requested: boolean;
  /** Executions started so far; the next execution's name ends with this number plus one. */
  executions: number;
  import_task_ids: string[];
  bars_total: number;
  result: BacktestSummary | null;
  error: string | null;
  version: number;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
  /** Set on a run of a parameter sweep: the sweep's flags control it and its session is left alone (docs/backtests.md "Parameter sweeps"). */
  sweep_id?: string;
  /** The sweep imported the candles and counted `bars_total` before creating the run: prepare skips its own look. */
  candles_ready?: boolean;
}

/** Storage port of backtests. */
export interface BacktestStore {
  create(backtest: StoredBacktest): Promise<void>;
  get(id: string): Promise<StoredBacktest | undefined>;
  /** Replaces if the stored version is still `expectedVersion`; false otherwise. */
  replace(backtest: StoredBacktest, expectedVersion: number): Promise<boolean>;
  /** Backtests in an active state (queued, importing, running, pausing, stopping): the local runtime's recovery list. */
  active(): Promise<StoredBacktest[]>;
  /** Creates many new backtests at once (a sweep's runs). */
  createMany(backtests: StoredBacktest[]): Promise<void>;
  /** The backtests of these ids that exist. */
  getMany(ids: string[]): Promise<StoredBacktest[]>;
}

/** What a run of a sweep reads of its sweep: the control flags. */
export interface SweepFlags {
  flags(sweepId: string): Promise<{ pause_requested: boolean; stop_requested: boolean } | undefined>;
}

export interface BacktestDeps extends SessionDeps {
  backtests: BacktestStore;
  sweeps: SweepFlags;
  runs: RunStore;
  candles: CandleStore;
  imports: ImportDeps;
  workflows: WorkflowStarter;
  /** Board lots by symbol (from the provider's static information). */
  lots: (symbols: string[]) => Promise<Record<string, number>>;
  /** Units of USD per unit of each currency, for marking. */
  fx: Record<string, number>;
  /** Fee schedule of a broker type, for the `broker` commission model. */
  fees: (brokerType: string) => FeeConfig;
  /** Bars one chunk feeds at most before it checkpoints (BACKTEST_CHUNK_BARS unless configured). */
  chunkBars: number;
}

/** What starting, controlling and reading backtests needs: no import worker and no provider (only the workflow's tasks use those). */
export type BacktestControlDeps = Omit<BacktestDeps, "imports" | "lots">;

const MAX_CURVE_POINTS = 500;
const INTRADAY = TradeSessionCode.Intraday;
const backtestNotFound = (id: string) => notFound("BACKTEST_NOT_FOUND", `Backtest ${id} does not exist`);

/** The run of a backtest has the backtest's id. */
const runIdOf = (backtest: Pick<StoredBacktest, "id">) => backtest.id;

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
const update = (deps: BacktestControlDeps, id: string, change: (current: StoredBacktest) => StoredBacktest | undefined) =>
  updateVersioned(deps.backtests, deps.now, id, change, backtestNotFound, "BACKTEST_CHANGED", "Backtest");

/** The strategy configuration of a request as a session configuration (one channel, `main`). */
function configOf(request: BacktestRequest, session: StoredSession, symbols: string[]): SessionConfig {
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
  const risk =
    risk_config !== undefined && typeof risk_config === "object"
      ? { ...session.config.risk_config, ...risk_config }
      : (risk_config ?? session.config.risk_config);
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
  return config;
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
  const config = configOf(request, session, symbols);
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
    enforce_risk: true,
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

const executionName = (backtest: Pick<StoredBacktest, "id" | "executions">) => `${backtest.id}-${backtest.executions}`;

/** The interface's progress view. */
export async function progress(deps: BacktestControlDeps, actor: Actor, id: string): Promise<z.infer<typeof BacktestProgress>> {
  return progressOf(deps, await ownedBacktest(deps, actor, id));
}

/** The progress view of a backtest (what `progress` answers and the session's stream pushes). */
export async function progressOf(deps: BacktestControlDeps, backtest: StoredBacktest): Promise<z.infer<typeof BacktestProgress>> {
  const id = backtest.id;
  const run = await deps.runs.get(runIdOf(backtest));
  const processed = run?.progress?.bars ?? 0;
  const total = Math.max(backtest.bars_total, processed);
  const done = backtest.status === "completed";
  const percent = done ? 100 : total > 0 ? Math.min(99.99, Math.floor((processed / total) * 10_000) / 100) : 0;
  const stage = TERMINAL.includes(backtest.status)
    ? "done"
    : backtest.status === "queued"
      ? "queued"
      : backtest.status === "importing"
        ? "importing"
        : backtest.status === "stopping"
          ? "finalizing"
          : "running";
  return {
    backtest_id: id,
    status: backtest.status,
    stage,
    progress: percent,
    current_time: run?.progress?.cursor_ms ? iso(run.progress.cursor_ms) : null,
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
  const next = await update(deps, id, (b) => paused(b, "backtest"));
  await syncSession(deps, next!.session_id, "paused");
  return control(next!, `Backtest ${id} pausing; its checkpoint is kept`);
}

/** Continues a paused backtest from its checkpoint (a new workflow execution), or cancels a pause not yet taken. */
export async function resume(deps: BacktestControlDeps, actor: Actor, id: string) {
  await controllable(deps, actor, id, "resume");
  const next = await transition<StoredBacktest>(
    (change) => update(deps, id, change),
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
    (change) => update(deps, id, change),
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
async function syncSession(deps: BacktestControlDeps, sessionId: string, status: StoredSession["status"], extra: Partial<StoredSession> = {}) {
  for (let attempt = 0; attempt < 5; attempt++) {
    const current = await deps.sessions.get(sessionId);
    if (!current) return;
    const next = { ...current, ...extra, status, version: current.version + 1, updated_at: iso(deps.now()) };
    if (await deps.sessions.replace(next, current.version)) return;
  }
}

// ---- workflow tasks ---------------------------------------------------------------------------

const out = (backtest: StoredBacktest, status: BacktestTaskOutput["status"]): BacktestTaskOutput => ({ backtest_id: backtest.id, status });

/** A flag raised since the last task: the machine's Choice acts on it. */
async function flagged(deps: BacktestDeps, backtest: StoredBacktest): Promise<BacktestTaskOutput | null> {
  if (backtest.stop_requested || backtest.status === "stopping") return out(backtest, "stopped");
  const sweep = backtest.sweep_id ? await deps.sweeps.flags(backtest.sweep_id) : undefined;
  if (sweep?.stop_requested) return out(backtest, "stopped");
  if (backtest.pause_requested || sweep?.pause_requested) {
    const paused = await update(deps, backtest.id, (b) =>
      b.pause_requested || sweep?.pause_requested ? { ...b, status: "paused", message: "Paused at a checkpoint" } : undefined,
    );
    if (paused) return out(paused, "paused");
  }
  return null;
}

/** Whether a pause or stop was asked of the backtest or of its sweep (read again while a chunk runs). */
async function flagRaised(deps: BacktestDeps, id: string): Promise<boolean> {
  const latest = await deps.backtests.get(id);
  if (!latest) return false;
  if (latest.pause_requested || latest.stop_requested) return true;
  const sweep = latest.sweep_id ? await deps.sweeps.flags(latest.sweep_id) : undefined;
  return sweep !== undefined && (sweep.pause_requested || sweep.stop_requested);
}

/**
 * What is stored of one feed, from one read: the trading days of `history` (the window, or from
 * the warm-up's first day) without a regular-session candle, and how many regular-session bars lie
 * inside `window` (what the chunks will feed).
 */
async function coverage(
  deps: BacktestDeps,
  symbol: string,
  period: StoredPeriod,
  history: [number, number],
  window: [number, number],
): Promise<{ missing: string[]; bars: number }> {
  const calendar = Calendar.for(marketOf(symbol));
  const first = calendar.localDateOf(history[0] * 1000);
  const last = calendar.localDateOf(history[1] * 1000);
  let days: string[];
  try {
    days = calendar.tradingDays(first, last);
  } catch (error) {
    if (error instanceof DomainError) throw new ValidationError([{ loc: ["body", "start_date"], msg: error.message, type: "value_error" }]);
    throw error;
  }
  const covered = new Set<number>();
  let bars = 0;
  const count = (batch: CandleBatch) => {
    for (let i = 0; i < batch.length; i++) {
      if (batch.session[i] !== INTRADAY) continue;
      const ts = batch.timestamp[i]!;
      covered.add(utcToZoned(calendar.timeZone, ts * 1000).dayNumber);
      if (ts >= window[0] && ts <= window[1]) bars++;
    }
  };
  if (period === "1m" || period === "5m") {
    // Day buckets: the US and HK regular sessions fall within one UTC date, their bucket's, so the
    // buckets' session counts answer without reading a candle; only a bucket the window's edge
    // cuts is read, to count its bars inside the window.
    const summaries = await deps.candles.summaries(symbol, period, [Buckets.of(period, history[0]), Buckets.of(period, history[1])]);
    const edges: string[] = [];
    for (const summary of summaries) {
      const regular = summary.sessions.Intraday ?? 0;
      if (regular > 0) covered.add(dayNumberOf(summary.bucket));
      const [start, end] = Buckets.range(period, summary.bucket);
      if (start >= window[0] && end - 1 <= window[1]) bars += regular;
      else if (regular > 0 && end > window[0] && start <= window[1]) edges.push(summary.bucket);
    }
    const loaded = await deps.candles.load(symbol, period, edges);
    for (const batch of loaded.values()) {
      for (let i = 0; i < batch.length; i++) if (batch.session[i] === INTRADAY && batch.timestamp[i]! >= window[0] && batch.timestamp[i]! <= window[1]) bars++;
    }
  } else {
    // Month and year buckets reach past the window: their candles are read and counted one by one.
    const loaded = await deps.candles.load(symbol, period, Buckets.between(period, history[0], history[1]));
    for (const batch of loaded.values()) count(batch);
  }
  return { missing: days.filter((day) => !covered.has(dayNumberOf(day))), bars };
}

/**
 * Starts the imports of what is missing of each feed's candles from its `from` (the window's
 * start, or the warm-up's first day) to the window's end, through the import worker (stored
 * candles kept): the tasks started, `busy` when another import of a symbol runs (look again
 * later), and the regular-session bars inside `window` of these feeds and of `counted` (feeds
 * only counted, not looked at for gaps).
 */
export async function importMissing(
  deps: BacktestDeps,
  userId: string,
  feeds: { symbol: string; timeframe: Timeframe; from: number }[],
  window: [number, number],
  counted: { symbol: string; timeframe: Timeframe }[] = [],
): Promise<{ started: string[]; busy: boolean; bars: number }> {
  const started: string[] = [];
  let bars = 0;
  for (const feed of counted) bars += (await coverage(deps, feed.symbol, feed.timeframe, window, window)).bars;
  for (const feed of feeds) {
    const { missing, bars: inWindow } = await coverage(deps, feed.symbol, feed.timeframe, [feed.from, window[1]], window);
    bars += inWindow;
    if (missing.length === 0) continue;
    try {
      const task = await Imports.start(
        deps.imports,
        { id: userId, user_type: "user" },
        {
          symbol: feed.symbol,
          start_date: missing[0],
          end_date: missing[missing.length - 1],
          periods: [feed.timeframe],
          timezone: Calendar.for(marketOf(feed.symbol)).timeZone,
        },
        { keepExisting: true },
      );
      started.push(task.task_id);
    } catch (error) {
      // Someone else's import of the symbol is running: wait for it, then look again.
      if (error instanceof DomainError && error.code === "IMPORT_ALREADY_RUNNING") return { started, busy: true, bars };
      throw error;
    }
  }
  return { started, busy: false, bars };
}

/** Whether these import tasks have ended (a failed one fails the backtest or sweep: 502 BACKTEST_IMPORT_FAILED). */
export async function importsDone(deps: BacktestDeps, taskIds: string[]): Promise<boolean> {
  for (const taskId of taskIds) {
    const task = await deps.imports.tasks.get(taskId);
    if (task && (task.status === "pending" || task.status === "running")) return false;
    if (task && task.status !== "completed")
      throw new DomainError(502, "BACKTEST_IMPORT_FAILED", `Import ${taskId} of missing candles ${task.status}: ${task.message}`);
  }
  return true;
}

/**
 * Prepare: on the first pass, finds the trading days without candles and imports them through
 * the import worker (keeping stored candles); answers `importing` until those imports end, then
 * creates the run and answers `running`. A resumed backtest answers `running` at once.
 */
export async function prepare(deps: BacktestDeps, input: BacktestTaskInput): Promise<BacktestTaskOutput> {
  let backtest = await deps.backtests.get(input.backtest_id);
  if (!backtest) throw backtestNotFound(input.backtest_id);
  if (TERMINAL.includes(backtest.status)) return out(backtest, backtest.status === "completed" ? "done" : "stopped");
  const raised = await flagged(deps, backtest);
  if (raised) return raised;
  // A run of a sweep paused with its sweep continues when the sweep's next execution reaches it.
  const continues = (b: StoredBacktest) => b.status === "queued" || b.status === "importing" || (b.sweep_id !== undefined && b.status === "paused");
  if (await deps.runs.get(runIdOf(backtest))) {
    const running = await update(deps, backtest.id, (b) => (continues(b) ? { ...b, status: "running", message: "Running" } : b));
    return out(running!, "running");
  }
  const feeds = feedsOf(backtest.config);
  // Bars of the window, counted from the same read that finds the missing days (when nothing is imported).
  let barsTotal: number | null = backtest.candles_ready ? backtest.bars_total : null;
  if (!backtest.candles_ready && backtest.import_task_ids.length === 0 && backtest.status === "queued") {
    const history = backtest.config.execution.warm_up ? warmupWindows(new TradingEngine(await setupOf(deps, backtest)), backtest.window[0]) : [];
    const from = (feed: { symbol: string; timeframe: string }) =>
      history.find(({ need }) => need.symbol === feed.symbol && need.timeframe === feed.timeframe)?.from ?? backtest!.window[0];
    const { started, busy, bars } = await importMissing(
      deps,
      backtest.user_id,
      feeds.map((feed) => ({ ...feed, from: from(feed) })),
      backtest.window,
    );
    if (busy) return out(backtest, "importing");
    if (started.length > 0) {
      // A pause asked for meanwhile stays what progress shows (`pausing`), until the next task takes it.
      const importing = (b: StoredBacktest) => b.status === "queued";
      backtest = (await update(deps, backtest.id, (b) => ({
        ...b,
        status: importing(b) ? "importing" : b.status,
        import_task_ids: started,
        message: importing(b) ? `Importing missing candles (${started.length} import task${started.length > 1 ? "s" : ""})` : b.message,
      })))!;
      return out(backtest, "importing");
    }
    barsTotal = bars;
  }
  if (!(await importsDone(deps, backtest.import_task_ids))) return out(backtest, "importing");
  if (barsTotal === null) barsTotal = (await importMissing(deps, backtest.user_id, [], backtest.window, feeds)).bars;
  const { run, events } = await createRun(deps, backtest, barsTotal);
  await deps.runs.save(run, 0, events);
  const running = await update(deps, backtest.id, (b) => ({
    ...b,
    status: continues(b) ? "running" : b.status,
    bars_total: barsTotal,
    message: continues(b) ? "Running" : b.message,
  }));
  return out(running!, "running");
}

/** The engine's setup of a backtest: its configuration with lot sizes, rates, fees and capital looked up. */
async function setupOf(deps: BacktestDeps, backtest: StoredBacktest) {
  const session = await deps.sessions.get(backtest.session_id);
  const lots = await deps.lots(backtest.symbols);
  const base = Markets[marketOf(backtest.symbols[0])].currency;
  const commission = backtest.config.execution.commission;
  return engineSetup({
    run_id: runIdOf(backtest),
    config: backtest.config,
    base_currency: base,
    lots,
    fx: fxToBase(deps.fx, base),
    fees: commission.model === "broker" ? deps.fees(commission.broker_type) : null,
    capital: session
      ? capitalOf({ initial_capital: backtest.initial_capital, initial_capital_by_currency: session.initial_capital_by_currency }, base)
      : { [base]: backtest.initial_capital },
    enforce_risk: backtest.enforce_risk,
  });
}

/**
 * A backtest's run: its setup, and with `execution.warm_up` the engine warmed up on the stored
 * bars before the window (the prepare stage imported them), with the warm-up's log events.
 */
async function createRun(deps: BacktestDeps, backtest: StoredBacktest, barsTotal: number): Promise<{ run: StoredRun; events: EngineEvent[] }> {
  const setup = await setupOf(deps, backtest);
  const engine = new TradingEngine(setup);
  const warm = backtest.config.execution.warm_up === true;
  if (warm) await warmUpFromStore(deps.candles, engine, backtest.window[0]);
  const run: StoredRun = {
    run_id: runIdOf(backtest),
    session_id: backtest.session_id,
    user_id: backtest.user_id,
    setup,
    snapshot: warm ? engine.snapshot() : null,
    progress: { cursor_ms: 0, bars: 0, bars_total: barsTotal, done: false },
    version: 1,
    updated_at: iso(deps.now()),
  };
  return { run, events: engine.drainEvents() };
}

/** Base-currency units per unit of each currency, from rates quoted per USD. */
function fxToBase(perUsd: Record<string, number>, base: string): Record<string, number> {
  const rate = (currency: string) => (currency === "USD" ? 1 : (perUsd[currency] ?? 1));
  return Object.fromEntries(Object.keys({ USD: 1, ...perUsd }).map((currency) => [currency, rate(base) / rate(currency)]));
}

/** Run chunk: restores the engine, feeds the next bars until the chunk budget or the deadline, checkpoints. */
export async function runChunk(deps: BacktestDeps, input: BacktestTaskInput, deadlineMs: number, maxBars = deps.chunkBars): Promise<BacktestTaskOutput> {
  const backtest = await deps.backtests.get(input.backtest_id);
  if (!backtest) throw backtestNotFound(input.backtest_id);
  if (TERMINAL.includes(backtest.status)) return out(backtest, backtest.status === "completed" ? "done" : "stopped");
  const raised = await flagged(deps, backtest);
  if (raised) return raised;
  for (let attempt = 0; attempt < 5; attempt++) {
    const run = await deps.runs.get(runIdOf(backtest));
    if (!run) throw new DomainError(500, "BACKTEST_RUN_MISSING", `Backtest ${backtest.id} has no run; prepare it first`);
    if (run.progress?.done) return out(backtest, "done");
    const engine = run.snapshot ? TradingEngine.restore(run.setup, run.snapshot) : new TradingEngine(run.setup);
    // The flags are read again beside every window of candles the feed loads, so a pause or stop
    // asked while a long chunk runs ends it at the next checkpoint instead of after its last bar.
    let raised = false;
    const candles = {
      load: async (...args: Parameters<CandleStore["load"]>) => {
        const [loaded, asked] = await Promise.all([deps.candles.load(...args), flagRaised(deps, backtest.id)]);
        if (asked) raised = true;
        return loaded;
      },
    };
    const feed = new BarFeed(candles, feedsOf(backtest.config), backtest.window[0], backtest.window[1], run.progress?.cursor_ms ?? 0);
    const fed = await feed.run(maxBars, engine, () => raised || deps.now() >= deadlineMs);
    if (fed.done) engine.endDay();
    const next: StoredRun = {
      ...run,
      snapshot: engine.snapshot(),
      progress: {
        cursor_ms: fed.lastCloseMs ?? run.progress?.cursor_ms ?? 0,
        bars: (run.progress?.bars ?? 0) + fed.fed,
        bars_total: run.progress?.bars_total ?? 0,
        done: fed.done,
      },
      version: run.version + 1,
      updated_at: iso(deps.now()),
    };
    if (!(await deps.runs.save(next, run.version, engine.drainEvents()))) continue;
    // Also after the last bar: a pause asked before the end is honoured (the run is kept, done, and
    // a resume finalises it), so a backtest that fits in one chunk can be paused like any other.
    const latest = await deps.backtests.get(backtest.id);
    if (latest) {
      const again = await flagged(deps, latest);
      if (again) return again;
    }
    return out(backtest, fed.done ? "done" : "running");
  }
  throw conflict("BACKTEST_CHANGED", `Backtest ${backtest.id}'s run changed concurrently`);
}

/** Finalize: computes the result from the run, and records it on the backtest and its session. */
export async function finalize(deps: BacktestDeps, input: BacktestTaskInput): Promise<BacktestTaskOutput> {
  const backtest = await deps.backtests.get(input.backtest_id);
  if (!backtest) throw backtestNotFound(input.backtest_id);
  if (backtest.result) return out(backtest, backtest.status === "completed" ? "done" : "stopped");
  const run = (await deps.runs.get(runIdOf(backtest))) ?? (await createRun(deps, backtest, 0)).run;
  const engine = run.snapshot ? TradingEngine.restore(run.setup, run.snapshot) : new TradingEngine(run.setup);
  const completed = run.progress?.done === true && !backtest.stop_requested;
  const whole = engine.view(null);
  const days = run.setup.trading_days_per_year;
  const metrics = performance(whole, days);
  const now = iso(deps.now());
  const valueByCurrency = Object.fromEntries(Object.keys(whole.cash).map((currency) => [currency, valueIn(whole, currency)]));
  const finalByCurrency = Object.fromEntries(Object.entries(valueByCurrency).map(([currency, value]) => [currency, new Dec(value).toFixed(2)]));
  const result: BacktestSummary = {
    backtest_id: backtest.id,
    session_id: backtest.session_id,
    status: completed ? "completed" : "stopped",
    strategy_name: backtest.strategy_name,
    symbols: backtest.symbols,
    start_date: backtest.start_date,
    end_date: backtest.end_date,
    timeframe: backtest.config.timeframe,
    execution: backtest.config.execution,
    risk_config: backtest.enforce_risk ? backtest.config.risk_config : null,
    initial_capital: new Dec(backtest.initial_capital).toFixed(2),
    final_capital: metrics.final_equity,
    final_capital_by_currency: finalByCurrency,
    final_value_by_currency: valueByCurrency,
    final_cash_by_currency: whole.cash,
    performance_metrics: metrics,
    channels: Object.fromEntries(engine.channelIds().map((id) => [id, performance(engine.view(id), days)])),
    bars_processed: run.progress?.bars ?? 0,
    completed_at: now,
  };
  const status: BacktestStatus = completed ? "completed" : "stopped";
  const done = await update(deps, backtest.id, (b) => ({ ...b, status, result, finished_at: now, message: completed ? "Completed" : "Stopped" }));
  // A sweep's runs leave the session alone: it follows its own backtests, not a sweep's hundreds.
  if (!backtest.sweep_id)
    await syncSession(deps, backtest.session_id, completed ? "completed" : "stopped", {
      end_time: now,
      final_capital: metrics.final_equity,
      final_capital_by_currency: finalByCurrency,
      performance_metrics: metrics,
    });
  return out(done!, completed ? "done" : "stopped");
}

/** Failure: records why the workflow failed on the backtest and its session. */
export async function fail(deps: BacktestDeps, input: BacktestTaskInput & { error?: { Error?: string; Cause?: string } }): Promise<BacktestTaskOutput> {
  const reason = [input.error?.Error, input.error?.Cause].filter(Boolean).join(": ").slice(0, 2000) || "the workflow failed";
  const failed = await update(deps, input.backtest_id, (b) =>
    TERMINAL.includes(b.status) ? undefined : { ...b, status: "failed", error: reason, message: `Failed: ${reason}`, finished_at: iso(deps.now()) },
  );
  const backtest = failed ?? (await deps.backtests.get(input.backtest_id));
  if (failed && !failed.sweep_id) await syncSession(deps, failed.session_id, "failed", { end_time: iso(deps.now()) });
  return out(backtest!, "stopped");
}

/** Marks a sweep's run that had not ended stopped, without a result: its sweep stopped before it ran. */
export async function endWithSweep(deps: BacktestControlDeps, id: string, at: string): Promise<void> {
  await update(deps, id, (b) =>
    TERMINAL.includes(b.status) ? undefined : { ...b, status: "stopped", message: "Stopped with its sweep before it ran", finished_at: at },
  );
}

/** Restarts the workflows of active backtests (the embedded runtime's start-up: its executions did not survive). */
export async function recover(deps: BacktestControlDeps): Promise<string[]> {
  const restarted: string[] = [];
  for (const backtest of await deps.backtests.active()) {
    // A sweep's runs are run again by their sweep's execution (Sweeps.recover).
    if (backtest.sweep_id) continue;
    const next = await update(deps, backtest.id, (b) => (ACTIVE.includes(b.status) ? { ...b, executions: b.executions + 1 } : undefined));
    if (!next) continue;
    await deps.workflows.start("backtest", executionName(next), { backtest_id: next.id });
    restarted.push(next.id);
  }
  return restarted;
}

/**
 * The result's lists, read from the run: the fills (every execution, so an order filled in parts
 * under `max_participation` gives one per part, also when its rest was cancelled), closed trades
 * and the daily equity curve.
 */
async function listsOf(deps: BacktestControlDeps, runId: string): Promise<Pick<BacktestResult, "fills" | "trades" | "equity_curve">> {
  const [orderEvents, trades, dayEnds] = await Promise.all([
    collect((cursor) => deps.runs.events(runId, { category: "order", limit: 500, cursor })),
    collect((cursor) => deps.runs.events(runId, { category: "trade", limit: 500, cursor })),
    collect((cursor) => deps.runs.events(runId, { category: "day", limit: 500, cursor })),
  ]);
  return {
    fills: orderEvents.filter((e) => e.type === "order_filled").map(fillOf),
    trades: trades.map((e) => {
      const d = e.data as Record<string, string | number>;
      return {
        symbol: String(d.symbol),
        channel_id: e.channel_id,
        direction: d.direction as "long" | "short",
        quantity: String(d.quantity),
        entry_time: iso(Number(d.entry_time)),
        exit_time: iso(Number(d.exit_time)),
        entry_price: new Dec(d.entry_price).toString(),
        exit_price: new Dec(d.exit_price).toString(),
        pnl: new Dec(d.pnl).toFixed(2),
        fees: new Dec(d.fees).toFixed(2),
      };
    }),
    equity_curve: downsample(
      dayEnds.map((e) => ({ date: isoDateOf(Number(e.data.day)), equity: new Dec(Number(e.data.equity)).toFixed(2) })),
      MAX_CURVE_POINTS,
    ),
  };
}

async function collect<T>(page: (cursor?: string) => Promise<{ items: T[]; cursor?: string }>): Promise<T[]> {
  const all: T[] = [];
  let cursor: string | undefined;
  do {
    const next = await page(cursor);
    all.push(...next.items);
    cursor = next.cursor;
  } while (cursor);
  return all;
}

function fillOf(event: StoredEvent) {
  const d = event.data as unknown as FillData;
  return {
    order_id: d.order_id,
    timestamp: iso(event.time),
    symbol: d.symbol,
    side: d.side,
    quantity: String(d.quantity),
    price: d.price,
    commission: d.commission,
    channel_id: event.channel_id,
  };
}

/** At most `max` points, always keeping the first and the last. */
function downsample<T>(points: T[], max: number): T[] {
  if (points.length <= max) return points;
  const step = (points.length - 1) / (max - 1);
  return Array.from({ length: max }, (_, i) => points[Math.round(i * step)]);
}
