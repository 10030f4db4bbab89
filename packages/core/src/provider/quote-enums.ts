import { z } from "zod";
import { enumWithAliases } from "./enum-input";

/**
 * Enumerations of the quote API, with the exact strings the HTTP layer accepts and the LongPort
 * Node SDK enum member each one maps to. Canonical values are what the service returns and what
 * the ports take; the `*Input` schemas also accept the aliases listed beside them and turn them
 * into canonical values. LongPort's Node enum *numbers* differ from its wire numbers (e.g.
 * `Period.Day` is 14 in Node but 1000 on the wire), so adapters map by member *name*.
 */

// ---- Period ----

/** Canonical candlestick periods: minutes, hours, day, week, month (`1mo`), quarter, year. */
export const Period = z.enum(["1m", "2m", "3m", "5m", "10m", "15m", "20m", "30m", "45m", "1h", "2h", "3h", "4h", "1d", "1w", "1mo", "1q", "1y"]);
export type Period = z.infer<typeof Period>;

/** LongPort `Period` member names, by canonical period. */
export const LongportPeriodName = {
  "1m": "Min_1",
  "2m": "Min_2",
  "3m": "Min_3",
  "5m": "Min_5",
  "10m": "Min_10",
  "15m": "Min_15",
  "20m": "Min_20",
  "30m": "Min_30",
  "45m": "Min_45",
  "1h": "Min_60",
  "2h": "Min_120",
  "3h": "Min_180",
  "4h": "Min_240",
  "1d": "Day",
  "1w": "Week",
  "1mo": "Month",
  "1q": "Quarter",
  "1y": "Year",
} as const satisfies Record<Period, string>;
export type LongportPeriodName = (typeof LongportPeriodName)[Period];

const periodAliases: Record<string, Period> = {
  "60m": "1h",
  "120m": "2h",
  "180m": "3h",
  "240m": "4h",
  ...Object.fromEntries(Object.entries(LongportPeriodName).map(([period, name]) => [name, period as Period])),
};

/** Period as accepted in requests: canonical names, `60m`/`120m`/`180m`/`240m`, or LongPort names (`Min_5`, `Day`). */
export const PeriodInput = enumWithAliases(Period.options, periodAliases);

/** Length of an intraday period in minutes, or null for `1d` and longer. */
export function periodMinutes(period: Period): number | null {
  switch (period) {
    case "1m":
      return 1;
    case "2m":
      return 2;
    case "3m":
      return 3;
    case "5m":
      return 5;
    case "10m":
      return 10;
    case "15m":
      return 15;
    case "20m":
      return 20;
    case "30m":
      return 30;
    case "45m":
      return 45;
    case "1h":
      return 60;
    case "2h":
      return 120;
    case "3h":
      return 180;
    case "4h":
      return 240;
    default:
      return null;
  }
}

/** The canonical period of a LongPort `Period` member name. */
export function periodFromLongport(name: LongportPeriodName): Period {
  return periodAliases[name];
}

// ---- AdjustType ----

/** Price adjustment: `NoAdjust` (actual prices) or `ForwardAdjust` (adjusted for corporate actions). */
export const AdjustType = z.enum(["NoAdjust", "ForwardAdjust"]);
export type AdjustType = z.infer<typeof AdjustType>;
/** Adjust type as accepted in requests; also `no_adjust` and `forward_adjust`. */
export const AdjustTypeInput = enumWithAliases(AdjustType.options, { no_adjust: "NoAdjust", forward_adjust: "ForwardAdjust" });

// ---- TradeSessions ----

/** Which sessions a query covers: `Intraday` (regular hours only) or `All` (pre, regular, post, and overnight when enabled). */
export const TradeSessions = z.enum(["Intraday", "All"]);
export type TradeSessions = z.infer<typeof TradeSessions>;
/** Trade sessions as accepted in requests; also `intraday` and `all`. */
export const TradeSessionsInput = enumWithAliases(TradeSessions.options, { intraday: "Intraday", all: "All" });

// ---- SubType ----

/** Push subscription types, as LongPort's `SubType`: quote, depth, broker queue (HK), trades. */
export const SubType = z.enum(["Quote", "Depth", "Brokers", "Trade"]);
export type SubType = z.infer<typeof SubType>;
/** Sub type as accepted in requests; also lower case (`quote`, `depth`, `brokers`, `trade`). */
export const SubTypeInput = enumWithAliases(SubType.options, { quote: "Quote", depth: "Depth", brokers: "Brokers", trade: "Trade" });

// ---- CalcIndex ----

/** The calculated indexes of warrants and options only (expiry, strike, greeks…): a stock has none of them. */
export const DERIVATIVE_CALC_INDEXES = [
  "ExpiryDate",
  "StrikePrice",
  "UpperStrikePrice",
  "LowerStrikePrice",
  "OutstandingQty",
  "OutstandingRatio",
  "Premium",
  "ItmOtm",
  "ImpliedVolatility",
  "WarrantDelta",
  "CallPrice",
  "ToCallPrice",
  "EffectiveLeverage",
  "LeverageRatio",
  "ConversionRatio",
  "BalancePoint",
  "OpenInterest",
  "Delta",
  "Gamma",
  "Theta",
  "Vega",
  "Rho",
] as const;

/** Calculated indexes, named as LongPort's `CalcIndex` members; the JSON field of each is in `CalcIndexField`. */
export const CalcIndex = z.enum([
  "LastDone",
  "ChangeValue",
  "ChangeRate",
  "Volume",
  "Turnover",
  "YtdChangeRate",
  "TurnoverRate",
  "TotalMarketValue",
  "CapitalFlow",
  "Amplitude",
  "VolumeRatio",
  "PeTtmRatio",
  "PbRatio",
  "DividendRatioTtm",
  "FiveDayChangeRate",
  "TenDayChangeRate",
  "HalfYearChangeRate",
  "FiveMinutesChangeRate",
  ...DERIVATIVE_CALC_INDEXES,
]);
export type CalcIndex = z.infer<typeof CalcIndex>;

/** The snake_case result field of each calc index (`LastDone` → `last_done`). */
export const CalcIndexField = Object.fromEntries(CalcIndex.options.map((name) => [name, name.replace(/([a-z])([A-Z])/g, "$1_$2").toLowerCase()])) as Record<
  CalcIndex,
  string
>;

/** Calc index as accepted in requests: the LongPort name or its snake_case field (`last_done`). */
export const CalcIndexInput = enumWithAliases(
  CalcIndex.options,
  Object.fromEntries(CalcIndex.options.map((name) => [CalcIndexField[name], name])) as Record<string, CalcIndex>,
);

// ---- values that only appear in results ----

/** Security trading status, as LongPort's `TradeStatus` member names. */
export const TradeStatus = z.enum([
  "Normal",
  "Halted",
  "Delisted",
  "Fuse",
  "PrepareList",
  "CodeMoved",
  "ToBeOpened",
  "SplitStockHalts",
  "Expired",
  "WarrantPrepareList",
  "Suspend",
]);
export type TradeStatus = z.infer<typeof TradeStatus>;

/** Direction of a trade against the previous one. */
export const TradeDirection = z.enum(["Neutral", "Down", "Up"]);
export type TradeDirection = z.infer<typeof TradeDirection>;

/** Derivatives a security has, as LongPort's `DerivativeType`. */
export const DerivativeType = z.enum(["Option", "Warrant"]);
export type DerivativeType = z.infer<typeof DerivativeType>;

/**
 * A request field that takes a list either as a JSON array or as a comma-separated string
 * (`"AAPL.US,700.HK"`), as the api-test endpoints allow for `symbols`, `indexes` and `sub_types`.
 */
export function listInput<T extends z.ZodType<unknown, string>>(item: T, options: { max?: number } = {}) {
  const list = z.array(item).min(1);
  return z
    .union([z.array(z.string()), z.string()])
    .transform((value) => (Array.isArray(value) ? value : value.split(",")).map((entry) => entry.trim()).filter((entry) => entry.length > 0))
    .pipe(options.max === undefined ? list : list.max(options.max));
}
