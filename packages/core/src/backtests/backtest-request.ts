import type { z } from "zod";
import { Calendar } from "../market/calendar";
import { conflict, ValidationError, type ValidationIssue } from "../errors";
import { marketOf, Markets, normalizeSymbol } from "../market/market";
import { dayNumberOf, isoDateOf, utcToZoned, zonedTimeToUtc } from "../market/zoned-time";
import { Strategies } from "../strategies/index";
import { iso } from "../util/time";
import type { Actor } from "../users";
import { normalizeConfig, sizingIssues, type SessionConfig } from "../trading/session/config";
import { owned, type StoredSession } from "../trading/session/sessions";
import { type BacktestControlDeps, BacktestRequest, type StoredBacktest } from "./backtest-model";

/**
 * A backtest request checked and planned: every problem of a request at its field (its symbols
 * and whether the provider knows them, its dates against the exchange calendars, the strategy and
 * its configuration over the session's, the sizing the risk limits allow), the 422 of a body that
 * failed its schema, and `plan`, the stored backtest a valid request becomes (for
 * `POST /backtest/start` and each run of a sweep). Starting it is backtest-control.ts's.
 */

/**
 * The strategy configuration of a request as a session configuration (one channel, `main`), and
 * whether the run applies its risk rules (`strategy_config.risk_config: null` turns them off); or
 * the problems of the configuration, each at the field the request sent.
 */
function configOf(
  request: Pick<BacktestRequest, "strategy_name" | "strategy_config">,
  session: StoredSession,
  symbols: string[],
): { config?: SessionConfig; enforceRisk: boolean; issues: ValidationIssue[] } {
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
    config = normalizeConfig({ ...base, symbols, ...(timeframe !== undefined ? { timeframe } : {}), execution: execution ?? {} }, symbols, { backtest: true });
  } catch (error) {
    relocate(error);
  }
  if (request.strategy_name !== "multi_channel" && !Strategies.exists(request.strategy_name) && !issues.some((i) => i.loc[1] === "strategy_name")) {
    issues.push(strategyNotFound(request.strategy_name));
  }
  if (config && config.channels.length === 0)
    issues.push({ loc: ["body", "strategy_name"], msg: "the session has no channels to backtest", type: "no_channels" });
  return { config: issues.length > 0 ? undefined : config, enforceRisk: risk_config !== null, issues };
}

const strategyNotFound = (name: string): ValidationIssue => ({
  loc: ["body", "strategy_name"],
  msg: `strategy '${name}' does not exist`,
  type: "strategy_not_found",
});

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

/** The request's symbols normalised, each once, leaving out those that are malformed or of a market without a calendar (the checks report those). */
export function normalSymbols(symbols: string[]): string[] {
  const out: string[] = [];
  for (const symbol of symbols) {
    try {
      const normal = normalizeSymbol(symbol);
      if (Markets[marketOf(normal)].supported && !out.includes(normal)) out.push(normal);
    } catch {
      // Reported by `check`.
    }
  }
  return out;
}

/** How many days of a range with no trading day are named in its problem (a weekend, a holiday). */
const NAMED_DAYS = 7;

/**
 * The problems of a window with the exchange calendars of `symbols`' markets: a date outside the
 * calendars' tables, no regular session at all inside it (a weekend), or none begun by `nowMs`
 * (no candle of the range exists yet). Backtests and imports read the same calendars.
 */
function rangeIssues(symbols: string[], request: Pick<BacktestRequest, "start_date" | "end_date">, window: [number, number], nowMs: number, zone: string) {
  const issues: ValidationIssue[] = [];
  const from = window[0] * 1000;
  const to = (window[1] + 1) * 1000;
  let sessions = 0;
  let begun = false;
  const closed: string[] = [];
  for (const market of [...new Set(symbols.map(marketOf))]) {
    const calendar = Calendar.for(market);
    const first = utcToZoned(calendar.timeZone, from).dayNumber;
    const last = utcToZoned(calendar.timeZone, to - 1).dayNumber;
    const span = `the ${market} exchange calendar covers ${isoDateOf(calendar.firstDay)} to ${isoDateOf(calendar.lastDay)}`;
    const outside = (day: number) => (day < calendar.firstDay ? "before the first" : day > calendar.lastDay ? "after the last" : null);
    for (const [field, day] of [
      ["start_date", first],
      ["end_date", last],
    ] as const) {
      const where = outside(day);
      if (where) issues.push({ loc: ["body", field], msg: `${field} ${request[field]} is ${where} day the calendar knows: ${span}`, type: "outside_calendar" });
    }
    if (outside(first) || outside(last)) continue;
    // The market's first regular session inside the window answers both questions (sessions are in time order).
    days: for (let day = first; day <= last; day++) {
      for (const session of calendar.sessionsOfDay(day)) {
        if (session.session !== "Intraday" || session.end <= from || session.start >= to) continue;
        sessions++;
        if (session.start < nowMs) begun = true;
        break days;
      }
      if (last - first < NAMED_DAYS) closed.push(`${isoDateOf(day)} ${calendar.dayName(isoDateOf(day)) ?? "no regular session"}`);
    }
  }
  if (issues.length > 0) return issues;
  const range = `from ${request.start_date} to ${request.end_date}${zone ? ` (${zone})` : ""}`;
  if (sessions === 0) {
    issues.push({
      loc: ["body", "start_date"],
      msg: `no trading day ${range}${closed.length > 0 ? `: ${closed.join(", ")}` : ""}; the range must hold at least one`,
      type: "no_trading_day",
    });
  } else if (!begun) {
    issues.push({
      loc: ["body", "start_date"],
      msg: `the range ${range} has not begun: no trading session of it has opened by ${iso(nowMs)}, so it has no candles yet`,
      type: "no_trading_day",
    });
  }
  return issues;
}

/** What `check` found of a request: its problems, and what planning it uses when there are none. */
interface Checked {
  issues: ValidationIssue[];
  symbols: string[];
  timezone?: string;
  window?: [number, number];
  config?: SessionConfig;
  enforceRisk?: boolean;
  benchmark?: string;
}

/**
 * Every problem of a backtest request, each at its field: the symbols (their form, their market,
 * whether the provider knows them: `unknown`), the dates (their order, the exchange calendar, a
 * trading day begun inside them), the strategy and its configuration over the session's
 * (unchecked without `session`). Fields absent from `request` (malformed in the body, already
 * reported) are not looked at, so one answer lists every problem of the request.
 */
function check(
  deps: Pick<BacktestControlDeps, "now">,
  session: StoredSession | undefined,
  request: Partial<BacktestRequest>,
  unknown: ReadonlySet<string>,
): Checked {
  const symbols: string[] = [];
  const issues: ValidationIssue[] = [];
  // A symbol normalised, or its problem at `loc`: malformed, of a market without a calendar here, unknown to the provider.
  const checked = (symbol: string, loc: (string | number)[]): string | undefined => {
    try {
      const normal = normalizeSymbol(symbol);
      if (!Markets[marketOf(normal)].supported) throw new Error(`${normal}: the ${marketOf(normal)} market has no calendar here`);
      if (unknown.has(normal)) throw new Error(`${normal} is not a symbol the market-data provider knows`);
      return normal;
    } catch (error) {
      issues.push({ loc, msg: (error as Error).message, type: "invalid_symbol" });
      return undefined;
    }
  };
  request.symbols?.forEach((symbol, index) => {
    const normal = checked(symbol, ["body", "symbols", index]);
    if (normal !== undefined && !symbols.includes(normal)) symbols.push(normal);
  });
  const benchmark = request.benchmark === undefined ? undefined : checked(request.benchmark, ["body", "benchmark"]);
  const { start_date, end_date } = request;
  let timezone: string | undefined;
  let window: [number, number] | undefined;
  if (start_date !== undefined && end_date !== undefined) {
    if (start_date > end_date) issues.push({ loc: ["body", "end_date"], msg: "end_date is before start_date", type: "value_error" });
    else if (symbols.length > 0) {
      timezone = request.timezone ?? Markets[marketOf(symbols[0]!)].timeZone;
      window = [
        Math.floor(zonedTimeToUtc(timezone, dayNumberOf(start_date), 0) / 1000),
        Math.floor(zonedTimeToUtc(timezone, dayNumberOf(end_date) + 1, 0) / 1000) - 1,
      ];
      issues.push(...rangeIssues(symbols, { start_date, end_date }, window, deps.now(), request.timezone ?? ""));
    }
  }
  let config: SessionConfig | undefined;
  let enforceRisk: boolean | undefined;
  if (request.strategy_name !== undefined && request.strategy_config !== undefined && session !== undefined) {
    const configured = configOf({ strategy_name: request.strategy_name, strategy_config: request.strategy_config }, session, symbols);
    issues.push(...configured.issues);
    config = configured.config;
    enforceRisk = configured.enforceRisk;
    // A sizing the applicable limits deny every entry of (none without risk rules: `risk_config: null`).
    if (config && enforceRisk) {
      const own = request.strategy_config.risk_config;
      const given = new Set(own && typeof own === "object" ? Object.keys(own) : []);
      const riskField = (field: string, channel?: number) =>
        channel !== undefined
          ? `the session's config.channels.${channel}.risk_limits.${field}`
          : given.has(field)
            ? `strategy_config.risk_config.${field}`
            : `the session's risk_config.${field}`;
      issues.push(...sizingIssues(config, ["body", "strategy_config", "execution", "sizing", "fraction"], riskField));
    }
  } else if (request.strategy_name !== undefined && request.strategy_name !== "multi_channel" && !Strategies.exists(request.strategy_name)) {
    issues.push(strategyNotFound(request.strategy_name));
  }
  return { issues, symbols, timezone, window, config, enforceRisk, benchmark };
}

/**
 * A new backtest of `request` on `session`, validated (422 listing every problem) and not yet
 * stored; `extra` for a sweep's runs; `unknown`: the request's symbols the provider does not know
 * (`deps.unknownSymbols`, asked by the caller: planning itself reads nothing).
 */
export function plan(
  deps: Pick<BacktestControlDeps, "now" | "newId">,
  session: StoredSession,
  request: BacktestRequest,
  extra: Partial<StoredBacktest> = {},
  unknown: ReadonlySet<string> = new Set(),
): StoredBacktest {
  const { issues, symbols, timezone, window, config, enforceRisk, benchmark } = check(deps, session, request, unknown);
  if (issues.length > 0 || !config || !window || !timezone) throw new ValidationError(issues);
  const now = iso(deps.now());
  return {
    id: deps.newId(),
    session_id: session.id,
    user_id: session.user_id,
    strategy_name: request.strategy_name,
    config,
    enforce_risk: enforceRisk ?? true,
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
    ...(benchmark === undefined ? {} : { benchmark }),
    ...extra,
  };
}

/** The symbols of a request the provider is asked about: its symbols and its benchmark. */
export const requestSymbols = (request: Partial<Pick<BacktestRequest, "symbols" | "benchmark">>): string[] => [
  ...(request.symbols ?? []),
  ...(request.benchmark === undefined ? [] : [request.benchmark]),
];

/**
 * The symbols of a request the provider does not know, as `plan` takes them. `besideOthers`: the
 * request is refused for other problems already, so a provider that cannot answer leaves this
 * question out of the 422 rather than turning it into a 502.
 */
export async function unknownOf(deps: Pick<BacktestControlDeps, "unknownSymbols">, symbols: string[], besideOthers = false): Promise<ReadonlySet<string>> {
  const asked = deps.unknownSymbols(normalSymbols(symbols));
  return new Set(besideOthers ? await asked.catch(() => []) : await asked);
}

/** The fields of `body` its schema's own field schemas accept, each alone. */
export function wellFormed<T extends z.ZodObject>(schema: T, body: unknown): Partial<z.infer<T>> {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return {};
  const out: Record<string, unknown> = {};
  for (const [field, fieldSchema] of Object.entries(schema.shape)) {
    const parsed = (fieldSchema as z.ZodType).safeParse((body as Record<string, unknown>)[field]);
    if (parsed.success && parsed.data !== undefined) out[field] = parsed.data;
  }
  return out as Partial<z.infer<T>>;
}

/** The caller's backtest session `id`, or undefined when there is none (a 422's other checks go on without it). */
export async function sessionOrNone(deps: BacktestControlDeps, actor: Actor, id: string | undefined): Promise<StoredSession | undefined> {
  if (id === undefined) return undefined;
  const session = await owned(deps, actor, id).catch(() => undefined);
  return session?.trading_mode === "backtest" ? session : undefined;
}

/** The problems `plan` would find of (the well-formed fields of) a request: `check`'s, for the sweeps' own checks. */
export function requestIssues(
  deps: Pick<BacktestControlDeps, "now">,
  session: StoredSession | undefined,
  request: Partial<BacktestRequest>,
  unknown: ReadonlySet<string>,
): ValidationIssue[] {
  return check(deps, session, request, unknown).issues;
}

/**
 * A backtest request whose body failed its schema (`issues`, the schema's): the checks a start
 * makes are run on the fields that are well formed (on the session too, when `session_id` names
 * one of the caller's), so the 422 lists every problem of the request at once.
 */
export async function invalidRequest(deps: BacktestControlDeps, actor: Actor, body: unknown, issues: ValidationIssue[]): Promise<ValidationError> {
  const request = wellFormed(BacktestRequest, body);
  const [session, unknown] = await Promise.all([sessionOrNone(deps, actor, request.session_id), unknownOf(deps, requestSymbols(request), true)]);
  return new ValidationError([...issues, ...check(deps, session, request, unknown).issues]);
}
