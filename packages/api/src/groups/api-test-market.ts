import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { DomainError } from "@tp/core/errors";
import { MarketInput } from "@tp/core/market/market";
import type { MarketData } from "@tp/core/provider/market-data";
import {
  AdjustTypeInput,
  CalcIndex,
  CalcIndexField,
  CalcIndexInput,
  Candlestick,
  DateInput,
  IntradayLine,
  MarketDataLimits,
  MarketTradingDays,
  MarketTradingSession,
  Period,
  PeriodInput,
  QuoteRequestDefaults,
  RealtimeQuote,
  SecurityCalcIndex,
  SecurityDepth,
  SecurityQuote,
  SecurityStaticInfo,
  Subscription,
  SubType,
  SubTypeInput,
  Trade,
  TradeSessionsInput,
} from "@tp/core/provider/index";
import { bearer, createGroup, errorResponses, json, jsonBody, requireAuth, type AppEnv, type GroupServices } from "../http/group";
import { log } from "@tp/core/log";

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

const SymbolsBody = z.object({ symbols: Symbols }).meta({ id: "ApiTestSymbolsRequest" });
const SymbolBody = z.object({ symbol: SymbolField }).meta({ id: "ApiTestSymbolRequest" });
const TradesBody = z.object({ symbol: SymbolField, count: CountField("Number of latest trades") }).meta({ id: "ApiTestTradesRequest" });
const IntradayBody = z.object({ symbol: SymbolField, trade_sessions: TradeSessionsField }).meta({ id: "ApiTestIntradayRequest" });
const CandlesticksBody = z
  .object({
    symbol: SymbolField,
    period: PeriodField,
    count: CountField("Number of latest candlesticks"),
    adjust_type: AdjustTypeField,
    trade_sessions: TradeSessionsField,
  })
  .meta({ id: "ApiTestCandlesticksRequest" });
const HistoryCandlesticksBody = z
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
const TradingDaysBody = z
  .object({ market: MarketField, begin: DateField("First date"), end: DateField("Last date") })
  .superRefine(orderedRange("begin", "end"))
  .meta({ id: "ApiTestTradingDaysRequest" });
const CalcIndexesBody = z.object({ symbols: Symbols, indexes: Indexes }).meta({ id: "ApiTestCalcIndexesRequest" });
const SubscribeBody = z
  .object({
    symbols: Symbols,
    sub_types: SubTypes,
    is_first_push: z.boolean().default(QuoteRequestDefaults.is_first_push).describe("Push the current state at once (default false)"),
  })
  .meta({ id: "ApiTestSubscribeRequest" });
const UnsubscribeBody = z.object({ symbols: Symbols, sub_types: SubTypes }).meta({ id: "ApiTestUnsubscribeRequest" });

// ---- result shapes (`data`): the MarketData port's own schemas (core `quote-types`), wrapped ----

const ApiTestErrorDetail = z
  .object({
    code: z
      .string()
      .describe(
        'Stable code: SYMBOL_NOT_FOUND, MARKET_NOT_SUPPORTED, INVALID_SYMBOL, SUB_TYPE_NOT_SUPPORTED, PROVIDER_UNAVAILABLE, PROVIDER_ERROR, PROVIDER_AUTH_FAILED, PROVIDER_RATE_LIMITED (429, `retry_after`), PROVIDER_TOKEN_EXPIRED (503), PROVIDER_CONNECTION_LIMIT (503), PROVIDER_DUPLICATE_REQUEST (409), PROVIDER_TIMEOUT, ... (docs/provider-settings.md "Errors")',
      ),
    message: z.string(),
    status: z.int().describe("The HTTP status the same failure has on the service's other endpoints"),
  })
  .catchall(z.unknown())
  .describe("Extra fields when known: `provider_code` (LongPort's code), `market`, `retry_after`")
  .meta({ id: "ApiTestErrorDetail" });

/** ApiTestResponse with its `data` shape: `success` true with `data`, or false with `error` (still HTTP 200). */
const apiTestResponse = <T extends z.ZodType>(data: T, id: string) =>
  z
    .object({
      success: z.boolean(),
      message: z.string().describe("What happened, naming the provider"),
      data: data.nullable().describe("The provider's result; null on failure"),
      error: ApiTestErrorDetail.nullable().describe("Why the provider call failed; null on success"),
    })
    .meta({ id });

// ---- forwarding ----

type ErrorDetail = z.infer<typeof ApiTestErrorDetail>;

/** The `error` of a failed call: a DomainError's code, message, status and extras; anything else a PROVIDER_ERROR. */
function errorDetail(error: unknown, action: string): ErrorDetail {
  if (error instanceof DomainError) return { ...error.extra, code: error.code, message: error.message, status: error.status };
  // Not a mapped provider failure: keep the trace in the logs, answer the text.
  log.error(`api-test ${action} failed`, { error: String((error as Error)?.stack ?? error) });
  return { code: "PROVIDER_ERROR", message: error instanceof Error ? error.message : String(error), status: 502 };
}

const providerLabel = { simulated: "the simulated market", longport: "LongPort" } as const;

/**
 * Calls the selected provider once and wraps the outcome: a provider failure (unknown symbol,
 * unsupported market, LongPort unreachable) is `success: false` with `error`, never an HTTP error.
 */
async function forward<T>(
  services: GroupServices<"providers">,
  c: Context<AppEnv>,
  action: string,
  run: (market: MarketData) => Promise<T>,
  summary: (data: T) => string,
) {
  let label = "the provider";
  try {
    const provider = await services.providers.active();
    label = providerLabel[provider.type];
    const data = await run(provider.marketData);
    return c.json({ success: true, message: `${summary(data)} from ${label}`, data, error: null }, 200);
  } catch (error) {
    const detail = errorDetail(error, action);
    return c.json({ success: false, message: `${action} failed at ${label}: ${detail.message}`, data: null, error: detail }, 200);
  }
}

const count = (items: unknown[], noun: string, plural = `${noun}s`) => `${items.length} ${items.length === 1 ? noun : plural}`;

const tags = ["api-test"];
const descriptions = {
  pull: "Forwards to the selected provider's QuoteContext. A provider failure answers 200 with `success: false` and `error`; an invalid body answers 422.",
  subscription:
    "Subscriptions live in the provider connection of the serving process: the simulated market keeps them per process (per Lambda instance on AWS), LongPort per connection. A provider failure answers 200 with `success: false`; an invalid body answers 422.",
};

/** A pass-through route with a JSON body. */
const routeWithBody = <B extends z.ZodType, D extends z.ZodType>(kind: "pull" | "subscription", name: string, summary: string, body: B, data: D, id: string) =>
  createRoute({
    method: "post",
    path: `/api/v1/api-test/${kind}/${name}`,
    tags,
    summary,
    description: descriptions[kind],
    security: bearer,
    request: jsonBody(body),
    responses: { 200: json(apiTestResponse(data, id), "The provider's answer, wrapped"), ...errorResponses({ auth: true }) },
  });

/** A pass-through route that takes no body (one sent is ignored). */
const routeWithoutBody = <D extends z.ZodType>(kind: "pull" | "subscription", name: string, summary: string, data: D, id: string) =>
  createRoute({
    method: "post",
    path: `/api/v1/api-test/${kind}/${name}`,
    tags,
    summary,
    description: descriptions[kind],
    security: bearer,
    responses: { 200: json(apiTestResponse(data, id), "The provider's answer, wrapped"), ...errorResponses({ auth: true }) },
  });
const pullRoute = <B extends z.ZodType, D extends z.ZodType>(name: string, summary: string, body: B, data: D, id: string) =>
  routeWithBody("pull", name, summary, body, data, id);
const subscriptionRoute = <B extends z.ZodType, D extends z.ZodType>(name: string, summary: string, body: B, data: D, id: string) =>
  routeWithBody("subscription", name, summary, body, data, id);

/**
 * The market-data pass-through test endpoints (`/api/v1/api-test/pull/*`, `/subscription/*`):
 * each forwards one call to the selected provider's `MarketData` and wraps the outcome as
 * ApiTestResponse `{success, message, data, error}`.
 */
export function apiTestMarketGroup(services: GroupServices<"providers">) {
  const app = createGroup();
  app.use("/api/v1/api-test/pull/*", requireAuth(services));
  app.use("/api/v1/api-test/subscription/*", requireAuth(services));

  app.openapi(pullRoute("static-info", "Static reference data of securities", SymbolsBody, z.array(SecurityStaticInfo), "ApiTestStaticInfoResponse"), (c) => {
    const { symbols } = c.req.valid("json");
    return forward(
      services,
      c,
      "static-info",
      (market) => market.staticInfo(symbols),
      (data) => `Static info of ${count(data, "security", "securities")}`,
    );
  });

  app.openapi(pullRoute("quote", "Snapshot quotes of securities", SymbolsBody, z.array(SecurityQuote), "ApiTestQuoteResponse"), (c) => {
    const { symbols } = c.req.valid("json");
    return forward(
      services,
      c,
      "quote",
      (market) => market.quote(symbols),
      (data) => `Quotes of ${count(data, "security", "securities")}`,
    );
  });

  app.openapi(pullRoute("depth", "Order book of a security", SymbolBody, SecurityDepth, "ApiTestDepthResponse"), (c) => {
    const { symbol } = c.req.valid("json");
    return forward(
      services,
      c,
      "depth",
      (market) => market.depth(symbol),
      (data) => `Order book of ${symbol}: ${data.asks.length} ask and ${data.bids.length} bid levels`,
    );
  });

  app.openapi(pullRoute("trades", "Latest trades of a security, oldest first", TradesBody, z.array(Trade), "ApiTestTradesResponse"), (c) => {
    const { symbol, count: wanted } = c.req.valid("json");
    return forward(
      services,
      c,
      "trades",
      (market) => market.trades(symbol, wanted),
      (data) => `${count(data, "trade")} of ${symbol}`,
    );
  });

  app.openapi(pullRoute("intraday", "Minute lines of the latest trading day", IntradayBody, z.array(IntradayLine), "ApiTestIntradayResponse"), (c) => {
    const { symbol, trade_sessions: sessions } = c.req.valid("json");
    return forward(
      services,
      c,
      "intraday",
      (market) => market.intraday(symbol, sessions),
      (data) => `${count(data, "intraday line")} of ${symbol}`,
    );
  });

  app.openapi(
    pullRoute(
      "candlesticks",
      "Latest candlesticks, oldest first (the last may still be forming)",
      CandlesticksBody,
      z.array(Candlestick),
      "ApiTestCandlesticksResponse",
    ),
    (c) => {
      const body = c.req.valid("json");
      return forward(
        services,
        c,
        "candlesticks",
        (market) => market.candlesticks(body.symbol, body.period, body.count, body.adjust_type, body.trade_sessions),
        (data) => `${count(data, `${body.period} candlestick`)} of ${body.symbol}`,
      );
    },
  );

  app.openapi(
    pullRoute("trading-days", "Trading days and half days of a market between two dates", TradingDaysBody, MarketTradingDays, "ApiTestTradingDaysResponse"),
    (c) => {
      const { market: name, begin, end } = c.req.valid("json");
      return forward(
        services,
        c,
        "trading-days",
        (market) => market.tradingDays(name, begin, end),
        (data) => `${data.trading_days.length} trading days and ${data.half_trading_days.length} half days of ${name} from ${begin} to ${end}`,
      );
    },
  );

  app.openapi(
    routeWithoutBody("pull", "trading-session", "Daily session timetable of each market", z.array(MarketTradingSession), "ApiTestTradingSessionResponse"),
    (c) =>
      forward(
        services,
        c,
        "trading-session",
        (market) => market.tradingSession(),
        (data) => `Session timetables of ${count(data, "market")}`,
      ),
  );

  app.openapi(pullRoute("calc-indexes", "Calculated indexes of securities", CalcIndexesBody, z.array(SecurityCalcIndex), "ApiTestCalcIndexesResponse"), (c) => {
    const { symbols, indexes } = c.req.valid("json");
    return forward(
      services,
      c,
      "calc-indexes",
      (market) => market.calcIndexes(symbols, indexes as CalcIndex[]),
      (data) => `${indexes.length} indexes of ${count(data, "security", "securities")}`,
    );
  });

  app.openapi(
    pullRoute(
      "history-candlesticks",
      "Candlesticks whose trading date lies in [start, end]",
      HistoryCandlesticksBody,
      z.array(Candlestick),
      "ApiTestHistoryCandlesticksResponse",
    ),
    (c) => {
      const body = c.req.valid("json");
      return forward(
        services,
        c,
        "history-candlesticks",
        (market) => market.historyCandlesticksByDate(body.symbol, body.period, body.adjust_type, body.start, body.end, body.trade_sessions),
        (data) => `${count(data, `${body.period} candlestick`)} of ${body.symbol} from ${body.start} to ${body.end}`,
      );
    },
  );

  app.openapi(routeWithoutBody("subscription", "subscriptions", "Current subscriptions", z.array(Subscription), "ApiTestSubscriptionsResponse"), (c) =>
    forward(
      services,
      c,
      "subscriptions",
      (market) => market.subscriptions(),
      (data) => `${count(data, "subscribed symbol")}`,
    ),
  );

  app.openapi(
    subscriptionRoute(
      "subscribe",
      "Subscribe symbols to push types; answers the subscriptions afterwards",
      SubscribeBody,
      z.array(Subscription),
      "ApiTestSubscribeResponse",
    ),
    (c) => {
      const { symbols, sub_types: subTypes, is_first_push: isFirstPush } = c.req.valid("json");
      return forward(
        services,
        c,
        "subscribe",
        async (market) => {
          await market.subscribe(symbols, subTypes as SubType[], isFirstPush);
          return market.subscriptions();
        },
        (data) => `Subscribed ${symbols.join(", ")} to ${subTypes.join(", ")}; ${count(data, "subscribed symbol")}`,
      );
    },
  );

  app.openapi(
    subscriptionRoute(
      "unsubscribe",
      "Remove push types from symbols; answers the subscriptions afterwards",
      UnsubscribeBody,
      z.array(Subscription),
      "ApiTestUnsubscribeResponse",
    ),
    (c) => {
      const { symbols, sub_types: subTypes } = c.req.valid("json");
      return forward(
        services,
        c,
        "unsubscribe",
        async (market) => {
          await market.unsubscribe(symbols, subTypes as SubType[]);
          return market.subscriptions();
        },
        (data) => `Unsubscribed ${symbols.join(", ")} from ${subTypes.join(", ")}; ${count(data, "subscribed symbol")} left`,
      );
    },
  );

  app.openapi(
    subscriptionRoute(
      "realtime-quote",
      "Latest pushed quotes of subscribed symbols (symbols without a Quote subscription are left out)",
      SymbolsBody,
      z.array(RealtimeQuote),
      "ApiTestRealtimeQuoteResponse",
    ),
    (c) => {
      const { symbols } = c.req.valid("json");
      return forward(
        services,
        c,
        "realtime-quote",
        (market) => market.realtimeQuote(symbols),
        (data) => `Realtime quotes of ${count(data, "subscribed security", "subscribed securities")}`,
      );
    },
  );

  app.openapi(
    subscriptionRoute(
      "realtime-depth",
      "Latest pushed order book (empty without a Depth subscription)",
      SymbolBody,
      SecurityDepth,
      "ApiTestRealtimeDepthResponse",
    ),
    (c) => {
      const { symbol } = c.req.valid("json");
      return forward(
        services,
        c,
        "realtime-depth",
        (market) => market.realtimeDepth(symbol),
        (data) => `Realtime order book of ${symbol}: ${data.asks.length} ask and ${data.bids.length} bid levels`,
      );
    },
  );

  app.openapi(
    subscriptionRoute(
      "realtime-trades",
      "Latest pushed trades, oldest first (empty without a Trade subscription)",
      TradesBody,
      z.array(Trade),
      "ApiTestRealtimeTradesResponse",
    ),
    (c) => {
      const { symbol, count: wanted } = c.req.valid("json");
      return forward(
        services,
        c,
        "realtime-trades",
        (market) => market.realtimeTrades(symbol, wanted),
        (data) => `${count(data, "realtime trade")} of ${symbol}`,
      );
    },
  );

  return app;
}
