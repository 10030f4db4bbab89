import { z } from "zod";
import { ValidationError, type ValidationIssue } from "../../errors";
import { ChannelType } from "../../channel-presets/channel-presets";
import { Execution, type ChannelSetup, type EngineSetup } from "../../engine/setup";
import type { FeeConfig } from "../../fees/index";
import { marketOf, Markets, normalizeSymbol } from "../../market/market";
import * as Risk from "../../risk/risk";
import { Strategies } from "../../strategies/index";
import { Timeframe } from "../../strategies/definition";

/**
 * The `config` of a trading session: its channels (each a sleeve of the capital with its own
 * strategies and risk limits), the symbols and period strategies run on, the session's risk rules
 * and how orders execute. A channel preset's content is a valid `config` as it is; unknown keys
 * are ignored (front ends send extra fields); a strategy's missing parameters take their
 * defaults. See docs/trading-sessions.md.
 */

const MtfRole = z.enum(["director", "executor"]);

const Symbols = z.array(z.string().min(1).max(32)).max(100);

const StrategyEntry = z.object({
  strategy_name: z.string().min(1).max(64),
  parameters: z.record(z.string(), z.unknown()).default({}),
  weight: z.number().gt(0).max(1).default(1),
  symbols: Symbols.optional(),
  timeframe: Timeframe.optional(),
  /** Multi-timeframe role (MTF sessions, docs/mtf-and-replay.md). */
  role: MtfRole.optional(),
});

const ChannelEntry = z.object({
  channel_id: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z0-9_-]+$/, "letters, digits, '_' and '-' only"),
  channel_type: ChannelType.default("BALANCED"),
  capital_allocation: z.number().gt(0).max(1),
  strategies: z.array(StrategyEntry).min(1).max(20),
  risk_limits: z.record(z.string(), z.unknown()).optional(),
});

/** The input form of `config` (what POST /trading/sessions accepts). */
/**
 * Where a simulation or live session's orders fill (docs/trading-sessions.md): `broker`, the
 * session's broker (a simulation session's paper account, a live session's LongPort account);
 * `bars`, simulated on the session's bars as a backtest fills. Backtests and replays always fill
 * on bars. Sessions stored before the choice existed fill on bars.
 */
export const SessionVenue = z.enum(["broker", "bars"]).meta({ id: "SessionVenue" });
export type SessionVenue = z.infer<typeof SessionVenue>;

export const SessionConfigInput = z
  .object({
    channels: z.array(ChannelEntry).max(10).optional(),
    strategy_name: z.string().min(1).max(64).optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
    symbols: Symbols.optional(),
    timeframe: Timeframe.optional(),
    risk_config: z.record(z.string(), z.unknown()).optional(),
    execution: z.record(z.string(), z.unknown()).optional(),
    venue: SessionVenue.optional(),
  })
  .meta({ id: "TradingSessionConfigInput" });

/** One strategy of a stored channel: parameters complete. */
export const ChannelStrategy = z.object({
  strategy_name: z.string(),
  parameters: z.record(z.string(), z.unknown()),
  weight: z.number(),
  symbols: z.array(z.string()).optional(),
  timeframe: Timeframe.optional(),
  role: MtfRole.optional(),
});

/** A stored channel: every field resolved. */
export const SessionChannel = z
  .object({
    channel_id: z.string(),
    channel_type: ChannelType,
    capital_allocation: z.number(),
    strategies: z.array(ChannelStrategy),
    risk_limits: Risk.Limits,
  })
  .meta({ id: "TradingSessionChannel" });
export type SessionChannel = z.infer<typeof SessionChannel>;

/** The stored, normalised `config`. */
export const SessionConfig = z
  .object({
    channels: z.array(SessionChannel),
    symbols: z.array(z.string()),
    timeframe: Timeframe,
    risk_config: Risk.Config,
    risk_given: z
      .array(z.string())
      .optional()
      .describe(
        "The risk_config fields the request gave; the others are the default preset's, and a strategy's own recommended stop, target and trailing stop take their place (docs/trading-sessions.md). Absent in sessions stored before it existed: all given",
      ),
    execution: Execution,
    /** Absent in sessions stored before it existed: `bars`. */
    venue: SessionVenue.optional(),
  })
  .meta({ id: "TradingSessionConfig" });
export type SessionConfig = z.infer<typeof SessionConfig>;

/** The fields of a risk configuration a request gave (`risk_given`). */
export const riskGiven = (input: Record<string, unknown> | undefined): string[] =>
  input === undefined ? [] : Object.keys(Risk.Config.shape).filter((field) => input[field] !== undefined);

/** The most of its free cash an entry uses by default, when the risk configuration allows more. */
export const DEFAULT_ENTRY_FRACTION = 0.95;

/** Headroom for float arithmetic in the limits' comparisons (the engine's own checks are exact to a cent). */
const LIMIT_EPSILON = 1e-9;

/**
 * What each limit a flat channel's entry meets allows its sizing (the share `fraction × weight` of
 * the sleeve's free cash, which is the channel's equity while it holds nothing), for the strategy
 * `strategy` of `channel` (none: a configuration without channels, under its risk configuration
 * alone): the position limit, the exposure limit, and the loss a stop-out at the entry's stop (its
 * `stop_loss_pct`, else its `trailing_stop_pct`) may cause.
 */
function entryLimits(
  risk: Risk.Config,
  given: readonly string[],
  channel: Pick<SessionChannel, "risk_limits"> | undefined,
  strategyName: string | undefined,
): { limit: "max_position_size" | "max_total_exposure" | "leverage_limit" | "max_loss_per_trade"; share: number; stop?: number }[] {
  const limits = channel?.risk_limits ?? Risk.limitsOf(risk);
  const declared = strategyName !== undefined && Strategies.exists(strategyName) ? Strategies.riskConfig(strategyName).config : {};
  const exits = Risk.exitsOf(risk, given, declared);
  const stop = exits.stop_loss_pct ?? exits.trailing_stop_pct;
  const exposure = risk.max_total_exposure <= limits.leverage_limit ? "max_total_exposure" : "leverage_limit";
  return [
    { limit: "max_position_size", share: risk.max_position_size },
    { limit: exposure, share: Math.min(risk.max_total_exposure, limits.leverage_limit) },
    ...(stop !== null ? [{ limit: "max_loss_per_trade" as const, share: limits.max_loss_per_trade / stop, stop }] : []),
  ];
}

/**
 * Sizing that fits the risk configuration, when the configuration gives none: an entry uses the
 * most of the sleeve's free cash every limit an entry meets allows (`max_position_size`, the
 * exposure limit, and `max_loss_per_trade` over the entry's stop distance), at most 95 %, so what a
 * strategy signals is within the limits (free cash is at most equity) instead of denied by them
 * (docs/trading-sessions.md, "Defaults that trade").
 */
function defaultSizing(
  execution: Record<string, unknown> | undefined,
  risk: Risk.Config,
  given: readonly string[],
  channels: SessionChannel[],
): Partial<Execution> {
  if (execution?.sizing !== undefined) return {};
  let fraction = DEFAULT_ENTRY_FRACTION;
  const entries =
    channels.length === 0
      ? [{ channel: undefined, strategy: undefined }]
      : channels.flatMap((channel) => channel.strategies.map((strategy) => ({ channel, strategy: strategy.strategy_name })));
  for (const { channel, strategy } of entries) for (const { share } of entryLimits(risk, given, channel, strategy)) fraction = Math.min(fraction, share);
  // Six decimals, rounded down: 0.02 / 0.05 is 0.39999999999999997 in floats, 0.4 here.
  return { sizing: { model: "cash_fraction", fraction: Math.max(1e-6, Math.floor(fraction * 1e6 + 1e-6) / 1e6) } };
}

/**
 * The problems of a sizing the risk limits can never allow (docs/trading-sessions.md "A sizing the
 * limits never allow"): in a channel none of whose strategies can open a position from flat, an
 * entry sized at `fraction × weight` of the channel's equity breaks a limit every time, so every
 * entry is denied and the run trades nothing. One problem per limit broken, at the sizing's field
 * (`sizingLoc`), naming the limit's field (`riskField`: where the risk configuration was given) and
 * what to change. None under the default sizing, which fits every limit.
 */
export function sizingIssues(
  config: SessionConfig,
  sizingLoc: (string | number)[],
  riskField: (field: string, channelIndex?: number) => string,
): ValidationIssue[] {
  const fraction = config.execution.sizing.fraction;
  const given = config.risk_given ?? Risk.EXIT_FIELDS;
  const issues: ValidationIssue[] = [];
  const channels = config.channels.length === 0 ? [undefined] : config.channels;
  channels.forEach((channel, c) => {
    const strategies = channel?.strategies ?? [{ strategy_name: undefined, weight: 1 }];
    const broken = strategies.map(({ strategy_name, weight }) =>
      entryLimits(config.risk_config, given, channel, strategy_name).filter(({ share }) => fraction * weight > share + LIMIT_EPSILON),
    );
    // A strategy that can open a position from flat lets the channel trade: the others may then fit in the cash left.
    if (broken.some((limits) => limits.length === 0)) return;
    strategies.forEach(({ strategy_name, weight }, s) => {
      for (const { limit, share, stop } of broken[s]!) {
        const entry = Number((fraction * weight).toPrecision(6));
        const sized = weight === 1 ? `${fraction}` : `${fraction} × weight ${weight} = ${entry}`;
        // A single-strategy configuration's one channel (`main`) goes without saying.
        const named = channel !== undefined && (config.channels.length > 1 || channel.channel_id !== SINGLE_CHANNEL_ID);
        const where =
          channel === undefined ? "" : `${named ? `channel ${channel.channel_id}` : ""}${strategies.length > 1 ? `${named ? ", " : ""}${strategy_name}` : ""}`;
        const prefix = where ? `${where}: ` : "";
        const own =
          channel !== undefined && limit !== "max_position_size" && limit !== "max_total_exposure" && channel.risk_limits[limit] !== config.risk_config[limit];
        const field = riskField(limit, own ? c : undefined);
        const most = Math.floor((share / weight) * 1e6 + 1e-6) / 1e6;
        const reason =
          limit === "max_loss_per_trade"
            ? `a stop-out at its stop ${stop} would lose ${Number((entry * stop!).toPrecision(6))} of equity, above ${field} ${Number((share * stop!).toPrecision(6))}: every entry would be denied MAX_LOSS_PER_TRADE_EXCEEDED`
            : limit === "max_position_size"
              ? `above ${field} ${share}: every entry would be denied MAX_POSITION_EXCEEDED`
              : `above ${field} ${share}: every entry would be denied MAX_EXPOSURE_EXCEEDED`;
        const raise =
          limit === "max_loss_per_trade"
            ? `raise ${field} to at least ${Number((entry * stop!).toPrecision(6))}, or narrow the stop`
            : `raise ${field} to at least ${entry}`;
        issues.push({
          loc: sizingLoc,
          msg: `${prefix}execution.sizing.fraction ${sized} sizes an entry at ${entry} of the channel's equity while it holds nothing, ${reason}. Lower execution.sizing.fraction to at most ${most}, or ${raise}`,
          type: "sizing_never_allowed",
        });
      }
    });
  });
  return issues;
}

/** The id of the one channel a single-strategy configuration (`strategy_name` at the top) becomes. */
export const SINGLE_CHANNEL_ID = "main";

const EPSILON = 1e-9;

/**
 * Normalises a session configuration or throws a 422 listing every problem (located under
 * `config`). `fallbackSymbols` (the session's `tradable_symbols`) applies where neither the
 * strategy nor the configuration names symbols. `backtest`: the configuration of a backtest
 * (`POST /backtest/start`, a sweep), the one run that honours `execution.intrabar`.
 */
export function normalizeConfig(input: unknown, fallbackSymbols: string[] = [], { backtest = false }: { backtest?: boolean } = {}): SessionConfig {
  const issues: ValidationIssue[] = [];
  const parsed = SessionConfigInput.safeParse(input ?? {});
  if (!parsed.success) {
    throw new ValidationError(
      parsed.error.issues.map((i) => ({ loc: ["config", ...i.path.map((p) => (typeof p === "number" ? p : String(p)))], msg: i.message, type: i.code })),
    );
  }
  const raw = parsed.data;
  const symbolList = (list: string[] | undefined, loc: (string | number)[]): string[] | undefined => {
    if (list === undefined) return undefined;
    const out: string[] = [];
    list.forEach((symbol, index) => {
      try {
        const normal = normalizeSymbol(symbol);
        if (!Markets[marketOf(normal)].supported) throw new Error(`market of ${normal} is not supported`);
        if (!out.includes(normal)) out.push(normal);
      } catch (error) {
        issues.push({ loc: [...loc, index], msg: error instanceof Error ? error.message : String(error), type: "invalid_symbol" });
      }
    });
    return out;
  };
  const symbols = symbolList(raw.symbols, ["config", "symbols"]) ?? fallbackSymbols;

  let risk = Risk.defaults();
  const given = riskGiven(raw.risk_config);
  if (raw.risk_config !== undefined) {
    const result = Risk.validate({ ...Risk.defaults(), ...raw.risk_config });
    if (result.valid && result.config) risk = result.config;
    for (const error of result.errors)
      issues.push({ loc: ["config", "risk_config", ...(error.field ? error.field.split(".") : [])], msg: error.message, type: error.code.toLowerCase() });
  }
  const execution = Execution.safeParse(raw.execution ?? {});
  if (!execution.success) {
    for (const i of execution.error.issues)
      issues.push({ loc: ["config", "execution", ...i.path.map((p) => (typeof p === "number" ? p : String(p)))], msg: i.message, type: i.code });
  }
  // One period, shown the same in both places: `timeframe` is `execution.timeframe` when only one is given.
  const givenExecutionTimeframe = raw.execution?.timeframe;
  if (raw.timeframe !== undefined && givenExecutionTimeframe !== undefined && execution.success && raw.timeframe !== execution.data.timeframe) {
    issues.push({
      loc: ["config", "timeframe"],
      msg: `timeframe ${raw.timeframe} differs from execution.timeframe ${execution.data.timeframe}; give one of them`,
      type: "timeframe_conflict",
    });
  }
  const timeframe = raw.timeframe ?? (execution.success ? execution.data.timeframe : "1d");

  const entries =
    raw.channels ??
    (raw.strategy_name
      ? [
          {
            channel_id: SINGLE_CHANNEL_ID,
            channel_type: "BALANCED" as const,
            capital_allocation: 1,
            strategies: [{ strategy_name: raw.strategy_name, parameters: raw.parameters ?? {}, weight: 1 }],
          },
        ]
      : []);
  const channels: SessionChannel[] = [];
  const seen = new Set<string>();
  let allocated = 0;
  entries.forEach((channel, c) => {
    const loc = raw.channels ? ["config", "channels", c] : ["config"];
    if (seen.has(channel.channel_id))
      issues.push({ loc: [...loc, "channel_id"], msg: `channel_id '${channel.channel_id}' appears twice`, type: "duplicate_channel" });
    seen.add(channel.channel_id);
    allocated += channel.capital_allocation;
    const limits = Risk.Limits.safeParse({
      ...Risk.limitsOf(risk),
      ...pick(channel.risk_limits ?? {}, ["max_drawdown", "max_daily_loss", "max_loss_per_trade", "leverage_limit"]),
    });
    if (!limits.success) {
      for (const i of limits.error.issues) issues.push({ loc: [...loc, "risk_limits", ...i.path.map(String)], msg: i.message, type: i.code });
    }
    const strategies = channel.strategies.map((strategy, s) => {
      const strategyLoc = raw.channels ? [...loc, "strategies", s] : ["config"];
      const result = Strategies.validate(strategy.strategy_name, strategy.parameters);
      for (const error of result.errors) {
        const field = error.field === "strategy_name" ? ["strategy_name"] : ["parameters", ...(error.field ? error.field.split(".") : [])];
        issues.push({ loc: [...strategyLoc, ...field], msg: error.message, type: error.code.toLowerCase() });
      }
      const own = "symbols" in strategy ? symbolList(strategy.symbols, [...strategyLoc, "symbols"]) : undefined;
      return {
        strategy_name: strategy.strategy_name,
        parameters: result.config ?? strategy.parameters,
        weight: strategy.weight,
        ...(own !== undefined ? { symbols: own } : {}),
        ...("timeframe" in strategy && strategy.timeframe ? { timeframe: strategy.timeframe } : {}),
        ...("role" in strategy && strategy.role ? { role: strategy.role } : {}),
      };
    });
    channels.push({
      channel_id: channel.channel_id,
      channel_type: channel.channel_type,
      capital_allocation: channel.capital_allocation,
      strategies,
      risk_limits: limits.success ? limits.data : Risk.limitsOf(risk),
    });
  });
  if (execution.success && execution.data.intrabar !== undefined) issues.push(...intrabarIssues(channels, timeframe, backtest));
  if (allocated > 1 + EPSILON) {
    issues.push({
      loc: ["config", "channels"],
      msg: `channels allocate ${round(allocated)} of the capital; the total must not exceed 1`,
      type: "over_allocated",
    });
  }
  if (issues.length > 0) throw new ValidationError(issues);
  return {
    channels,
    symbols,
    timeframe,
    risk_config: risk,
    risk_given: given,
    execution: { ...(execution.success ? execution.data : Execution.parse({})), ...defaultSizing(raw.execution, risk, given, channels), timeframe },
    venue: raw.venue ?? "broker",
  };
}

const round = (value: number) => Math.round(value * 1e6) / 1e6;

/**
 * The problems of `execution.intrabar` (docs/backtests.md "Intrabar fills"): only a backtest hands
 * the engine the stored minutes inside its bars (a session's orders fill at its broker, or on bars
 * fed as they close, with no minutes inside them), and a strategy on 1-minute bars has nothing
 * finer to look at: the run would silently fill as without it.
 */
function intrabarIssues(channels: SessionChannel[], timeframe: Timeframe, backtest: boolean): ValidationIssue[] {
  const loc = ["config", "execution", "intrabar"];
  if (!backtest)
    return [
      {
        loc,
        msg: "execution.intrabar applies to backtests (strategy_config.execution of POST /api/v1/backtest/start): a session's orders fill at its broker, or on bars fed as they close, with no stored minutes inside them",
        type: "intrabar_not_applicable",
      },
    ];
  const minute = channels.flatMap((channel) => channel.strategies).filter((strategy) => (strategy.timeframe ?? timeframe) === "1m");
  if (minute.length === 0) return [];
  return [
    {
      loc,
      msg: `execution.intrabar reads the 1-minute bars inside coarser bars, and ${[...new Set(minute.map((s) => s.strategy_name))].join(", ")} runs on 1m bars, which have nothing finer inside: use a timeframe of 5m, 1h or 1d, or leave execution.intrabar out`,
      type: "intrabar_not_applicable",
    },
  ];
}

const NO_EXITS: Risk.ProtectiveExits = { stop_loss_pct: null, take_profit_pct: null, trailing_stop_pct: null };
const pick = (value: Record<string, unknown>, keys: string[]) => Object.fromEntries(keys.filter((k) => value[k] !== undefined).map((k) => [k, value[k]]));

/** The strategy a session is known by: its one strategy, `multi_channel`, or `none` without channels. */
export function strategyNameOf(config: SessionConfig): string {
  const all = config.channels.flatMap((c) => c.strategies);
  if (all.length === 0) return "none";
  if (config.channels.length === 1 && all.length === 1) return all[0].strategy_name;
  return "multi_channel";
}

/** Parameters of a single-strategy session (null for multi-strategy sessions). */
export function strategyParamsOf(config: SessionConfig): Record<string, unknown> | null {
  const all = config.channels.flatMap((c) => c.strategies);
  return config.channels.length === 1 && all.length === 1 ? all[0].parameters : null;
}

/** Every symbol any strategy of the configuration trades. */
export function symbolsOf(config: SessionConfig): string[] {
  const out = new Set<string>();
  for (const channel of config.channels) for (const s of channel.strategies) for (const symbol of s.symbols ?? config.symbols) out.add(symbol);
  return [...out];
}

/** Every (symbol, period) pair the strategies listen to. */
export function feedsOf(config: SessionConfig): { symbol: string; timeframe: Timeframe }[] {
  const out = new Map<string, { symbol: string; timeframe: Timeframe }>();
  for (const channel of config.channels) {
    for (const s of channel.strategies) {
      const timeframe = s.timeframe ?? config.timeframe;
      for (const symbol of s.symbols ?? config.symbols) out.set(`${symbol}|${timeframe}`, { symbol, timeframe });
    }
  }
  return [...out.values()];
}

/** Trading days per year of a market, for annualising (US 252, HK 247). */
export const TRADING_DAYS_PER_YEAR: Record<string, number> = { USD: 252, HKD: 247 };

/** The engine's setup for a session's configuration. */
export function engineSetup(options: {
  run_id: string;
  config: SessionConfig;
  capital: Record<string, string>;
  base_currency: string;
  fx: Record<string, number>;
  lots: Record<string, number>;
  fees: FeeConfig | null;
  /** False: the run applies no risk rules, neither its checks nor its protective exits (a backtest's `risk_config: null`). */
  enforce_risk: boolean;
}): EngineSetup {
  const { config } = options;
  const risk = config.risk_config;
  const given = config.risk_given ?? Risk.EXIT_FIELDS;
  const exitsOf = (strategyName: string) =>
    options.enforce_risk ? Risk.exitsOf(risk, given, Strategies.exists(strategyName) ? Strategies.riskConfig(strategyName).config : {}) : NO_EXITS;
  const channels: ChannelSetup[] = config.channels.map((channel) => ({
    channel_id: channel.channel_id,
    channel_type: channel.channel_type,
    capital_allocation: channel.capital_allocation,
    limits: channel.risk_limits,
    strategies: channel.strategies.map((s) => ({
      strategy_name: s.strategy_name,
      parameters: s.parameters,
      weight: s.weight,
      symbols: s.symbols ?? config.symbols,
      timeframe: s.timeframe ?? config.timeframe,
      ...(s.role ? { role: s.role } : {}),
      exits: exitsOf(s.strategy_name),
    })),
  }));
  const multiTimeframe = channels.some((channel) => channel.strategies.some((s) => s.role !== undefined));
  return {
    session_id: options.run_id,
    base_currency: options.base_currency,
    capital: options.capital,
    fx: options.fx,
    channels,
    execution: config.execution,
    risk: options.enforce_risk ? risk : null,
    // Orders placed by hand get the session's own exits.
    exits: options.enforce_risk ? Risk.exitsOf(risk) : NO_EXITS,
    lots: options.lots,
    fees: options.fees,
    trading_days_per_year: TRADING_DAYS_PER_YEAR[options.base_currency] ?? 252,
    ...(multiTimeframe ? { trace: true } : {}),
  };
}
