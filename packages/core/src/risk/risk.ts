import { z } from "zod";
import { badRequest, notFound, ValidationError } from "../errors";
import { ConfigIssue, fromZod, issue, joinField } from "./config-issue";

// Every loss and size limit is a fraction of the capital it guards (the session's, or the
// channel's in a multi-channel session), so one configuration fits any account size.
// `stop_loss_pct`, `take_profit_pct` and `trailing_stop_pct` are fractions of a position's
// entry price: the protective orders an entry gets (docs/trading-engine.md "Protective exits").
// The only absolute amount is `max_order_notional`, in the account currency.

/** Bounds of the four limits a multi-channel session sets per channel. */
const drawdown = z.number().min(0.01).max(1);
const dailyLoss = z.number().gt(0).max(1);
const lossPerTrade = z.number().gt(0).max(1);
const leverage = z.number().min(0.1).max(10);

/** A complete risk configuration, as stored on a session and returned by the presets. */
export const Config = z
  .strictObject({
    /** Largest position in one symbol, as a fraction of capital. */
    max_position_size: z.number().gt(0).max(1),
    /** Gross exposure over all positions, as a multiple of capital. */
    max_total_exposure: z.number().gt(0).max(10),
    /** Peak-to-trough equity decline that halts trading. */
    max_drawdown: drawdown,
    /** Loss within one trading day that halts trading until the next day. */
    max_daily_loss: dailyLoss,
    /** Loss one trade may cause, as a fraction of capital. */
    max_loss_per_trade: lossPerTrade,
    /** Distance of the protective stop below (long) or above (short) the entry price; null: no stop. */
    stop_loss_pct: z.number().gt(0).max(1).nullable(),
    /** Distance of the profit target from the entry price; null: no target. */
    take_profit_pct: z.number().gt(0).max(10).nullable(),
    /** Trailing stop distance from the best price since entry; null: no trailing stop. */
    trailing_stop_pct: z.number().gt(0).max(1).nullable(),
    /** Positions held at the same time. */
    max_open_positions: z.int().min(1).max(500),
    /** Orders submitted per trading day. */
    max_daily_trades: z.int().min(1).max(10_000),
    /** Gross exposure allowed by margin, as a multiple of capital. */
    leverage_limit: leverage,
    /** Largest notional of a single order in the account currency; null means no absolute cap. */
    max_order_notional: z.number().gt(0).nullable(),
    /** Whether a sell may open a short position. */
    allow_short: z.boolean(),
    /** A simulation or live session's `max_daily_loss` breach (its own or a channel's) trips its owner's kill switch (docs/security.md "Kill switch"); absent: false. */
    trip_kill_switch: z
      .boolean()
      .optional()
      .describe(
        "true: a breach of max_daily_loss (the session's or a channel's) in a simulation or live session trips its owner's kill switch: every session of the owner paused, their orders cancelled, new orders refused until released",
      ),
  })
  .meta({ id: "RiskConfig" });
export type Config = z.infer<typeof Config>;

/** A risk configuration with any subset of fields; the rest come from the default preset. */
export const ConfigInput = Config.partial();
export type ConfigInput = z.infer<typeof ConfigInput>;

/** The per-channel limits of a multi-channel session (interface `RiskLimits`). */
export const Limits = z
  .strictObject({
    max_drawdown: drawdown,
    max_daily_loss: dailyLoss,
    max_loss_per_trade: lossPerTrade,
    leverage_limit: leverage,
  })
  .meta({ id: "RiskLimits" });
export type Limits = z.infer<typeof Limits>;

/** A partial update of channel limits; unspecified limits keep their current value. */
export const LimitsUpdate = Limits.partial().meta({ id: "RiskLimitsUpdate" });
export type LimitsUpdate = z.infer<typeof LimitsUpdate>;

/** Names of the built-in presets. */
export const PresetName = z.enum(["default", "conservative", "aggressive", "intraday"]).meta({ id: "RiskPresetName" });
export type PresetName = z.infer<typeof PresetName>;

/** A named, described risk configuration. */
export const Preset = z.object({ name: PresetName, display_name: z.string(), description: z.string(), config: Config }).meta({ id: "RiskPreset" });
export type Preset = z.infer<typeof Preset>;

/** Every built-in preset. */
export const PresetList = z.object({ presets: z.array(Preset), total: z.int() }).meta({ id: "RiskPresetList" });
export type PresetList = z.infer<typeof PresetList>;

/**
 * Body of POST /risk/validate (interface RiskConfigRequest). `config` is any object: its
 * problems are reported in the answer, not refused with a 422.
 */
export const ValidationRequest = z.object({ config: z.record(z.string(), z.unknown()) }).meta({ id: "RiskConfigRequest" });
export type ValidationRequest = z.infer<typeof ValidationRequest>;

/** Outcome of `validate` (interface RiskConfigResponse): `config` is normalised, present only when valid. */
export const ValidationResult = z
  .object({
    valid: z.boolean(),
    config: Config.optional(),
    errors: z.array(ConfigIssue),
    warnings: z.array(ConfigIssue),
  })
  .meta({ id: "RiskConfigResponse" });
export type ValidationResult = z.infer<typeof ValidationResult>;

const PRESETS: Record<PresetName, Omit<Preset, "name">> = {
  default: {
    display_name: "Default",
    description: "Balanced limits for a diversified long-only portfolio without leverage.",
    config: {
      max_position_size: 0.1,
      max_total_exposure: 1,
      max_drawdown: 0.2,
      max_daily_loss: 0.05,
      max_loss_per_trade: 0.02,
      stop_loss_pct: 0.05,
      take_profit_pct: 0.1,
      trailing_stop_pct: null,
      max_open_positions: 10,
      max_daily_trades: 50,
      leverage_limit: 1,
      max_order_notional: null,
      allow_short: false,
    },
  },
  conservative: {
    display_name: "Conservative",
    description: "Capital preservation: small positions, tight stops, part of the capital kept in cash.",
    config: {
      max_position_size: 0.05,
      max_total_exposure: 0.8,
      max_drawdown: 0.1,
      max_daily_loss: 0.02,
      max_loss_per_trade: 0.01,
      stop_loss_pct: 0.03,
      take_profit_pct: 0.06,
      trailing_stop_pct: null,
      max_open_positions: 15,
      max_daily_trades: 20,
      leverage_limit: 1,
      max_order_notional: null,
      allow_short: false,
    },
  },
  aggressive: {
    display_name: "Aggressive",
    description: "Concentrated positions, wide stops, up to 2x leverage and short selling.",
    config: {
      max_position_size: 0.25,
      max_total_exposure: 2,
      max_drawdown: 0.3,
      max_daily_loss: 0.1,
      max_loss_per_trade: 0.05,
      stop_loss_pct: 0.1,
      take_profit_pct: 0.25,
      trailing_stop_pct: 0.08,
      max_open_positions: 8,
      max_daily_trades: 200,
      leverage_limit: 2,
      max_order_notional: null,
      allow_short: true,
    },
  },
  intraday: {
    display_name: "Intraday",
    description: "Short holding periods: tight stops and trailing stops, many small trades, shorts allowed.",
    config: {
      max_position_size: 0.1,
      max_total_exposure: 1,
      max_drawdown: 0.1,
      max_daily_loss: 0.03,
      max_loss_per_trade: 0.01,
      stop_loss_pct: 0.02,
      take_profit_pct: 0.04,
      trailing_stop_pct: 0.015,
      max_open_positions: 5,
      max_daily_trades: 100,
      leverage_limit: 1,
      max_order_notional: null,
      allow_short: true,
    },
  },
};

const copyPreset = (name: PresetName): Preset => ({ name, ...PRESETS[name], config: { ...PRESETS[name].config } });

/** All built-in presets, default first. */
export const presets = (): PresetList => {
  const list = PresetName.options.map(copyPreset);
  return { presets: list, total: list.length };
};

/** One preset by name; 404 `RISK_PRESET_NOT_FOUND` when unknown. */
export const preset = (name: string): Preset => {
  const parsed = PresetName.safeParse(name);
  if (!parsed.success) {
    throw notFound("RISK_PRESET_NOT_FOUND", `Risk preset '${name}' does not exist; available: ${PresetName.options.join(", ")}`);
  }
  return copyPreset(parsed.data);
};

/** The default risk configuration (a fresh copy). */
export const defaults = (): Config => ({ ...PRESETS.default.config });

// Thresholds past which a configuration is legal but deserves a second look.
const WARN_LEVERAGE = 2;
const WARN_DRAWDOWN = 0.3;
const WARN_POSITION_SIZE = 0.25;

/** Warnings for combinations of limits that are legal but risky or contradictory. */
export const warningsFor = (config: Partial<Record<keyof Config, unknown>>, prefix = ""): ConfigIssue[] => {
  const num = (key: keyof Config) => (typeof config[key] === "number" ? (config[key] as number) : undefined);
  const found: ConfigIssue[] = [];
  const at = (key: keyof Config) => joinField(prefix, key);

  const leverageLimit = num("leverage_limit");
  if (leverageLimit !== undefined && leverageLimit > WARN_LEVERAGE) {
    found.push(issue("HIGH_LEVERAGE", at("leverage_limit"), `leverage_limit ${leverageLimit} exceeds ${WARN_LEVERAGE}x`));
  }
  const maxDrawdown = num("max_drawdown");
  if (maxDrawdown !== undefined && maxDrawdown > WARN_DRAWDOWN) {
    found.push(
      issue("HIGH_DRAWDOWN", at("max_drawdown"), `max_drawdown ${maxDrawdown} allows losing more than ${WARN_DRAWDOWN * 100}% of capital before halting`),
    );
  }
  const positionSize = num("max_position_size");
  if (positionSize !== undefined && positionSize > WARN_POSITION_SIZE) {
    found.push(
      issue(
        "CONCENTRATED_POSITION",
        at("max_position_size"),
        `max_position_size ${positionSize} puts more than ${WARN_POSITION_SIZE * 100}% of capital in one symbol`,
      ),
    );
  }
  const stop = num("stop_loss_pct");
  const perTrade = num("max_loss_per_trade");
  if (stop !== undefined && perTrade !== undefined) {
    // A full-size position stopped out loses position size x stop distance of capital.
    const lossAtStop = (positionSize ?? 1) * stop;
    if (lossAtStop > perTrade + 1e-12) {
      found.push(
        issue(
          "STOP_LOSS_EXCEEDS_TRADE_LOSS",
          at("stop_loss_pct"),
          `a full-size position stopped out loses ${round(lossAtStop)} of capital ` +
            `(max_position_size ${positionSize ?? 1} x stop_loss_pct ${stop}), more than max_loss_per_trade ${perTrade}`,
        ),
      );
    }
  }
  const daily = num("max_daily_loss");
  if (perTrade !== undefined && daily !== undefined && perTrade > daily) {
    found.push(
      issue(
        "TRADE_LOSS_EXCEEDS_DAILY_LOSS",
        at("max_loss_per_trade"),
        `max_loss_per_trade ${perTrade} is larger than max_daily_loss ${daily}; one trade can halt the day`,
      ),
    );
  }
  if (daily !== undefined && maxDrawdown !== undefined && daily > maxDrawdown) {
    found.push(
      issue(
        "DAILY_LOSS_EXCEEDS_DRAWDOWN",
        at("max_daily_loss"),
        `max_daily_loss ${daily} is larger than max_drawdown ${maxDrawdown}; the daily limit can never trigger`,
      ),
    );
  }
  const takeProfit = num("take_profit_pct");
  if (takeProfit !== undefined && stop !== undefined && takeProfit < stop) {
    found.push(
      issue(
        "REWARD_BELOW_RISK",
        at("take_profit_pct"),
        `take_profit_pct ${takeProfit} is smaller than stop_loss_pct ${stop}; each win earns less than a loss costs`,
      ),
    );
  }
  const exposure = num("max_total_exposure");
  if (exposure !== undefined && leverageLimit !== undefined && exposure > leverageLimit) {
    found.push(
      issue("EXPOSURE_EXCEEDS_LEVERAGE", at("max_total_exposure"), `max_total_exposure ${exposure} cannot be reached with leverage_limit ${leverageLimit}`),
    );
  }
  return found;
};

const round = (value: number) => Number(value.toPrecision(6));

// Warnings about a value that is already an error would only repeat it.
const withoutFaulty = (values: Record<string, unknown>, error: z.ZodError): Record<string, unknown> => {
  const faulty = new Set(error.issues.map((i) => i.path[0]));
  return Object.fromEntries(Object.entries(values).filter(([key]) => !faulty.has(key)));
};

/**
 * Checks a (possibly partial) risk configuration. Missing fields take the default preset's
 * values; unknown fields are errors because a misspelt limit would otherwise fall back to
 * the default silently.
 */
export const validate = (input: unknown, prefix = ""): ValidationResult => {
  if (input === null || typeof input !== "object" || Array.isArray(input)) {
    return {
      valid: false,
      errors: [issue("INVALID_TYPE", prefix, `${prefix || "config"} must be an object`)],
      warnings: [],
    };
  }
  const merged = { ...defaults(), ...(input as Record<string, unknown>) };
  const parsed = Config.safeParse(merged);
  if (!parsed.success) {
    const errors = fromZod(parsed.error, merged, prefix);
    return { valid: false, errors, warnings: warningsFor(withoutFaulty(merged, parsed.error), prefix) };
  }
  return { valid: true, config: parsed.data, errors: [], warnings: warningsFor(parsed.data, prefix) };
};

/** Parses a (possibly partial) risk configuration or throws a 422 listing every problem. */
export const parse = (input: unknown, loc: (string | number)[] = ["risk_config"]): Config => {
  const result = validate(input ?? {});
  if (result.config) return result.config;
  throw new ValidationError(
    result.errors.map((e) => ({
      loc: [...loc, ...(e.field ? e.field.split(".") : [])],
      msg: e.message,
      type: e.code.toLowerCase(),
    })),
  );
};

/**
 * The protective orders an entry gets, as fractions of the entry price (docs/trading-engine.md
 * "Protective exits"): a stop, a target and a trailing stop; null turns one off.
 */
export type ProtectiveExits = Pick<Config, "stop_loss_pct" | "take_profit_pct" | "trailing_stop_pct">;

/** The names of the protective exits' fields. */
export const EXIT_FIELDS = ["stop_loss_pct", "take_profit_pct", "trailing_stop_pct"] as const;

/**
 * The protective exits of a strategy's entries under `config`: a field the run gave (`given`) is
 * the run's; one it left to the preset is the strategy's own recommendation (`declared`, its
 * metadata's `recommended_risk`) where it has one.
 */
export const exitsOf = (config: Config, given: readonly string[] = EXIT_FIELDS, declared: Partial<Config> = {}): ProtectiveExits => {
  const pick = (field: (typeof EXIT_FIELDS)[number]) => (given.includes(field) || declared[field] === undefined ? config[field] : declared[field]);
  return { stop_loss_pct: pick("stop_loss_pct"), take_profit_pct: pick("take_profit_pct"), trailing_stop_pct: pick("trailing_stop_pct") };
};

/** The channel limits contained in a full risk configuration. */
export const limitsOf = (config: Config): Limits => ({
  max_drawdown: config.max_drawdown,
  max_daily_loss: config.max_daily_loss,
  max_loss_per_trade: config.max_loss_per_trade,
  leverage_limit: config.leverage_limit,
});

/** Range errors and contradiction warnings for channel limits (all four fields required). */
export const checkLimits = (input: unknown, prefix = ""): { errors: ConfigIssue[]; warnings: ConfigIssue[] } => {
  const parsed = Limits.safeParse(input);
  if (parsed.success) return { errors: [], warnings: warningsFor(parsed.data, prefix) };
  const errors = fromZod(parsed.error, input, prefix);
  const warnings =
    input !== null && typeof input === "object" && !Array.isArray(input)
      ? warningsFor(withoutFaulty(input as Record<string, unknown>, parsed.error), prefix)
      : [];
  return { errors, warnings };
};

/**
 * Applies a limits update to the current limits, or throws 400 `INVALID_PARAMETER` naming
 * every out-of-range value (as the multi-channel risk-limits endpoint answers).
 */
export const updateLimits = (current: Limits, update: unknown): Limits => {
  const parsed = LimitsUpdate.safeParse(update);
  if (!parsed.success) {
    const errors = fromZod(parsed.error, update);
    throw badRequest("INVALID_PARAMETER", errors.map((e) => e.message).join("; "), { errors });
  }
  const defined = Object.fromEntries(Object.entries(parsed.data).filter(([, v]) => v !== undefined));
  return { ...current, ...defined };
};
