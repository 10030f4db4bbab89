import { z } from "zod";
import { conflict, forbidden, notFound, ValidationError, type ValidationIssue, parseOrThrow } from "../../errors";
import { DecimalInput, Dec, IsoDate } from "../../money/decimal";
import { marketOf, Markets, normalizeSymbol } from "../../market/market";
import * as Risk from "../../risk/risk";
import { AssetModeType } from "../../settings/settings";
import { TimeZone, iso } from "../../util/time";
import type { Actor } from "../../users";
import { PerformanceMetrics } from "../../engine/metrics";
import type { SessionCommandSink } from "../worker/commands";
import { normalizeConfig, SessionConfig, sizingIssues, strategyNameOf, strategyParamsOf } from "./config";
import type { KillSwitchGuard } from "../../kill-switch";

/** How a session trades: over stored candles, at simulated prices through the paper broker, or live through LongPort. */
export const TradingMode = z.enum(["backtest", "simulation", "live"]).meta({ id: "TradingMode" });
export type TradingMode = z.infer<typeof TradingMode>;

/**
 * Where a session is in its life (docs/trading-sessions.md has the machine): `created` →
 * `running` ⇄ `paused` → `stopped`; a backtest ends `completed` or `failed`.
 */
export const SessionStatus = z.enum(["created", "running", "paused", "stopped", "completed", "failed"]).meta({ id: "SessionStatus" });
export type SessionStatus = z.infer<typeof SessionStatus>;

/** Operations that move a session between states. */
export type SessionAction = "start" | "stop" | "pause" | "resume";

/** From which states each operation is legal, and where it leads. */
export const TRANSITIONS: Readonly<Record<SessionAction, { from: readonly SessionStatus[]; to: SessionStatus }>> = {
  start: { from: ["created", "stopped"], to: "running" },
  pause: { from: ["running"], to: "paused" },
  resume: { from: ["paused"], to: "running" },
  stop: { from: ["running", "paused"], to: "stopped" },
};

/** A currency amount given as a number or a decimal string; kept as a decimal string. */
const Capital = DecimalInput.refine((value) => new Dec(value).gt(0), "must be greater than zero").refine(
  (value) => new Dec(value).lte("1e15"),
  "must be at most 1e15",
);

/** Body of POST /trading/sessions (interface TradingSessionCreate). Unknown fields are ignored. */
export const TradingSessionCreate = z
  .object({
    session_name: z.string().trim().min(1).max(128),
    trading_mode: TradingMode,
    asset_mode: AssetModeType,
    initial_capital: Capital,
    initial_capital_by_currency: z.record(z.enum(["USD", "HKD"]), Capital).nullish(),
    start_date: IsoDate.nullish(),
    end_date: IsoDate.nullish(),
    timezone: TimeZone.nullish(),
    tradable_symbols: z.array(z.string().min(1).max(32)).max(100).nullish(),
    config: z.record(z.string(), z.unknown()),
    strategy_template_id: z.string().max(128).nullish(),
    strategy_version: z.union([z.string().max(64), z.number()]).nullish(),
  })
  .meta({ id: "TradingSessionCreate" });
export type TradingSessionCreate = z.infer<typeof TradingSessionCreate>;

/** Body of PUT /trading/sessions/{id} (interface TradingSessionUpdate). */
export const TradingSessionUpdate = z
  .object({
    session_name: z.string().trim().min(1).max(128).optional(),
    status: SessionStatus.optional(),
    risk_config: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ id: "TradingSessionUpdate" });
export type TradingSessionUpdate = z.infer<typeof TradingSessionUpdate>;

/** Query of GET /trading/sessions. */
export const SessionListQuery = z.object({
  status: SessionStatus.optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
  offset: z.coerce.number().int().min(0).max(100_000).default(0),
});
export type SessionListQuery = z.infer<typeof SessionListQuery>;

/** A session as stored. */
export interface StoredSession {
  id: string;
  user_id: string;
  session_name: string;
  trading_mode: TradingMode;
  asset_mode: AssetModeType;
  status: SessionStatus;
  initial_capital: string;
  initial_capital_by_currency: Record<string, string> | null;
  start_date: string | null;
  end_date: string | null;
  timezone: string | null;
  tradable_symbols: string[] | null;
  config: SessionConfig;
  strategy_template_id: string | null;
  strategy_version: string | number | null;
  start_time: string | null;
  end_time: string | null;
  final_capital: string | null;
  final_capital_by_currency: Record<string, string> | null;
  performance_metrics: PerformanceMetrics | null;
  /** The run whose event log the session's views read: its latest backtest, or the session's own run. */
  run_id: string | null;
  /** The strategy the run of `run_id` ran, when a backtest named one (`strategy_name` of backtest/start); absent: the configuration's. */
  run_strategy_name?: string;
  /**
   * A stopped session whose venue is its broker, while the session worker cancels the orders it
   * still has there (docs/session-worker.md, "Stopping a session at its broker"); absent otherwise.
   */
  orders_at_broker?: boolean;
  /** The account whose capital the running session trades as its sleeve (docs/accounts.md), set when it started; absent: it draws from none. */
  funded_by?: string;
  version: number;
  created_at: string;
  updated_at: string;
}

/** Whether the session is driven by the session worker (simulation and live; backtests run in their workflow). */
export const isWorkerDriven = (session: Pick<StoredSession, "trading_mode">) => session.trading_mode === "simulation" || session.trading_mode === "live";

/** Whether the session worker drives it now: a simulation or live session that is running or paused (named for that, not for live trading only). */
export const isActiveOnWorker = (session: Pick<StoredSession, "trading_mode" | "status">) =>
  isWorkerDriven(session) && (session.status === "running" || session.status === "paused");

/** Where a live run's orders fill: the session's choice; a session stored before the choice existed fills on bars. */
export const venueOf = (session: Pick<StoredSession, "config">): "broker" | "bars" => session.config.venue ?? "bars";

/** Whether the session worker lists it: live, or stopped while it cancels the orders the session still has at its broker. */
export const isListed = (session: Pick<StoredSession, "trading_mode" | "status" | "orders_at_broker">) =>
  isActiveOnWorker(session) || (isWorkerDriven(session) && session.status === "stopped" && session.orders_at_broker === true);

/** Interface TradingSessionResponse. */
export const TradingSessionResponse = z
  .object({
    id: z.string(),
    user_id: z.string(),
    session_name: z.string(),
    trading_mode: TradingMode,
    asset_mode: AssetModeType,
    strategy_name: z.string(),
    status: SessionStatus,
    start_time: z.string().nullable(),
    end_time: z.string().nullable(),
    initial_capital: z.string(),
    final_capital: z.string().nullable(),
    initial_capital_by_currency: z.record(z.string(), z.string()).nullable(),
    final_capital_by_currency: z.record(z.string(), z.string()).nullable(),
    config: SessionConfig,
    strategy_params: z.record(z.string(), z.unknown()).nullable(),
    tradable_symbols: z.array(z.string()).nullable(),
    performance_metrics: PerformanceMetrics.nullable(),
    strategy_template_id: z.string().nullable(),
    strategy_version: z.union([z.string(), z.number()]).nullable(),
    start_date: z.string().nullable(),
    end_date: z.string().nullable(),
    timezone: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "TradingSessionResponse" });
export type TradingSessionResponse = z.infer<typeof TradingSessionResponse>;

export const SessionDeleteResult = z.object({ success: z.boolean(), message: z.string(), id: z.string() }).meta({ id: "TradingSessionDeleteResult" });

/** Storage port of sessions. */
export interface SessionStore {
  /** Writes a new session; its id must not exist. */
  create(session: StoredSession): Promise<void>;
  get(id: string): Promise<StoredSession | undefined>;
  /**
   * Replaces `current` (the session as the caller read it, unchanged) with `session` if the stored
   * version is still current's; false otherwise.
   */
  replace(session: StoredSession, current: StoredSession): Promise<boolean>;
  /** A user's sessions, newest first, optionally of one status. */
  listByUser(userId: string, status?: SessionStatus): Promise<StoredSession[]>;
  /** Removes the session with its runs' events, orders and state. */
  delete(session: StoredSession): Promise<void>;
  /**
   * Every simulation or live session that is running or paused, and those stopped while their
   * orders at the broker are cancelled (the session worker's list); with `shard`, those of one of
   * the list's `liveShards` shards only (the day rollover's children).
   */
  listLive(shard?: number): Promise<StoredSession[]>;
  /**
   * A stamp the live list's every change replaces (undefined before the first): a process that read
   * the list with one stamp need not read it again while the stamp is the same (the session
   * worker's refresh, docs/session-worker.md "More than one worker").
   */
  liveStamp(): Promise<string | undefined>;
  /** How many shards the live list is kept in. */
  readonly liveShards: number;
}

export interface SessionDeps {
  sessions: SessionStore;
  now: () => number;
  newId: () => string;
  /** Where commands to the session worker go (docs/session-worker.md); absent where no worker runs (the views' unit tests). */
  commands?: SessionCommandSink;
  /** The accounts sessions draw their capital from (docs/accounts.md); absent where none is wired (the views' unit tests). */
  accounts?: SessionAccountPort;
  /** The tripped kill switches (docs/security.md "Kill switch"): orders, starts and resumes are refused while one halts the owner. */
  killSwitch?: KillSwitchGuard;
}

/** Sets a session's capital aside in the account its `asset_mode` names when it starts, and gives back what it did not use. */
export interface SessionAccountPort {
  /** The id of the account the capital was set aside in (null: the session draws from none); refuses (409, naming the free cash) when the account cannot fund it. */
  reserve(session: StoredSession): Promise<string | null>;
  /** Dissolves what `reserve` set aside: unused cash free again, holdings left in the account. */
  release(session: StoredSession): Promise<void>;
}

export const sessionNotFound = (id: string) => notFound("SESSION_NOT_FOUND", `Trading session ${id} does not exist`);
const sessionChanged = (id: string) => conflict("SESSION_CHANGED", `Trading session ${id} was changed by another request; read it again and retry`);

/** 409 `INVALID_STATE_TRANSITION` naming the state the session is in. */
export const invalidTransition = (session: Pick<StoredSession, "id" | "status">, action: string, hint = "") =>
  conflict("INVALID_STATE_TRANSITION", `Cannot ${action} session ${session.id}: it is ${session.status}${hint ? `; ${hint}` : ""}`, {
    current_status: session.status,
    action,
  });

/** Interface TradingSessionResponse of a stored session. */
export function toResponse(session: StoredSession): TradingSessionResponse {
  return {
    id: session.id,
    user_id: session.user_id,
    session_name: session.session_name,
    trading_mode: session.trading_mode,
    asset_mode: session.asset_mode,
    strategy_name: session.run_strategy_name ?? strategyNameOf(session.config),
    status: session.status,
    start_time: session.start_time,
    end_time: session.end_time,
    initial_capital: session.initial_capital,
    final_capital: session.final_capital,
    initial_capital_by_currency: session.initial_capital_by_currency,
    final_capital_by_currency: session.final_capital_by_currency,
    config: session.config,
    strategy_params: strategyParamsOf(session.config),
    tradable_symbols: session.tradable_symbols,
    performance_metrics: session.performance_metrics,
    strategy_template_id: session.strategy_template_id,
    strategy_version: session.strategy_version,
    start_date: session.start_date,
    end_date: session.end_date,
    timezone: session.timezone,
    created_at: session.created_at,
    updated_at: session.updated_at,
  };
}

/** The currency a session's figures are in: that of its first symbol's market, USD without symbols. */
export function baseCurrencyOf(session: Pick<StoredSession, "config" | "tradable_symbols" | "initial_capital_by_currency">, symbols: string[]): string {
  const first = symbols[0] ?? session.tradable_symbols?.[0];
  if (first) return Markets[marketOf(first)].currency;
  const given = Object.keys(session.initial_capital_by_currency ?? {});
  return given[0] ?? "USD";
}

/** Starting cash by currency: `initial_capital_by_currency` when given, else all of `initial_capital` in the base currency. */
export function capitalOf(session: Pick<StoredSession, "initial_capital" | "initial_capital_by_currency">, baseCurrency: string): Record<string, string> {
  const byCurrency = session.initial_capital_by_currency;
  if (byCurrency && Object.keys(byCurrency).length > 0) return { ...byCurrency };
  return { [baseCurrency]: session.initial_capital };
}

/** The session if it exists and belongs to `actor` (administrators see every session). */
export async function owned(deps: SessionDeps, actor: Actor, id: string): Promise<StoredSession> {
  const session = await deps.sessions.get(id);
  if (!session) throw sessionNotFound(id);
  if (session.user_id !== actor.id && actor.user_type !== "admin") throw forbidden(`Trading session ${id} belongs to another user`);
  if (actor.session_ids && !actor.session_ids.includes(id)) throw forbidden(`This API key is limited to other sessions than ${id}`);
  return session;
}

/** Creates a session in `created`. */
export async function create(deps: SessionDeps, actor: Actor, input: unknown): Promise<StoredSession> {
  const body = parseOrThrow(TradingSessionCreate, input, ["body"]);
  const problems: ValidationIssue[] = [];
  // Every problem of the body at once: each check's are collected before any is answered.
  const collected = <T>(check: () => T): T | undefined => {
    try {
      return check();
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      problems.push(...error.issues);
      return undefined;
    }
  };
  const tradable = body.tradable_symbols ? (collected(() => normalizeSymbols(body.tradable_symbols!)) ?? null) : null;
  const config = collected(() => normalizeConfig(body.config, tradable ?? []));
  // A sizing the session's risk limits deny every entry of (docs/trading-sessions.md "A sizing the limits never allow").
  if (config)
    problems.push(
      ...sizingIssues(config, ["body", "config", "execution", "sizing", "fraction"], (field, channel) =>
        channel !== undefined ? `config.channels.${channel}.risk_limits.${field}` : `config.risk_config.${field}`,
      ),
    );
  if (body.start_date && body.end_date && body.start_date > body.end_date) {
    problems.push({ loc: ["body", "end_date"], msg: `end_date ${body.end_date} is before start_date ${body.start_date}`, type: "date_order" });
  }
  if (body.trading_mode === "simulation" && body.asset_mode === "real") {
    // docs/accounts.md: a simulation trades the simulated account; the real account is traded by a live session.
    problems.push({
      loc: ["body", "asset_mode"],
      msg: "a simulation session trades the simulated account: use asset_mode 'simulated' (copy the real account in with POST /api/v1/assets/sync-to-simulated), or trading_mode 'live' to trade the real account",
      type: "value_error",
    });
  }
  if (problems.length > 0 || !config) throw new ValidationError(problems);
  const now = iso(deps.now());
  const session: StoredSession = {
    id: deps.newId(),
    user_id: actor.id,
    session_name: body.session_name,
    trading_mode: body.trading_mode,
    asset_mode: body.asset_mode,
    status: "created",
    initial_capital: body.initial_capital,
    initial_capital_by_currency: body.initial_capital_by_currency ? { ...body.initial_capital_by_currency } : null,
    start_date: body.start_date ?? null,
    end_date: body.end_date ?? null,
    timezone: body.timezone ?? null,
    tradable_symbols: tradable,
    config,
    strategy_template_id: body.strategy_template_id ?? null,
    strategy_version: body.strategy_version ?? null,
    start_time: null,
    end_time: null,
    final_capital: null,
    final_capital_by_currency: null,
    performance_metrics: null,
    run_id: null,
    version: 1,
    created_at: now,
    updated_at: now,
  };
  await deps.sessions.create(session);
  return session;
}

function normalizeSymbols(symbols: string[]): string[] {
  const out: string[] = [];
  const issues: ValidationIssue[] = [];
  symbols.forEach((symbol, index) => {
    try {
      const normal = normalizeSymbol(symbol);
      if (!out.includes(normal)) out.push(normal);
    } catch (error) {
      issues.push({ loc: ["body", "tradable_symbols", index], msg: (error as Error).message, type: "invalid_symbol" });
    }
  });
  if (issues.length > 0) throw new ValidationError(issues);
  return out;
}

/** A user's sessions, newest first, `offset` skipped, at most `limit`. */
export async function list(deps: SessionDeps, actor: Actor, query: SessionListQuery): Promise<StoredSession[]> {
  const listed = await deps.sessions.listByUser(actor.id, query.status);
  const all = actor.session_ids ? listed.filter((session) => actor.session_ids!.includes(session.id)) : listed;
  return all.slice(query.offset, query.offset + query.limit);
}

/** Writes a change made by `change` to the freshest copy, retrying when another writer got there first. */
export async function mutate(deps: SessionDeps, actor: Actor, id: string, change: (session: StoredSession) => StoredSession): Promise<StoredSession> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const current = await owned(deps, actor, id);
    const next = { ...change(current), version: current.version + 1, updated_at: iso(deps.now()) };
    if (await deps.sessions.replace(next, current)) return next;
  }
  throw sessionChanged(id);
}

/** A full risk configuration from a partial one over the defaults, or a 422 listing every problem. */
export function parseRiskConfig(input: Record<string, unknown>, loc: (string | number)[]): Risk.Config {
  return Risk.parse({ ...Risk.defaults(), ...input }, loc);
}
