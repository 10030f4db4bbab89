/**
 * The request bodies of the market-data pass-through test endpoints (`/api/v1/api-test/pull/*`,
 * `/subscription/*`): their fields documented so that the OpenAPI document lists every accepted
 * spelling (symbol lists as arrays or comma-separated strings, periods, adjust types, sub types,
 * calc indexes), and ranges whose end precedes their start refused with the body's other problems.
 * The group in api-test-market.ts serves them; api-test-market-forwarding.ts wraps the answers.
 */
import { z } from "@hono/zod-openapi";
import { MarketInput } from "@tp/core/market/market";
import {
  AdjustTypeInput,
  CalcIndex,
  CalcIndexField,
  CalcIndexInput,
  DateInput,
  MarketDataLimits,
  Period,
  PeriodInput,
  QuoteRequestDefaults,
  SubType,
  SubTypeInput,
  TradeSessionsInput,
} from "@tp/core/provider/index";

// ---- request fields, documented: every accepted spelling is listed in the OpenAPI document ----

const options = (values: readonly string[]) => values.map((value) => `\`${value}\``).join(", ");

const SymbolField = z.string().trim().min(1).max(32).describe("Symbol in `ticker.region` form: `700.HK`, `AAPL.US`");

/**
 * A list field: a JSON array or a comma-separated string (as core's `listInput`), documented with
 * its item schema and with a plain message when it is missing or of another type.
 */
function listField<T extends z.ZodType<unknown, string>>(item: T, itemDoc: Record<string, unknown>, description: string, example: string, max?: number) {
  const list = z.array(item).min(1, "must name at least one");
  return z
    .union([z.array(z.string()), z.string()], {
      error: (issue) => (issue.input === undefined ? "Field required" : "must be an array of strings or a comma-separated string"),
    })
    .transform((value) => (Array.isArray(value) ? value : value.split(",")).map((entry) => entry.trim()).filter((entry) => entry.length > 0))
    .pipe(max === undefined ? list : list.max(max, `at most ${max}`))
    .openapi({
      anyOf: [
        { type: "array", items: itemDoc, minItems: 1, ...(max ? { maxItems: max } : {}) },
        { type: "string", description: "Comma-separated", example },
      ],
      description,
      example,
    });
}

const Symbols = listField(
  z.string().trim().min(1).max(32),
  { type: "string" },
  `Symbols in \`ticker.region\` form, at most ${MarketDataLimits.symbolsPerRequest}`,
  "700.HK,AAPL.US",
  MarketDataLimits.symbolsPerRequest,
);
const SubTypes = listField(
  SubTypeInput,
  { type: "string", enum: [...SubType.options, ...SubType.options.map((value) => value.toLowerCase())] },
  "Push types: `Quote` (quote pushes), `Depth` (order book), `Brokers` (HK broker queue; refused by the simulated market), `Trade` (ticks). Lower case accepted.",
  "Quote,Depth,Trade",
);
const Indexes = listField(
  CalcIndexInput,
  { type: "string", enum: [...CalcIndex.options, ...CalcIndex.options.map((name) => CalcIndexField[name])] },
  `Calculated indexes, by LongPort name or snake_case result field: ${options(CalcIndex.options)}. Option and warrant indexes are null for stocks.`,
  "LastDone,ChangeRate,PeTtmRatio",
);

const PeriodField = PeriodInput.default(QuoteRequestDefaults.period).describe(
  `Candle period: ${options(Period.options)} (\`1mo\` month, \`1q\` quarter); also \`60m\`, \`120m\`, \`180m\`, \`240m\` and the LongPort names (\`Min_1\` … \`Min_240\`, \`Day\`, \`Week\`, \`Month\`, \`Quarter\`, \`Year\`). Default \`${QuoteRequestDefaults.period}\`.`,
);
const AdjustTypeField = AdjustTypeInput.default(QuoteRequestDefaults.adjust_type).describe(
  "`NoAdjust` (actual prices, default) or `ForwardAdjust` (adjusted for splits and dividends); also `no_adjust`, `forward_adjust`.",
);
const TradeSessionsField = TradeSessionsInput.default(QuoteRequestDefaults.trade_sessions).describe(
  "`Intraday` (regular hours only, default) or `All` (pre-market, regular, after-hours, and overnight when enabled); also `intraday`, `all`.",
);
const CountField = (description: string) =>
  z
    .int()
    .min(1)
    .max(MarketDataLimits.count)
    .default(QuoteRequestDefaults.count)
    .describe(`${description} (1–${MarketDataLimits.count}, default ${QuoteRequestDefaults.count})`);
const MarketField = MarketInput.describe("Market: `US`, `HK`, `CN`, `SG` (lower case accepted). The simulated market serves US and HK.");
const DateField = (description: string) => DateInput.describe(`${description}, \`YYYY-MM-DD\` (a full ISO date-time is cut to its date)`);

/** A range whose end precedes its start is refused with the other problems of the body. */
const orderedRange =
  <K extends string>(from: K, to: K) =>
  (value: Record<K, string>, ctx: z.RefinementCtx) => {
    if (value[from] > value[to]) ctx.addIssue({ code: "custom", path: [to], message: `must not be before ${from} (${value[from]})` });
  };

export const SymbolsBody = z.object({ symbols: Symbols }).meta({ id: "ApiTestSymbolsRequest" });
export const SymbolBody = z.object({ symbol: SymbolField }).meta({ id: "ApiTestSymbolRequest" });
export const TradesBody = z.object({ symbol: SymbolField, count: CountField("Number of latest trades") }).meta({ id: "ApiTestTradesRequest" });
export const IntradayBody = z.object({ symbol: SymbolField, trade_sessions: TradeSessionsField }).meta({ id: "ApiTestIntradayRequest" });
export const CandlesticksBody = z
  .object({
    symbol: SymbolField,
    period: PeriodField,
    count: CountField("Number of latest candlesticks"),
    adjust_type: AdjustTypeField,
    trade_sessions: TradeSessionsField,
  })
  .meta({ id: "ApiTestCandlesticksRequest" });
export const HistoryCandlesticksBody = z
  .object({
    symbol: SymbolField,
    start: DateField("First trading date"),
    end: DateField("Last trading date"),
    period: PeriodField,
    adjust_type: AdjustTypeField,
    trade_sessions: TradeSessionsField,
  })
  .superRefine(orderedRange("start", "end"))
  .meta({ id: "ApiTestHistoryCandlesticksRequest" });
export const TradingDaysBody = z
  .object({ market: MarketField, begin: DateField("First date"), end: DateField("Last date") })
  .superRefine(orderedRange("begin", "end"))
  .meta({ id: "ApiTestTradingDaysRequest" });
export const CalcIndexesBody = z.object({ symbols: Symbols, indexes: Indexes }).meta({ id: "ApiTestCalcIndexesRequest" });
export const SubscribeBody = z
  .object({
    symbols: Symbols,
    sub_types: SubTypes,
    is_first_push: z.boolean().default(QuoteRequestDefaults.is_first_push).describe("Push the current state at once (default false)"),
  })
  .meta({ id: "ApiTestSubscribeRequest" });
export const UnsubscribeBody = z.object({ symbols: Symbols, sub_types: SubTypes }).meta({ id: "ApiTestUnsubscribeRequest" });
