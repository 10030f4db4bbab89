import type { Market } from "../market/market";
import type { IsoDate } from "../market/zoned-time";
import type { AdjustType, CalcIndex, Period, SubType, TradeSessions } from "./quote-enums";
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
} from "./quote-types";

/** A push callback; pass null to remove it. */
export type PushHandler<E> = ((event: E) => void) | null;

/**
 * Market data, mirroring the parts of LongPort's `QuoteContext` the service uses. Method names
 * and arguments follow the Node SDK; results are plain JSON (see `quote-types.ts`). Symbols are
 * `ticker.region`; unknown symbols are a 404 `SYMBOL_NOT_FOUND`, symbols of markets an adapter
 * cannot serve a 400 `MARKET_NOT_SUPPORTED`.
 */
export interface MarketData {
  /** Static reference data of up to 500 symbols. */
  staticInfo(symbols: string[]): Promise<SecurityStaticInfo[]>;
  /** Snapshot quotes of up to 500 symbols. */
  quote(symbols: string[]): Promise<SecurityQuote[]>;
  /** Order book (5 levels each side in the simulator). */
  depth(symbol: string): Promise<SecurityDepth>;
  /** The latest `count` trades (1–1000), oldest first. */
  trades(symbol: string, count: number): Promise<Trade[]>;
  /** Minute lines of the current (or latest) trading day. */
  intraday(symbol: string, tradeSessions: TradeSessions): Promise<IntradayLine[]>;
  /** The latest `count` candlesticks (1–1000), oldest first, the last one possibly still forming. */
  candlesticks(symbol: string, period: Period, count: number, adjustType: AdjustType, tradeSessions: TradeSessions): Promise<Candlestick[]>;
  /** Candlesticks whose trading date lies in `[start, end]` (exchange-local dates), oldest first. */
  historyCandlesticksByDate(
    symbol: string,
    period: Period,
    adjustType: AdjustType,
    start: IsoDate | null,
    end: IsoDate | null,
    tradeSessions: TradeSessions,
  ): Promise<Candlestick[]>;
  /** Trading days and half days of a market between two dates (inclusive). */
  tradingDays(market: Market, begin: IsoDate, end: IsoDate): Promise<MarketTradingDays>;
  /** Daily session timetable of every market the adapter serves. */
  tradingSession(): Promise<MarketTradingSession[]>;
  /** Calculated indexes of up to 500 symbols. */
  calcIndexes(symbols: string[], indexes: CalcIndex[]): Promise<SecurityCalcIndex[]>;

  /** Current subscriptions. */
  subscriptions(): Promise<Subscription[]>;
  /** Subscribes symbols to push types; with `isFirstPush` the current state is pushed at once. */
  subscribe(symbols: string[], subTypes: SubType[], isFirstPush: boolean): Promise<void>;
  /** Removes push types from symbols. */
  unsubscribe(symbols: string[], subTypes: SubType[]): Promise<void>;
  /** Subscribes to candlestick pushes of one period and returns the recent candlesticks. */
  subscribeCandlesticks(symbol: string, period: Period, tradeSessions: TradeSessions): Promise<Candlestick[]>;
  /** Stops candlestick pushes of one period. */
  unsubscribeCandlesticks(symbol: string, period: Period): Promise<void>;
  setOnQuote(handler: PushHandler<PushQuoteEvent>): void;
  setOnDepth(handler: PushHandler<PushDepthEvent>): void;
  setOnTrades(handler: PushHandler<PushTradesEvent>): void;
  setOnCandlestick(handler: PushHandler<PushCandlestickEvent>): void;

  /** Latest pushed quotes of subscribed symbols (symbols without a `Quote` subscription are omitted). */
  realtimeQuote(symbols: string[]): Promise<RealtimeQuote[]>;
  /** Latest pushed order book (empty without a `Depth` subscription). */
  realtimeDepth(symbol: string): Promise<SecurityDepth>;
  /** Latest pushed trades, oldest first (empty without a `Trade` subscription). */
  realtimeTrades(symbol: string, count: number): Promise<Trade[]>;
}

/** Per-request limits of LongPort's quote API; adapters enforce the ones marked, callers should respect all. */
export const MarketDataLimits = {
  /** Symbols per quote, static-info, calc-index and subscribe request (enforced). */
  symbolsPerRequest: 500,
  /** Symbols subscribed at once (enforced). */
  subscribedSymbols: 500,
  /** `count` of candlesticks and trades (enforced: 1–1000). */
  count: 1000,
  /** Bars one LongPort history call returns; the simulator returns the whole range, so chunk requests to stay portable. */
  historyCandlesticksPerCall: 1000,
  /** Longest `tradingDays` range LongPort accepts, in days; the simulator accepts any range its calendars cover. */
  tradingDaysRangeDays: 31,
} as const;
