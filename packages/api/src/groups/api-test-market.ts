import { z } from "@hono/zod-openapi";
import {
  type CalcIndex,
  Candlestick,
  IntradayLine,
  MarketTradingDays,
  MarketTradingSession,
  RealtimeQuote,
  SecurityCalcIndex,
  SecurityDepth,
  SecurityQuote,
  SecurityStaticInfo,
  Subscription,
  type SubType,
  Trade,
} from "@tp/core/provider/index";
import { createGroup, requireAuth, type GroupServices } from "../http/group";
import {
  CalcIndexesBody,
  CandlesticksBody,
  HistoryCandlesticksBody,
  IntradayBody,
  SubscribeBody,
  SymbolBody,
  SymbolsBody,
  TradesBody,
  TradingDaysBody,
  UnsubscribeBody,
} from "./api-test-market-requests";
import { count, forward, pullRoute, routeWithoutBody, subscriptionRoute } from "./api-test-market-forwarding";

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
