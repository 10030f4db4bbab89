import { z } from "zod";
import { ValidationError, type ValidationIssue, parseOrThrow } from "../../errors";
import { PERIOD_MS } from "../../engine/engine";
import { DecimalInput, Dec, IsoDate } from "../../money/decimal";
import { marketOf, Markets, normalizeSymbol } from "../../market/market";
import { Strategies } from "../../strategies/index";
import { Timeframe } from "../../strategies/definition";
import { TimeZone, iso } from "../../util/time";
import type { Actor } from "../../users";
import { advance, complete, countSteps, finestTimeframe, freshRun, PlaySpeed, playingAfter, rangeIssue, rangeOf, replayRunId, type DriverDeps } from "./replay";
import type { DriverState } from "../run/driver-state";
import { normalizeConfig, feedsOf } from "../session/config";
import * as Sessions from "../session/sessions";
import * as SessionLifecycle from "../session/lifecycle";
import { eventPage, EventPage, PageQuery } from "../session/reads";
import { sessionEngine } from "../session/engine";
import { clockOf, eventEntry, positionFigures } from "../session/figures";
import { pagesOf } from "../../util/pages";

/**
 * Multi-timeframe sessions (docs/mtf-and-replay.md): a director strategy on a higher timeframe
 * sets the bias (`BarContext.bias`) its executors obey on lower ones. An MTF session is a
 * trading session whose one channel `mtf` holds the director (`role: director`, it places no
 * orders) and the executors (`role: executor`): the same engine, views and worker as any other
 * session. `historical` sessions (stored as `backtest` sessions) advance only by `step`, one
 * executor bar at a time over stored candles; `simulation` and `live` ones are fed by the
 * session worker as bars close.
 */

export const MtfMode = z.enum(["historical", "simulation", "live"]).meta({ id: "MtfMode" });
export type MtfMode = z.infer<typeof MtfMode>;

const MODE_OF: Record<Sessions.TradingMode, MtfMode> = { backtest: "historical", simulation: "simulation", live: "live" };
const TRADING_MODE: Record<MtfMode, Sessions.TradingMode> = { historical: "backtest", simulation: "simulation", live: "live" };

/** The one channel of an MTF session. */
export const MTF_CHANNEL_ID = "mtf";

const StrategyRef = z.object({
  strategy_name: z.string().min(1).max(64),
  timeframe: Timeframe,
  parameters: z.record(z.string(), z.unknown()).default({}),
});

/** Body of POST /trading/mtf/sessions. */
export const MtfSessionCreate = z
  .object({
    session_name: z.string().trim().min(1).max(128),
    mode: MtfMode.default("historical"),
    asset_mode: z.enum(["real", "simulated"]).default("simulated"),
    initial_capital: DecimalInput,
    symbols: z.array(z.string().min(1).max(32)).min(1).max(20),
    director: StrategyRef.describe("Role director or universal in GET /strategies/mtf/metadata; places no orders"),
    executors: z
      .array(StrategyRef.extend({ weight: z.number().gt(0).max(1).default(1) }))
      .min(1)
      .max(10)
      .describe("Role executor or universal; each on a timeframe below the director's"),
    start_date: IsoDate.nullish().describe("historical: first day of stored candles to step through (required)"),
    end_date: IsoDate.nullish().describe("historical: last day (required)"),
    timezone: TimeZone.nullish(),
    speed: PlaySpeed.default(1).describe(
      "historical: executor bars per second of wall time while running (the worker plays it); paused, it moves only by step",
    ),
    risk_config: z.record(z.string(), z.unknown()).optional(),
    execution: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ id: "MtfSessionCreate" });

const StrategyView = z.object({
  strategy_name: z.string(),
  timeframe: z.string(),
  parameters: z.record(z.string(), z.unknown()),
  weight: z.number().optional(),
});

export const MtfSessionResponse = z
  .object({
    id: z.string(),
    user_id: z.string(),
    session_name: z.string(),
    mode: MtfMode,
    status: Sessions.SessionStatus,
    symbols: z.array(z.string()),
    director: StrategyView,
    executors: z.array(StrategyView),
    initial_capital: z.string(),
    start_date: z.string().nullable(),
    end_date: z.string().nullable(),
    timezone: z.string().nullable(),
    run_id: z.string().nullable(),
    start_time: z.string().nullable(),
    end_time: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "MtfSessionResponse" });
export type MtfSessionResponse = z.infer<typeof MtfSessionResponse>;

export const MtfStepRequest = z.object({ bars: z.int().min(1).max(1000).default(1).describe("Executor bars to advance") }).meta({ id: "MtfStepRequest" });

const BarView = z.object({
  symbol: z.string(),
  timestamp: z.string(),
  open: z.number(),
  high: z.number(),
  low: z.number(),
  close: z.number(),
  volume: z.number(),
});

export const MtfStepResult = z
  .object({
    session_id: z.string(),
    steps: z.int().describe("Executor bars fed since the start of the range"),
    steps_total: z.int().describe("Executor bars stored in the range"),
    cursor: z.string().nullable().describe("Close time of the last bar fed"),
    done: z.boolean().describe("The range is used up (the session is then completed)"),
    events: EventPage.shape.items.describe("What this step produced, oldest first"),
  })
  .meta({ id: "MtfStepResult" });

export const MtfStatus = z
  .object({
    session_id: z.string(),
    mode: MtfMode,
    status: Sessions.SessionStatus,
    clock: z.string().nullable(),
    steps: z.int().nullable().describe("historical: executor bars fed so far"),
    steps_total: z.int().nullable().describe("historical: executor bars stored in the range"),
    speed: z.number().nullable().describe("historical: executor bars per second of wall time while running"),
    playing: z.boolean().describe("historical: the worker is advancing it"),
    done: z.boolean(),
    bias: z.array(z.object({ symbol: z.string(), bias: z.enum(["long", "short", "flat"]), strategy: z.string(), timeframe: z.string() })),
    timeframes: z.array(
      z.object({ timeframe: z.string(), role: z.enum(["director", "executor"]), strategies: z.array(z.string()), last_bars: z.array(BarView) }),
    ),
    equity: z.string(),
    cash: z.record(z.string(), z.string()),
    positions: z.array(
      z.object({
        symbol: z.string(),
        quantity: z.string(),
        average_price: z.string(),
        last_price: z.string(),
        market_value: z.string(),
        unrealized_pnl: z.string(),
        sleeve: z.string(),
      }),
    ),
  })
  .meta({ id: "MtfSessionStatus" });

export const OutputQuery = PageQuery.extend({
  kind: z.enum(["all", "mtf", "order"]).default("all").describe("all: every event; mtf: strategy outputs, bias changes and signals; order: order events"),
}).meta({ id: "MtfOutputQuery" });

/** Whether a session is multi-timeframe (it has a director). */
export const isMtf = (session: Pick<Sessions.StoredSession, "config">) => session.config.channels.some((c) => c.strategies.some((s) => s.role === "director"));

/** Every problem of an MTF request against the `mtf/metadata` catalog, located under `body`. */
function catalogIssues(body: z.infer<typeof MtfSessionCreate>): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const catalog = new Map(Strategies.mtfMetadata().map((m) => [m.strategy_id, m]));
  const check = (ref: z.infer<typeof StrategyRef>, loc: (string | number)[], roles: string[], role: string) => {
    const meta = catalog.get(ref.strategy_name);
    if (!meta) {
      issues.push({
        loc: [...loc, "strategy_name"],
        msg: `strategy '${ref.strategy_name}' does not exist; available: ${[...catalog.keys()].join(", ")}`,
        type: "strategy_not_found",
      });
      return;
    }
    if (!roles.includes(meta.role))
      issues.push({
        loc: [...loc, "strategy_name"],
        msg: `${ref.strategy_name} has role ${meta.role}; a ${role} must have role ${roles.join(" or ")}`,
        type: "invalid_role",
      });
    if (!meta.supported_timeframes.includes(ref.timeframe)) {
      issues.push({
        loc: [...loc, "timeframe"],
        msg: `${ref.strategy_name} supports ${meta.supported_timeframes.join(", ")}, not ${ref.timeframe}`,
        type: "unsupported_timeframe",
      });
    }
    const result = Strategies.validate(ref.strategy_name, ref.parameters);
    for (const error of result.errors)
      issues.push({ loc: [...loc, "parameters", ...(error.field ? error.field.split(".") : [])], msg: error.message, type: error.code.toLowerCase() });
  };
  check(body.director, ["body", "director"], ["director", "universal"], "director");
  body.executors.forEach((executor, index) => {
    check(executor, ["body", "executors", index], ["executor", "universal"], "executor");
    if (PERIOD_MS[executor.timeframe] >= PERIOD_MS[body.director.timeframe]) {
      issues.push({
        loc: ["body", "executors", index, "timeframe"],
        msg: `executor timeframe ${executor.timeframe} must be lower than the director's ${body.director.timeframe}`,
        type: "timeframe_order",
      });
    }
  });
  if (body.mode === "historical") {
    if (!body.start_date) issues.push({ loc: ["body", "start_date"], msg: "a historical MTF session needs start_date", type: "missing" });
    if (!body.end_date) issues.push({ loc: ["body", "end_date"], msg: "a historical MTF session needs end_date", type: "missing" });
  }
  const range = body.start_date && body.end_date ? rangeIssue(body.start_date, body.end_date) : null;
  if (range) issues.push(range);
  body.symbols.forEach((symbol, index) => {
    try {
      const normal = normalizeSymbol(symbol);
      if (!Markets[marketOf(normal)].supported) throw new Error(`market of ${normal} is not supported`);
    } catch (error) {
      issues.push({ loc: ["body", "symbols", index], msg: (error as Error).message, type: "invalid_symbol" });
    }
  });
  if (!new Dec(body.initial_capital).gt(0)) issues.push({ loc: ["body", "initial_capital"], msg: "must be greater than zero", type: "value_error" });
  return issues;
}

/** Creates an MTF session (status created) or answers 422 listing every problem. */
export async function create(deps: DriverDeps, actor: Actor, input: unknown): Promise<Sessions.StoredSession> {
  const body = parseOrThrow(MtfSessionCreate, input, ["body"]);
  const issues = catalogIssues(body);
  const config = {
    symbols: body.symbols,
    ...(body.risk_config ? { risk_config: body.risk_config } : {}),
    ...(body.execution ? { execution: body.execution } : {}),
    channels: [
      {
        channel_id: MTF_CHANNEL_ID,
        capital_allocation: 1,
        strategies: [
          { strategy_name: body.director.strategy_name, parameters: body.director.parameters, timeframe: body.director.timeframe, role: "director" },
          ...body.executors.map((e) => ({
            strategy_name: e.strategy_name,
            parameters: e.parameters,
            timeframe: e.timeframe,
            weight: e.weight,
            role: "executor",
          })),
        ],
      },
    ],
  };
  try {
    normalizeConfig(config);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    // Strategy problems are already reported against director/executors; keep the rest (risk, execution).
    for (const i of error.issues) if (i.loc[1] !== "channels") issues.push({ ...i, loc: ["body", ...i.loc.slice(1)] });
  }
  if (issues.length > 0) throw new ValidationError(issues);
  const session = await Sessions.create(deps, actor, {
    session_name: body.session_name,
    trading_mode: TRADING_MODE[body.mode],
    asset_mode: body.asset_mode,
    initial_capital: body.initial_capital,
    start_date: body.start_date ?? null,
    end_date: body.end_date ?? null,
    timezone: body.timezone ?? null,
    tradable_symbols: body.symbols,
    config,
  });
  // A historical session's run holds its range and speed from the start (paused until it runs).
  if (session.trading_mode === "backtest") {
    const { run, events } = await freshRun(deps, session, session.id, await driverOf(deps, session, body.speed));
    await deps.runs.save(run, 0, events);
  }
  return session;
}

/** The MTF view of a stored session. */
export function toResponse(session: Sessions.StoredSession): MtfSessionResponse {
  const strategies = session.config.channels.flatMap((c) => c.strategies);
  const director = strategies.find((s) => s.role === "director")!;
  const view = (s: (typeof strategies)[number]) => ({
    strategy_name: s.strategy_name,
    timeframe: s.timeframe ?? session.config.timeframe,
    parameters: s.parameters,
  });
  return {
    id: session.id,
    user_id: session.user_id,
    session_name: session.session_name,
    mode: MODE_OF[session.trading_mode],
    status: session.status,
    symbols: session.config.symbols,
    director: view(director),
    executors: strategies.filter((s) => s.role === "executor").map((s) => ({ ...view(s), weight: s.weight })),
    initial_capital: session.initial_capital,
    start_date: session.start_date,
    end_date: session.end_date,
    timezone: session.timezone,
    run_id: session.run_id,
    start_time: session.start_time,
    end_time: session.end_time,
    created_at: session.created_at,
    updated_at: session.updated_at,
  };
}

/** The caller's MTF sessions, newest first. */
export async function list(deps: DriverDeps, actor: Actor, input: unknown): Promise<Sessions.StoredSession[]> {
  const query = parseOrThrow(Sessions.SessionListQuery, input, ["query"]);
  const all = (await deps.sessions.listByUser(actor.id, query.status)).filter(isMtf);
  return all.slice(query.offset, query.offset + query.limit);
}

/** An MTF session the caller owns (404 `SESSION_NOT_FOUND` also for a session that is not MTF). */
export async function owned(deps: DriverDeps, actor: Actor, id: string): Promise<Sessions.StoredSession> {
  const session = await Sessions.owned(deps, actor, id);
  if (!isMtf(session)) throw Sessions.sessionNotFound(id);
  return session;
}

/** The driver state of a historical session's run at the start of its range. */
async function driverOf(deps: DriverDeps, session: Sessions.StoredSession, speed: number): Promise<DriverState> {
  const feeds = feedsOf(session.config);
  const timezone = session.timezone ?? Markets[marketOf(session.config.symbols[0]!)].timeZone;
  const executors = session.config.channels.flatMap((c) => c.strategies).filter((s) => s.role === "executor");
  const base = {
    feeds,
    step_timeframe: finestTimeframe(executors.map((s) => s.timeframe ?? session.config.timeframe)),
    ...rangeOf(session.start_date!, session.end_date!, timezone),
  };
  return {
    kind: "mtf",
    start_date: session.start_date!,
    end_date: session.end_date!,
    timezone,
    ...base,
    state: "paused",
    speed,
    steps: 0,
    steps_total: await countSteps(deps.candles, base),
    played_at: null,
    carry: 0,
  };
}

/**
 * start, stop, pause, resume. Simulation and live sessions take the trading sessions' state
 * machine (the worker then feeds them as bars close); a historical one takes the same table
 * without the backtest restriction: `start`/`resume` make its run play in the worker at its
 * speed (from where it was), `pause`/`stop` stop the playing; `step` moves it either way.
 */
export async function transition(deps: DriverDeps, actor: Actor, id: string, action: Sessions.SessionAction): Promise<Sessions.StoredSession> {
  const session = await owned(deps, actor, id);
  if (session.trading_mode !== "backtest") return SessionLifecycle.transition(deps, actor, id, action);
  const rule = Sessions.TRANSITIONS[action];
  const allowed = (current: Sessions.StoredSession) => {
    if (!rule.from.includes(current.status)) throw Sessions.invalidTransition(current, action, `${action} is allowed from ${rule.from.join(" or ")}`);
  };
  allowed(session);
  const playing = action === "start" || action === "resume";
  if (!playing) await setPlaying(deps, session, false);
  const next = await Sessions.mutate(deps, actor, id, (current) => {
    allowed(current);
    const now = iso(deps.now());
    return {
      ...current,
      status: rule.to,
      ...(action === "start" ? { run_id: current.id, start_time: now, end_time: null } : {}),
      ...(action === "stop" ? { end_time: now } : {}),
    };
  });
  if (playing) await setPlaying(deps, next, true);
  return next;
}

/** Starts or stops the worker playing a historical session's run (created at the start of its range if missing). */
async function setPlaying(deps: DriverDeps, session: Sessions.StoredSession, playing: boolean): Promise<void> {
  let run = await deps.runs.get(session.id);
  if (!run?.progress?.driver) {
    const fresh = await freshRun(deps, session, session.id, await driverOf(deps, session, 1));
    run = fresh.run;
    await deps.runs.save(run, 0, fresh.events);
  }
  const driver = run.progress!.driver!;
  if (driver.state === "finished") return;
  // Candles imported after the session was created count too, until the first bar is fed.
  const total = driver.steps === 0 ? await countSteps(deps.candles, driver) : driver.steps_total;
  const write = () =>
    advance(deps, session.id, { steps: 0 }, (d) =>
      d.state === "finished" ? d : { ...d, steps_total: total, state: playing ? "playing" : "paused", played_at: playing ? deps.wallNow() : null, carry: 0 },
    );
  if (playing) await playingAfter(deps, session.id, write);
  else {
    await write();
    await deps.replays.unmark(session.id);
  }
}

/**
 * Advances a historical MTF session by `bars` executor bars over stored candles (with every
 * director bar closing at the same instants), running or paused. The events it wrote are answered;
 * when the range is used up the session is `completed`.
 */
export async function step(deps: DriverDeps, actor: Actor, id: string, input: unknown) {
  const body = parseOrThrow(MtfStepRequest, input ?? {}, ["body"]);
  const session = await owned(deps, actor, id);
  if (session.trading_mode !== "backtest") {
    throw Sessions.invalidTransition(
      session,
      "step",
      `step drives historical MTF sessions; the session worker feeds a ${session.trading_mode} session as bars close`,
    );
  }
  if (session.status !== "running" && session.status !== "paused") throw Sessions.invalidTransition(session, "step", "step is allowed when running or paused");
  const { run, events } = await advance(deps, session.id, { steps: body.bars });
  const progress = run.progress!;
  if (progress.done) {
    await deps.replays.unmark(session.id);
    await complete(deps, session.id);
  }
  return {
    session_id: id,
    steps: progress.driver!.steps,
    steps_total: progress.driver!.steps_total,
    cursor: progress.cursor_ms > 0 ? iso(progress.cursor_ms) : null,
    done: progress.done,
    events: events.map(eventEntry),
  };
}

/** Deletes an MTF session that is not running or paused, with its runs (its replay's too). */
export async function remove(deps: DriverDeps, actor: Actor, id: string): Promise<Sessions.StoredSession> {
  await owned(deps, actor, id);
  const session = await SessionLifecycle.remove(deps, actor, id);
  await deps.runs.delete(replayRunId(id));
  for (const runId of [id, replayRunId(id)]) await deps.replays.unmark(runId);
  return session;
}

/** Each timeframe's last bar per symbol, the director's bias per symbol, positions and equity. */
export async function status(deps: DriverDeps, actor: Actor, id: string) {
  const session = await owned(deps, actor, id);
  // A historical session's run exists from its creation; a simulation or live one's from its start.
  const runId = session.run_id ?? (session.trading_mode === "backtest" ? session.id : null);
  const { engine, run } = await sessionEngine(deps, session, runId);
  const lastBars = new Map<string, z.infer<typeof BarView>>();
  if (run) {
    // The newest strategy outputs name the last bar of each (timeframe, symbol).
    const wanted = feedsOf(session.config).length;
    let pages = 0;
    for await (const items of pagesOf((cursor) => deps.runs.events(run.run_id, { category: "mtf", limit: 200, cursor, ascending: false }))) {
      for (const event of items) {
        if (event.type !== "strategy_output") continue;
        const d = event.data as {
          timeframe: string;
          symbol: string;
          bar: { timestamp: number; open: number; high: number; low: number; close: number; volume: number };
        };
        const key = `${d.timeframe}|${d.symbol}`;
        if (!lastBars.has(key)) lastBars.set(key, { symbol: d.symbol, ...d.bar, timestamp: iso(d.bar.timestamp) });
      }
      if (++pages === 5 || lastBars.size >= wanted) break;
    }
  }
  const strategies = session.config.channels.flatMap((c) => c.strategies);
  const timeframes = new Map<string, { timeframe: string; role: "director" | "executor"; strategies: string[] }>();
  for (const s of strategies) {
    const timeframe = s.timeframe ?? session.config.timeframe;
    const entry = timeframes.get(timeframe) ?? { timeframe, role: s.role === "director" ? ("director" as const) : ("executor" as const), strategies: [] };
    entry.strategies.push(s.strategy_name);
    timeframes.set(timeframe, entry);
  }
  const view = engine.view(null);
  return {
    session_id: id,
    mode: MODE_OF[session.trading_mode],
    status: session.status,
    clock: clockOf(run),
    steps: run?.progress?.driver ? run.progress.driver.steps : null,
    steps_total: run?.progress?.driver ? run.progress.driver.steps_total : null,
    speed: run?.progress?.driver ? run.progress.driver.speed : null,
    playing: run?.progress?.driver?.state === "playing",
    done: run?.progress?.done ?? false,
    bias: engine.biases().map((b) => ({ symbol: b.symbol, bias: b.bias as "long" | "short" | "flat", strategy: b.strategy, timeframe: b.timeframe })),
    timeframes: [...timeframes.values()]
      .sort((a, b) => PERIOD_MS[b.timeframe as Timeframe] - PERIOD_MS[a.timeframe as Timeframe])
      .map((t) => ({ ...t, last_bars: session.config.symbols.flatMap((symbol) => lastBars.get(`${t.timeframe}|${symbol}`) ?? []) })),
    equity: new Dec(view.equity).toFixed(2),
    cash: view.cash,
    positions: view.positions.map((p) => ({ ...positionFigures(p), sleeve: p.sleeve })),
  };
}

/** What each timeframe produced, oldest first, in the project's pager: every event, or strategy outputs/bias changes/signals, or orders. */
export async function outputs(deps: DriverDeps, actor: Actor, id: string, input: unknown) {
  const query = parseOrThrow(OutputQuery, input, ["query"]);
  const session = await owned(deps, actor, id);
  const { kind, ...page } = query;
  return eventPage(deps, session, { ...page, ...(kind === "all" ? {} : { category: kind }) });
}
