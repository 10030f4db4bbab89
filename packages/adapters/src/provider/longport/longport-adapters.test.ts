import type * as Sdk from "longport";
import { beforeAll, describe, expect, it } from "vitest";
import type { PushQuoteEvent } from "@tp/core/provider/quote-types";
import { loadLongport } from "./sdk";
import { LongportRateLimits, PacingQueue } from "../rate-limit";
import type { LongportSdk } from "./codec";
import { LongportMarketData } from "./longport-market-data";
import { LongportOrderGateway } from "./longport-order-gateway";

/**
 * The adapters against the real SDK module with its QuoteContext/TradeContext replaced by
 * recording stand-ins (the real ones need the network): what the SDK receives and how its
 * answers and failures come back.
 */
let sdk: LongportSdk;
let E: Record<string, Record<string, number>>;
beforeAll(async () => {
  sdk = await loadLongport();
  E = sdk as unknown as Record<string, Record<string, number>>;
});

const settings = { app_key: "key", app_secret: "secret", access_token: "token", language: "en" as const, enable_overnight: false };
const dec = (value: string) => new sdk.Decimal(value);

/** What every trade context the gateway opens is asked besides the call under test: the private topic's order-changed pushes. */
const tradeSocket = { subscribe: async () => undefined, setOnOrderChanged: () => undefined };

/** An SDK module whose contexts are `context`; `failures` connection attempts fail first. */
function fakeSdk(kind: "QuoteContext" | "TradeContext", context: object, state = { connects: 0, failures: 0 }) {
  const module = {
    ...sdk,
    [kind]: {
      new: async (config: Sdk.Config) => {
        expect(config).toBeInstanceOf(sdk.Config);
        state.connects += 1;
        if (state.connects <= state.failures)
          throw new Error("error sending request for url (https://openapi.longportapp.com/v1/socket/token): client error (Connect)");
        return context;
      },
    },
  };
  return { sdk: async () => module as unknown as LongportSdk, state };
}

const candle = (close: string, timestamp: string) => ({
  close: dec(close),
  open: dec("600"),
  low: dec("598.5"),
  high: dec("612.5"),
  volume: 20_000_000,
  turnover: dec("12100000000"),
  timestamp: new Date(timestamp),
  tradeSession: E.TradeSession.Intraday,
});

describe("LongportMarketData", () => {
  it("hands the SDK normalised symbols and enum numbers by member name, and answers plain JSON", async () => {
    const received: unknown[][] = [];
    const context = {
      candlesticks: async (...args: unknown[]) => {
        received.push(args);
        return [candle("610.000", "2026-03-08T16:00:00Z"), candle("612.500", "2026-03-09T16:00:00Z")];
      },
      historyCandlesticksByDate: async (...args: unknown[]) => {
        received.push(args);
        return [];
      },
    };
    const { sdk: load } = fakeSdk("QuoteContext", context);
    const market = new LongportMarketData({ settings, timeoutMs: 1000, limiter: new PacingQueue(LongportRateLimits.quote), sdk: load });

    const bars = await market.candlesticks("00700.hk", "1d", 2, "ForwardAdjust", "All");
    expect(received[0]).toEqual(["700.HK", E.Period.Day, 2, E.AdjustType.ForwardAdjust, E.TradeSessions.All]);
    expect(bars.map((bar) => [bar.close, bar.timestamp, bar.trade_session])).toEqual([
      ["610.000", "2026-03-08T16:00:00.000Z", "Intraday"],
      ["612.500", "2026-03-09T16:00:00.000Z", "Intraday"],
    ]);

    await market.historyCandlesticksByDate("AAPL.US", "1h", "NoAdjust", null, "2026-03-06", "Intraday");
    const [symbol, period, adjust, start, end] = received[1] as [string, number, number, null, Sdk.NaiveDate];
    expect([symbol, period, adjust, start]).toEqual(["AAPL.US", E.Period.Min_60, E.AdjustType.NoAdjust, null]);
    expect(end).toBeInstanceOf(sdk.NaiveDate);
    expect(end.toString()).toBe("2026-03-06");
  });

  it("answers LongPort's refusal as PROVIDER_ERROR with its code", async () => {
    const context = { quote: async () => Promise.reject(new Error("openapi error: code=301600: invalid symbol")) };
    const market = new LongportMarketData({
      settings,
      timeoutMs: 1000,
      limiter: new PacingQueue(LongportRateLimits.quote),
      sdk: fakeSdk("QuoteContext", context).sdk,
    });
    await expect(market.quote(["700.HK"])).rejects.toMatchObject({ status: 502, code: "PROVIDER_ERROR", extra: { provider_code: 301600 } });
  });

  it("answers a failed connection as PROVIDER_UNAVAILABLE and connects again on the next call", async () => {
    const context = { tradingDays: async () => ({ tradingDays: [new sdk.NaiveDate(2026, 3, 9)], halfTradingDays: [] }) };
    const { sdk: load, state } = fakeSdk("QuoteContext", context, { connects: 0, failures: 1 });
    const market = new LongportMarketData({ settings, timeoutMs: 1000, limiter: new PacingQueue(LongportRateLimits.quote), sdk: load });
    await expect(market.tradingDays("HK", "2026-03-09", "2026-03-09")).rejects.toMatchObject({ status: 503, code: "PROVIDER_UNAVAILABLE" });
    expect(await market.tradingDays("HK", "2026-03-09", "2026-03-09")).toEqual({ trading_days: ["2026-03-09"], half_trading_days: [] });
    expect(state.connects).toBe(2);
  });

  it("times out a call that does not answer", async () => {
    const context = { depth: () => new Promise(() => undefined) };
    const market = new LongportMarketData({
      settings,
      timeoutMs: 20,
      limiter: new PacingQueue(LongportRateLimits.quote),
      sdk: fakeSdk("QuoteContext", context).sdk,
    });
    await expect(market.depth("700.HK")).rejects.toMatchObject({ status: 504, code: "PROVIDER_TIMEOUT" });
  });

  it("answers the sub types it subscribed, not the SDK's, which reads every one as Quote", async () => {
    const held = new Map<string, number>();
    const context = {
      subscribe: async (symbols: string[], subTypes: number[]) => {
        for (const symbol of symbols) held.set(symbol, (held.get(symbol) ?? 0) + subTypes.length);
      },
      unsubscribe: async (symbols: string[], subTypes: number[]) => {
        for (const symbol of symbols) held.set(symbol, held.get(symbol)! - subTypes.length);
      },
      // What longport 3.0.18 answers: one `Quote` per sub type held, and the candlestick periods.
      subscriptions: async () =>
        [...held].map(([symbol, count]) => ({
          symbol,
          subTypes: Array(count).fill(E.SubType.Quote),
          candlesticks: symbol === "700.HK" ? [E.Period.Min_1] : [],
        })),
    };
    const market = new LongportMarketData({
      settings,
      timeoutMs: 1000,
      limiter: new PacingQueue(LongportRateLimits.quote),
      sdk: fakeSdk("QuoteContext", context).sdk,
    });
    await market.subscribe(["00700.hk", "AAPL.US"], ["Trade", "Depth"], false);
    await market.subscribe(["AAPL.US"], ["Quote"], false);
    await market.unsubscribe(["700.HK"], ["Depth"]);
    expect(await market.subscriptions()).toEqual([
      { symbol: "700.HK", sub_types: ["Trade"], candlesticks: ["1m"] },
      { symbol: "AAPL.US", sub_types: ["Quote", "Depth", "Trade"], candlesticks: [] },
    ]);
  });

  it("installs a push handler set before the connection opens, converting the SDK's events", async () => {
    let callback: ((error: Error | null, event: unknown) => void) | undefined;
    const context = {
      setOnQuote: (installed: typeof callback) => (callback = installed),
      setOnDepth: () => undefined,
      setOnTrades: () => undefined,
      setOnCandlestick: () => undefined,
      subscribe: async () => undefined,
    };
    const market = new LongportMarketData({
      settings,
      timeoutMs: 1000,
      limiter: new PacingQueue(LongportRateLimits.quote),
      sdk: fakeSdk("QuoteContext", context).sdk,
    });
    const events: PushQuoteEvent[] = [];
    market.setOnQuote((event) => events.push(event));
    await market.subscribe(["700.HK"], ["Quote"], true);
    callback!(null, {
      symbol: "700.HK",
      data: {
        lastDone: dec("612.5"),
        open: dec("600"),
        high: dec("613"),
        low: dec("598.5"),
        timestamp: new Date("2026-03-10T03:00:00Z"),
        volume: 9_000_000,
        turnover: dec("5500000000"),
        tradeStatus: E.TradeStatus.Normal,
        tradeSession: E.TradeSession.Intraday,
        currentVolume: 300,
        currentTurnover: dec("183750"),
      },
    });
    expect(events).toEqual([
      {
        symbol: "700.HK",
        data: {
          last_done: "612.5",
          open: "600",
          high: "613",
          low: "598.5",
          timestamp: "2026-03-10T03:00:00.000Z",
          volume: 9_000_000,
          turnover: "5500000000",
          trade_status: "Normal",
          trade_session: "Intraday",
          current_volume: 300,
          current_turnover: "183750",
        },
      },
    ]);
  });
});

describe("LongportOrderGateway", () => {
  it("submits an order with SDK values and answers the order id", async () => {
    let received: Sdk.SubmitOrderOptions | undefined;
    const context = {
      submitOrder: async (options: Sdk.SubmitOrderOptions) => {
        received = options;
        return { orderId: "709043056541253632" };
      },
    };
    const gateway = new LongportOrderGateway({
      settings,
      timeoutMs: 1000,
      limiter: new PacingQueue(LongportRateLimits.trade),
      sdk: fakeSdk("TradeContext", { ...tradeSocket, ...context }).sdk,
    });
    const answer = await gateway.submitOrder({
      symbol: "00700.HK",
      order_type: "LO",
      side: "Sell",
      submitted_quantity: "200",
      time_in_force: "Day",
      submitted_price: "612.5",
    });
    expect(answer).toEqual({ order_id: "709043056541253632" });
    expect(received).toMatchObject({ symbol: "700.HK", orderType: E.OrderType.LO, side: E.OrderSide.Sell, timeInForce: E.TimeInForceType.Day });
    expect(received!.submittedQuantity.toString()).toBe("200");
    expect(received!.submittedPrice!.toString()).toBe("612.5");
  });

  it("asks the SDK for holdings of normalised symbols and answers them as plain JSON", async () => {
    let received: unknown;
    const context = {
      stockPositions: async (symbols: string[] | undefined) => {
        received = symbols;
        return {
          channels: [
            {
              accountChannel: "lb",
              positions: [
                {
                  symbol: "700.HK",
                  symbolName: "Tencent",
                  quantity: dec("300"),
                  availableQuantity: dec("300"),
                  currency: "HKD",
                  costPrice: dec("401.2"),
                  market: E.Market.HK,
                  initQuantity: null,
                },
              ],
            },
          ],
        };
      },
    };
    const gateway = new LongportOrderGateway({
      settings,
      timeoutMs: 1000,
      limiter: new PacingQueue(LongportRateLimits.trade),
      sdk: fakeSdk("TradeContext", { ...tradeSocket, ...context }).sdk,
    });
    expect(await gateway.stockPositions(["00700.hk"])).toEqual({
      channels: [
        {
          account_channel: "lb",
          positions: [
            {
              symbol: "700.HK",
              symbol_name: "Tencent",
              quantity: "300",
              available_quantity: "300",
              currency: "HKD",
              cost_price: "401.2",
              market: "HK",
              init_quantity: null,
            },
          ],
        },
      ],
    });
    expect(received).toEqual(["700.HK"]);
  });
});
