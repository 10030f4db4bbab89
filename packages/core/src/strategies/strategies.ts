import { z } from "zod";
import { notFound, ValidationError } from "../errors";
import { ConfigIssue, issue, joinField } from "../risk/config-issue";
import { Config as RiskConfig, PresetName as RiskPresetName, preset as riskPreset, validate as validateRisk } from "../risk/risk";
import { bollingerBreakout } from "./bollinger-breakout";
import { Category, RiskLevel, Role, settleOf, type StrategyDefinition, Timeframe } from "./definition";
import { donchianBreakout } from "./donchian-breakout";
import { emaTrend } from "./ema-trend";
import { macdTrend } from "./macd-trend";
import { maCrossover } from "./ma-crossover";
import { momentum } from "./momentum";
import { defaultsOf, ParameterDefinition, ParameterValue, resolveParameters } from "./parameter";
import { pullbackExecutor } from "./pullback-executor";
import { rsiMeanReversion } from "./rsi-mean-reversion";
import type { Strategy } from "./strategy";
import { trendDirector } from "./trend-director";

const CATALOG: readonly StrategyDefinition[] = [
  maCrossover,
  rsiMeanReversion,
  bollingerBreakout,
  macdTrend,
  donchianBreakout,
  momentum,
  trendDirector,
  pullbackExecutor,
  emaTrend,
];

/** Markets every strategy can trade: the ones with calendars and data. */
const MARKET_TYPES = ["US", "HK"];

const Values = z.record(z.string(), ParameterValue);

/** A strategy as listed by `list()`. */
export const StrategySummary = z
  .object({
    strategy_id: z.string(),
    display_name: z.string(),
    category: Category,
    description: z.string(),
    risk_level: RiskLevel,
    role: Role,
  })
  .meta({ id: "StrategySummary" });
export type StrategySummary = z.infer<typeof StrategySummary>;

/** Answer of GET /strategies/. */
export const StrategyList = z.object({ strategies: z.array(StrategySummary), total: z.int() }).meta({ id: "StrategyList" });
export type StrategyList = z.infer<typeof StrategyList>;

/** Full metadata of one strategy (an entry of GET /strategies/metadata/all). */
export const StrategyMetadata = StrategySummary.extend({
  market_types: z.array(z.string()),
  timeframes: z.array(Timeframe).describe("Candle periods the strategy is meant for, the preferred one first"),
  supported_timeframes: z.array(Timeframe).describe("Same list as timeframes, under the name the MTF metadata uses"),
  min_history_bars: z.int().describe("Bars of history needed before the first signal, with default parameters"),
  settle_bars: z
    .int()
    .describe(
      "Bars of history after which the strategy's indicators no longer depend on how much history came before (within 0.1%), with default parameters: min_history_bars for moving windows (SMA, Donchian, Bollinger), more for exponential and Wilder smoothing (EMA, RSI, ATR, MACD). What a simulation or live session loads before its first bar",
    ),
  parameters: z.array(ParameterDefinition),
  default_parameters: Values,
}).meta({ id: "StrategyMetadata" });
export type StrategyMetadata = z.infer<typeof StrategyMetadata>;

/** Answer of GET /strategies/metadata/all. */
export const StrategyMetadataList = z.object({ strategies: z.array(StrategyMetadata), total: z.int() }).meta({ id: "StrategyMetadataList" });
export type StrategyMetadataList = z.infer<typeof StrategyMetadataList>;

/** Recommended risk configuration: the preset it derives from and the resulting configuration. */
export const RecommendedRisk = z
  .object({ strategy_name: z.string(), risk_level: RiskLevel, base_preset: RiskPresetName, config: RiskConfig })
  .meta({ id: "StrategyRiskConfig" });
export type RecommendedRisk = z.infer<typeof RecommendedRisk>;

/** Strategy details: metadata plus the recommended risk configuration. */
export const StrategyDetails = StrategyMetadata.extend({ recommended_risk: RecommendedRisk }).meta({ id: "StrategyDetails" });
export type StrategyDetails = z.infer<typeof StrategyDetails>;

/** Parameter definitions of one strategy. */
export const ParameterList = z
  .object({ strategy_name: z.string(), parameters: z.array(ParameterDefinition), default_parameters: Values })
  .meta({ id: "StrategyParameters" });
export type ParameterList = z.infer<typeof ParameterList>;

/** A filled-in configuration to start from; `validate` accepts it back as is. */
export const Template = z
  .object({
    strategy_name: z.string(),
    display_name: z.string(),
    timeframe: Timeframe,
    symbols: z.array(z.string()),
    parameters: Values,
    risk_config: RiskConfig,
  })
  .meta({ id: "StrategyTemplate" });
export type Template = z.infer<typeof Template>;

/** Interface MTFStrategyMetadataResponse. */
export const MtfMetadata = z
  .object({
    strategy_id: z.string(),
    display_name: z.string(),
    description: z.string(),
    role: Role,
    default_parameters: Values,
    supported_timeframes: z.array(Timeframe),
  })
  .meta({ id: "MTFStrategyMetadataResponse" });
export type MtfMetadata = z.infer<typeof MtfMetadata>;

/** Query of GET /strategies/mtf/metadata. */
export const MtfMetadataQuery = z.object({ role: Role.optional() }).meta({ id: "MTFStrategyMetadataQuery" });

/**
 * Body of POST /strategies/validate (interface StrategyConfigRequest). `config` is any object
 * (a parameter map or a template); its problems are reported in the answer, not refused.
 */
export const ValidationRequest = z
  .object({ strategy_name: z.string().min(1), config: z.record(z.string(), z.unknown()) })
  .meta({ id: "StrategyConfigRequest" });
export type ValidationRequest = z.infer<typeof ValidationRequest>;

/** Interface StrategyConfigResponse; `config` is the normalised configuration, present when valid. */
export const ValidationResult = z
  .object({
    valid: z.boolean(),
    errors: z.array(ConfigIssue),
    warnings: z.array(ConfigIssue),
    config: z
      .union([Values, Template.omit({ display_name: true })])
      .optional()
      .describe("The parameters with defaults filled in, or the normalised template when a template was sent"),
  })
  .meta({ id: "StrategyConfigResponse" });
export type ValidationResult = z.infer<typeof ValidationResult>;

/** Definitions added with `register` (a test's strategy): found by name as the catalog's are, listed nowhere. */
const registered: StrategyDefinition[] = [];

const definition = (name: string): StrategyDefinition => {
  const found = CATALOG.find((d) => d.strategy_id === name) ?? registered.find((d) => d.strategy_id === name);
  if (!found) {
    throw notFound("STRATEGY_NOT_FOUND", `Strategy '${name}' does not exist; available: ${ids().join(", ")}`);
  }
  return found;
};

const copyParameters = (d: StrategyDefinition): ParameterDefinition[] => d.parameters.map((p) => ({ ...p, options: p.options ? [...p.options] : undefined }));

/** Ids of every strategy in the catalog. */
export const ids = (): string[] => CATALOG.map((d) => d.strategy_id);

/** Whether a strategy id exists. */
export const exists = (name: string): boolean => CATALOG.some((d) => d.strategy_id === name) || registered.some((d) => d.strategy_id === name);

/**
 * Adds a strategy that `create`, `exists` and the engine find by its id, outside the catalog's
 * lists; returns what takes it away again. The seam for tests that run a strategy of their own
 * through the engine (a strategy that peeks at the next bar, for the bias checks).
 */
export const register = (added: StrategyDefinition): (() => void) => {
  if (exists(added.strategy_id)) throw new Error(`strategy '${added.strategy_id}' already exists`);
  registered.push(added);
  return () => {
    const index = registered.indexOf(added);
    if (index >= 0) registered.splice(index, 1);
  };
};

const summaryOf = (d: StrategyDefinition): StrategySummary => ({
  strategy_id: d.strategy_id,
  display_name: d.display_name,
  category: d.category,
  description: d.description,
  risk_level: d.risk_level,
  role: d.role,
});

const metadataOf = (d: StrategyDefinition): StrategyMetadata => {
  const defaults = defaultsOf(d.parameters);
  return {
    ...summaryOf(d),
    market_types: [...MARKET_TYPES],
    timeframes: [...d.timeframes],
    supported_timeframes: [...d.timeframes],
    min_history_bars: d.warmup(defaults),
    settle_bars: settleOf(d, defaults),
    parameters: copyParameters(d),
    default_parameters: defaults,
  };
};

/** Every strategy, summarised. */
export const list = (): StrategyList => ({
  strategies: CATALOG.map(summaryOf),
  total: CATALOG.length,
});

/** Details of one strategy; 404 `STRATEGY_NOT_FOUND` when unknown. */
export const get = (name: string): StrategyDetails => {
  const d = definition(name);
  return { ...metadataOf(d), recommended_risk: riskConfig(name) };
};

/** Metadata of every strategy (GET /strategies/metadata/all). */
export const metadataAll = (): StrategyMetadataList => ({
  strategies: CATALOG.map(metadataOf),
  total: CATALOG.length,
});

/** Recommended risk configuration of one strategy; 404 `STRATEGY_NOT_FOUND` when unknown. */
export const riskConfig = (name: string): RecommendedRisk => {
  const d = definition(name);
  return {
    strategy_name: d.strategy_id,
    risk_level: d.risk_level,
    base_preset: d.risk.preset,
    config: { ...riskPreset(d.risk.preset).config, ...d.risk.overrides },
  };
};

/** Parameter definitions of one strategy; 404 `STRATEGY_NOT_FOUND` when unknown. */
export const parameters = (name: string): ParameterList => {
  const d = definition(name);
  return { strategy_name: d.strategy_id, parameters: copyParameters(d), default_parameters: defaultsOf(d.parameters) };
};

/** A configuration template with defaults filled in; 404 `STRATEGY_NOT_FOUND` when unknown. */
export const template = (name: string): Template => {
  const d = definition(name);
  return {
    strategy_name: d.strategy_id,
    display_name: d.display_name,
    timeframe: d.timeframes[0],
    symbols: [],
    parameters: defaultsOf(d.parameters),
    risk_config: riskConfig(name).config,
  };
};

const mtfOf = (d: StrategyDefinition): MtfMetadata => ({
  strategy_id: d.strategy_id,
  display_name: d.display_name,
  description: d.description,
  role: d.role,
  default_parameters: defaultsOf(d.parameters),
  supported_timeframes: [...d.timeframes],
});

/**
 * MTF metadata of every strategy, or of those usable in `role`: a universal strategy serves
 * both as director and as executor, so it is listed under either. 422 for an unknown role.
 */
export const mtfMetadata = (role?: string): MtfMetadata[] => {
  if (role === undefined || role === "") return CATALOG.map(mtfOf);
  const parsed = Role.safeParse(role);
  if (!parsed.success) {
    throw new ValidationError([{ loc: ["query", "role"], msg: `role must be one of ${Role.options.join(", ")} (got '${role}')`, type: "enum" }]);
  }
  return CATALOG.filter((d) => d.role === parsed.data || (parsed.data !== "universal" && d.role === "universal")).map(mtfOf);
};

/** MTF metadata of one strategy; 404 `STRATEGY_NOT_FOUND` when unknown. */
export const mtfMetadataOne = (id: string): MtfMetadata => mtfOf(definition(id));

const checkParameters = (d: StrategyDefinition, input: unknown, prefix: string) => {
  const { values, errors } = resolveParameters(d.parameters, input, prefix);
  const warnings: ConfigIssue[] = [];
  // Cross-parameter rules only make sense once every value is individually valid.
  if (errors.length === 0) {
    const checked = d.check(values, prefix);
    errors.push(...checked.errors);
    warnings.push(...checked.warnings);
  }
  if (values.allow_short === true) {
    warnings.push(
      issue(
        "SHORT_SELLING_ENABLED",
        joinField(prefix, "allow_short"),
        "allow_short opens short positions, whose losses are not capped by the position's value",
      ),
    );
  }
  return { values, errors, warnings };
};

const TEMPLATE_FIELDS = ["strategy_name", "display_name", "timeframe", "symbols", "parameters", "risk_config"];

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value);

const validateTemplate = (d: StrategyDefinition, input: Record<string, unknown>, prefix: string): ValidationResult => {
  const errors: ConfigIssue[] = [];
  const warnings: ConfigIssue[] = [];
  for (const key of Object.keys(input)) {
    if (!TEMPLATE_FIELDS.includes(key)) {
      const field = joinField(prefix, key);
      errors.push(issue("UNKNOWN_FIELD", field, `${field} is not a field of a strategy configuration`));
    }
  }
  if (input.strategy_name !== undefined && input.strategy_name !== d.strategy_id) {
    const field = joinField(prefix, "strategy_name");
    errors.push(issue("INVALID_VALUE", field, `${field} '${String(input.strategy_name)}' does not match '${d.strategy_id}'`));
  }
  let timeframe: Timeframe = d.timeframes[0];
  if (input.timeframe !== undefined) {
    const field = joinField(prefix, "timeframe");
    const parsed = Timeframe.safeParse(input.timeframe);
    if (!parsed.success) {
      errors.push(issue("INVALID_VALUE", field, `${field} must be one of ${Timeframe.options.join(", ")} (got ${JSON.stringify(input.timeframe)})`));
    } else {
      timeframe = parsed.data;
      if (!d.timeframes.includes(timeframe)) {
        warnings.push(issue("UNUSUAL_TIMEFRAME", field, `${d.strategy_id} is meant for ${d.timeframes.join(", ")}, not ${timeframe}`));
      }
    }
  }
  let symbols: string[] = [];
  if (input.symbols !== undefined) {
    const field = joinField(prefix, "symbols");
    if (!Array.isArray(input.symbols) || input.symbols.some((s) => typeof s !== "string" || s.trim() === "")) {
      errors.push(issue("INVALID_TYPE", field, `${field} must be an array of symbols`));
    } else {
      symbols = input.symbols as string[];
    }
  }
  const params = checkParameters(d, input.parameters, joinField(prefix, "parameters"));
  errors.push(...params.errors);
  warnings.push(...params.warnings);
  const risk = validateRisk(
    { ...riskConfig(d.strategy_id).config, ...(isObject(input.risk_config) ? input.risk_config : {}) },
    joinField(prefix, "risk_config"),
  );
  if (input.risk_config !== undefined && !isObject(input.risk_config)) {
    const field = joinField(prefix, "risk_config");
    errors.push(issue("INVALID_TYPE", field, `${field} must be an object`));
  }
  errors.push(...risk.errors);
  warnings.push(...risk.warnings);
  if (errors.length > 0) return { valid: false, errors, warnings };
  return {
    valid: true,
    errors,
    warnings,
    config: { strategy_name: d.strategy_id, timeframe, symbols, parameters: params.values, risk_config: risk.config! },
  };
};

/**
 * Checks a strategy configuration (interface StrategyConfigResponse). `config` is either the
 * parameter map (`{"fast_period": 10}`) or a template-shaped object with `parameters`,
 * `risk_config`, `timeframe` and `symbols` (what `template` returns). Unknown strategies,
 * unknown or out-of-range parameters and contradictory ones (fast period not below slow) are
 * errors; legal but risky choices are warnings.
 */
export const validate = (name: string, config: unknown, prefix = ""): ValidationResult => {
  if (!exists(name)) {
    const field = joinField(prefix, "strategy_name");
    return {
      valid: false,
      errors: [issue("STRATEGY_NOT_FOUND", field, `strategy '${name}' does not exist; available: ${ids().join(", ")}`)],
      warnings: [],
    };
  }
  const d = definition(name);
  const templateShaped = isObject(config) && isObject(config.parameters) && !d.parameters.some((p) => p.name === "parameters");
  if (templateShaped) return validateTemplate(d, config, prefix);
  const { values, errors, warnings } = checkParameters(d, config, prefix);
  return errors.length > 0 ? { valid: false, errors, warnings } : { valid: true, errors, warnings, config: values };
};

/**
 * Builds a runnable instance; missing parameters take their defaults. 404 for an unknown
 * strategy, 422 listing every problem for invalid parameters.
 */
export const create = (name: string, params: unknown = {}): Strategy => {
  const d = definition(name);
  const { values, errors } = checkParameters(d, params ?? {}, "");
  if (errors.length > 0) {
    throw new ValidationError(errors.map((e) => ({ loc: ["parameters", ...(e.field ? e.field.split(".") : [])], msg: e.message, type: e.code.toLowerCase() })));
  }
  return d.create(values);
};

/** Bars of history a strategy needs before its first signal with the given parameters (defaults when omitted). */
export const warmupBars = (name: string, params: unknown = {}): number => create(name, params).warmupBars;

/** Bars of history after which a strategy's indicators have settled, with the given parameters (defaults when omitted). */
export const settleBars = (name: string, params: unknown = {}): number => create(name, params).settleBars;
