import type { QuoteContext } from "longport";
import type { Market } from "@tp/core/market/market";
import { normalizeSymbol } from "@tp/core/market/market";
import type { IsoDate } from "@tp/core/market/zoned-time";
import type { MarketData, PushHandler } from "@tp/core/provider/market-data";
import { type AdjustType, type CalcIndex, type Period, SubType, type TradeSessions } from "@tp/core/provider/quote-enums";
import type {
  Candlestick,
  IntradayLine,
  MarketTradingDays,
  MarketTradingSession,
  PushCandlestickEvent,
  PushDepthEvent,
  PushQuoteEvent,
  PushTradesEvent,
  RealtimeQuote,
  SecurityCalcIndex,
  SecurityDepth,
  SecurityQuote,
  SecurityStaticInfo,
  Subscription,
  Trade,
} from "@tp/core/provider/quote-types";
import type { LongportCodec } from "./codec";
import { LongportConnection, type LongportConnectionOptions } from "./connection";

interface PushHandlers {
  quote: PushHandler<PushQuoteEvent>;
  depth: PushHandler<PushDepthEvent>;
  trades: PushHandler<PushTradesEvent>;
  candlestick: PushHandler<PushCandlestickEvent>;
}

const symbolsOf = (symbols: string[]) => symbols.map(normalizeSymbol);

/**
 * `MarketData` over LongPort's QuoteContext (`longport@3.0.18`). The context opens on the first
 * call; every call is paced by the account's quote queue (10/s, 5 in flight) and its failures
 * are DomainErrors (`PROVIDER_UNAVAILABLE`, `PROVIDER_ERROR`, ...). Results are converted to
 * the port's plain JSON by `LongportCodec`.
 */
export class LongportMarketData implements MarketData {
  private readonly connection: LongportConnection<QuoteContext>;
  private readonly handlers: PushHandlers = { quote: null, depth: null, trades: null, candlestick: null };
  /** The sub types this adapter holds per symbol, as its subscribe and unsubscribe calls left them (see `subscriptions`). */
  private readonly subscribed = new Map<string, Set<SubType>>();
  private context?: QuoteContext;
  private codec?: LongportCodec;

  constructor(options: LongportConnectionOptions) {
    this.connection = new LongportConnection<QuoteContext>(
      options,
      (sdk, config) => sdk.QuoteContext.new(config),
      (context, codec) => {
        this.context = context;
        this.codec = codec;
        for (const kind of Object.keys(this.handlers) as (keyof PushHandlers)[]) if (this.handlers[kind]) this.applyHandler(kind);
      },
    );
  }

  staticInfo(symbols: string[]): Promise<SecurityStaticInfo[]> {
    return this.connection.call("staticInfo", async (ctx, codec) => (await ctx.staticInfo(symbolsOf(symbols))).map((info) => codec.staticInfo(info)));
  }

  quote(symbols: string[]): Promise<SecurityQuote[]> {
    return this.connection.call("quote", async (ctx, codec) => (await ctx.quote(symbolsOf(symbols))).map((quote) => codec.quote(quote)));
  }

  depth(symbol: string): Promise<SecurityDepth> {
    return this.connection.call("depth", async (ctx, codec) => codec.depth(await ctx.depth(normalizeSymbol(symbol))));
  }

  trades(symbol: string, count: number): Promise<Trade[]> {
    return this.connection.call("trades", async (ctx, codec) => (await ctx.trades(normalizeSymbol(symbol), count)).map((trade) => codec.trade(trade)));
  }

  intraday(symbol: string, tradeSessions: TradeSessions): Promise<IntradayLine[]> {
    return this.connection.call("intraday", async (ctx, codec) =>
      (await ctx.intraday(normalizeSymbol(symbol), codec.tradeSessions(tradeSessions))).map((line) => codec.intradayLine(line)),
    );
  }

  candlesticks(symbol: string, period: Period, count: number, adjustType: AdjustType, tradeSessions: TradeSessions): Promise<Candlestick[]> {
    return this.connection.call("candlesticks", async (ctx, codec) =>
      (await ctx.candlesticks(normalizeSymbol(symbol), codec.period(period), count, codec.adjustType(adjustType), codec.tradeSessions(tradeSessions))).map(
        (candle) => codec.candlestick(candle),
      ),
    );
  }

  historyCandlesticksByDate(
    symbol: string,
    period: Period,
    adjustType: AdjustType,
    start: IsoDate | null,
    end: IsoDate | null,
    tradeSessions: TradeSessions,
  ): Promise<Candlestick[]> {
    return this.connection.call("historyCandlesticksByDate", async (ctx, codec) =>
      (
        await ctx.historyCandlesticksByDate(
          normalizeSymbol(symbol),
          codec.period(period),
          codec.adjustType(adjustType),
          start === null ? null : codec.naiveDate(start),
          end === null ? null : codec.naiveDate(end),
          codec.tradeSessions(tradeSessions),
        )
      ).map((candle) => codec.candlestick(candle)),
    );
  }

  tradingDays(market: Market, begin: IsoDate, end: IsoDate): Promise<MarketTradingDays> {
    return this.connection.call("tradingDays", async (ctx, codec) =>
      codec.tradingDays(await ctx.tradingDays(codec.market(market), codec.naiveDate(begin), codec.naiveDate(end))),
    );
  }

  tradingSession(): Promise<MarketTradingSession[]> {
    return this.connection.call("tradingSession", async (ctx, codec) => codec.tradingSessions(await ctx.tradingSession()));
  }

  calcIndexes(symbols: string[], indexes: CalcIndex[]): Promise<SecurityCalcIndex[]> {
    return this.connection.call("calcIndexes", async (ctx, codec) =>
      (await ctx.calcIndexes(symbolsOf(symbols), codec.calcIndexes(indexes))).map((index) => codec.calcIndex(index, indexes)),
    );
  }

  /**
   * The SDK's symbols and candlestick periods, with the sub types this adapter subscribed: longport 3.0.18
   * reports each sub type a symbol holds as `Quote` (its `From<SubFlags> for SubTypes` pushes `Quote`
   * for every flag), so `["Depth", "Trade"]` would read `["Quote", "Quote"]`. Only this adapter
   * subscribes on its context, so its own record is what the context holds.
   */
  subscriptions(): Promise<Subscription[]> {
    return this.connection.call("subscriptions", async (ctx, codec) =>
      (await ctx.subscriptions()).map((entry) => {
        const held = this.subscribed.get(entry.symbol);
        return { ...codec.subscription(entry), sub_types: SubType.options.filter((subType) => held?.has(subType)) };
      }),
    );
  }

  subscribe(symbols: string[], subTypes: SubType[], isFirstPush: boolean): Promise<void> {
    const normalized = symbolsOf(symbols);
    return this.connection.call("subscribe", async (ctx, codec) => {
      await ctx.subscribe(normalized, codec.subTypes(subTypes), isFirstPush);
      for (const symbol of normalized) {
        const held = this.subscribed.get(symbol) ?? new Set<SubType>();
        for (const subType of subTypes) held.add(subType);
        this.subscribed.set(symbol, held);
      }
    });
  }

  unsubscribe(symbols: string[], subTypes: SubType[]): Promise<void> {
    const normalized = symbolsOf(symbols);
    return this.connection.call("unsubscribe", async (ctx, codec) => {
      await ctx.unsubscribe(normalized, codec.subTypes(subTypes));
      for (const symbol of normalized) for (const subType of subTypes) this.subscribed.get(symbol)?.delete(subType);
    });
  }

  subscribeCandlesticks(symbol: string, period: Period, tradeSessions: TradeSessions): Promise<Candlestick[]> {
    return this.connection.call("subscribeCandlesticks", async (ctx, codec) =>
      (await ctx.subscribeCandlesticks(normalizeSymbol(symbol), codec.period(period), codec.tradeSessions(tradeSessions))).map((candle) =>
        codec.candlestick(candle),
      ),
    );
  }

  unsubscribeCandlesticks(symbol: string, period: Period): Promise<void> {
    return this.connection.call("unsubscribeCandlesticks", (ctx, codec) => ctx.unsubscribeCandlesticks(normalizeSymbol(symbol), codec.period(period)));
  }

  setOnQuote(handler: PushHandler<PushQuoteEvent>): void {
    this.handlers.quote = handler;
    this.applyHandler("quote");
  }

  setOnDepth(handler: PushHandler<PushDepthEvent>): void {
    this.handlers.depth = handler;
    this.applyHandler("depth");
  }

  setOnTrades(handler: PushHandler<PushTradesEvent>): void {
    this.handlers.trades = handler;
    this.applyHandler("trades");
  }

  setOnCandlestick(handler: PushHandler<PushCandlestickEvent>): void {
    this.handlers.candlestick = handler;
    this.applyHandler("candlestick");
  }

  realtimeQuote(symbols: string[]): Promise<RealtimeQuote[]> {
    return this.connection.call("realtimeQuote", async (ctx, codec) =>
      (await ctx.realtimeQuote(symbolsOf(symbols))).map((quote) => codec.realtimeQuote(quote)),
    );
  }

  realtimeDepth(symbol: string): Promise<SecurityDepth> {
    return this.connection.call("realtimeDepth", async (ctx, codec) => codec.depth(await ctx.realtimeDepth(normalizeSymbol(symbol))));
  }

  realtimeTrades(symbol: string, count: number): Promise<Trade[]> {
    return this.connection.call("realtimeTrades", async (ctx, codec) =>
      (await ctx.realtimeTrades(normalizeSymbol(symbol), count)).map((trade) => codec.trade(trade)),
    );
  }

  /**
   * Installs a push handler on the open context (handlers set before the connection opens are
   * installed when it does). The SDK needs a callback at all times, so removal installs one that
   * drops events; push errors from the SDK are dropped too, as the port's handlers take events only.
   */
  private applyHandler(kind: keyof PushHandlers): void {
    const context = this.context;
    const codec = this.codec;
    if (!context || !codec) return;
    switch (kind) {
      case "quote": {
        const handler = this.handlers.quote;
        context.setOnQuote((error, event) => {
          if (!error && handler) handler({ symbol: event.symbol, data: codec.pushQuote(event.data) });
        });
        return;
      }
      case "depth": {
        const handler = this.handlers.depth;
        context.setOnDepth((error, event) => {
          if (!error && handler) handler({ symbol: event.symbol, data: codec.pushDepth(event.data) });
        });
        return;
      }
      case "trades": {
        const handler = this.handlers.trades;
        context.setOnTrades((error, event) => {
          if (!error && handler) handler({ symbol: event.symbol, data: codec.pushTrades(event.data) });
        });
        return;
      }
      case "candlestick": {
        const handler = this.handlers.candlestick;
        context.setOnCandlestick((error, event) => {
          if (!error && handler) handler({ symbol: event.symbol, data: codec.pushCandlestick(event.data) });
        });
        return;
      }
    }
  }
}
