import { z } from "zod";
import { Market } from "../market/market";
import { TradeSession } from "../market/trade-session";
import { DerivativeType, Period, SubType, TradeDirection, TradeStatus } from "./quote-enums";

/**
 * Plain-JSON results of the quote API. Field names are LongPort's snake_case JSON names; prices
 * and money (LongPort `Decimal`) are decimal strings; share counts are numbers; instants are
 * ISO 8601 UTC strings; dates are `YYYY-MM-DD`; enumerations are LongPort's member names.
 *
 * Each result is a zod schema and its type under one name; the schemas document the API (their
 * `id` is the OpenAPI component name) and are not used to validate what providers return.
 */

/** A decimal number as a string, e.g. `"612.500"`. */
export const DecimalString = z.string().describe("Decimal number as a string, digits as the provider gives them");
export type DecimalString = z.infer<typeof DecimalString>;

/** An ISO 8601 instant in UTC, e.g. `"2026-03-09T13:31:00.000Z"`. */
export const IsoInstant = z.string().describe("ISO 8601 instant, UTC");
export type IsoInstant = z.infer<typeof IsoInstant>;

/** An exchange-local date `YYYY-MM-DD` (the `IsoDate` of `market/zoned-time`). */
const IsoDate = z.string().describe("`YYYY-MM-DD`, exchange-local");

/** Static reference data of a security. */
export const SecurityStaticInfo = z
  .object({
    symbol: z.string(),
    name_cn: z.string(),
    name_en: z.string(),
    name_hk: z.string(),
    exchange: z.string(),
    currency: z.string(),
    lot_size: z.int(),
    total_shares: z.number(),
    circulating_shares: z.number(),
    /** HK shares (HK securities only; 0 elsewhere). */
    hk_shares: z.number().describe("HK shares (HK securities only; 0 elsewhere)"),
    eps: DecimalString,
    eps_ttm: DecimalString,
    bps: DecimalString,
    /** LongPort names it a yield, but it carries the trailing dividend per share. */
    dividend_yield: DecimalString.describe("Trailing dividend per share (LongPort's field name says yield)"),
    stock_derivatives: z.array(DerivativeType),
    board: z.string().describe("LongPort `SecurityBoard` member, e.g. `HKEquity`, `USMain`"),
  })
  .meta({ id: "SecurityStaticInfo" });
export type SecurityStaticInfo = z.infer<typeof SecurityStaticInfo>;

/** US pre-market, after-hours or overnight quote. */
export const PrePostQuote = z
  .object({
    last_done: DecimalString,
    timestamp: IsoInstant,
    volume: z.number(),
    turnover: DecimalString,
    high: DecimalString,
    low: DecimalString,
    /** Close of the regular session before this session. */
    prev_close: DecimalString.describe("Close of the regular session before this session"),
  })
  .meta({ id: "PrePostQuote" });
export type PrePostQuote = z.infer<typeof PrePostQuote>;

/** Snapshot quote of a security (regular session, plus extended sessions for US). */
export const SecurityQuote = z
  .object({
    symbol: z.string(),
    last_done: DecimalString,
    prev_close: DecimalString,
    open: DecimalString,
    high: DecimalString,
    low: DecimalString,
    timestamp: IsoInstant,
    volume: z.number(),
    turnover: DecimalString,
    trade_status: TradeStatus,
    pre_market_quote: PrePostQuote.nullable().describe("US only"),
    post_market_quote: PrePostQuote.nullable().describe("US only"),
    overnight_quote: PrePostQuote.nullable().describe("US only, when overnight is enabled"),
  })
  .meta({ id: "SecurityQuote" });
export type SecurityQuote = z.infer<typeof SecurityQuote>;

/** Quote kept from pushes (what `realtimeQuote` answers): the snapshot quote without the previous close and extended sessions. */
export const RealtimeQuote = SecurityQuote.pick({
  symbol: true,
  last_done: true,
  open: true,
  high: true,
  low: true,
  timestamp: true,
  volume: true,
  turnover: true,
  trade_status: true,
}).meta({ id: "RealtimeQuote" });
export type RealtimeQuote = z.infer<typeof RealtimeQuote>;

/** One price level of the order book. */
export const Depth = z
  .object({
    /** Level, 1 = best. */
    position: z.int().describe("1 = best"),
    price: DecimalString.nullable(),
    volume: z.number(),
    order_num: z.int(),
  })
  .meta({ id: "DepthLevel" });
export type Depth = z.infer<typeof Depth>;

/** Order book: asks ascending from the best ask, bids descending from the best bid. */
export const SecurityDepth = z
  .object({
    asks: z.array(Depth).describe("Ascending from the best ask"),
    bids: z.array(Depth).describe("Descending from the best bid"),
  })
  .meta({ id: "SecurityDepth" });
export type SecurityDepth = z.infer<typeof SecurityDepth>;

/** One trade (tick). */
export const Trade = z
  .object({
    price: DecimalString,
    volume: z.number(),
    timestamp: IsoInstant,
    /** Exchange trade-type code; empty for an ordinary automatched trade. */
    trade_type: z.string().describe("Exchange trade-type code; empty for an ordinary automatched trade"),
    direction: TradeDirection,
    trade_session: TradeSession,
  })
  .meta({ id: "QuoteTrade" });
export type Trade = z.infer<typeof Trade>;

/** One minute of the intraday line. */
export const IntradayLine = z
  .object({
    /** Close price of the minute. */
    price: DecimalString.describe("Close price of the minute"),
    /** Start of the minute. */
    timestamp: IsoInstant.describe("Start of the minute"),
    volume: z.number(),
    turnover: DecimalString,
    /** Volume-weighted average price from the first line up to this one. */
    avg_price: DecimalString.describe("Volume-weighted average price from the first line up to this one"),
  })
  .meta({ id: "IntradayLine" });
export type IntradayLine = z.infer<typeof IntradayLine>;

/** One candlestick. `timestamp` is the start of the bar; for daily and longer bars, local midnight of its first trading date. */
export const Candlestick = z
  .object({
    close: DecimalString,
    open: DecimalString,
    low: DecimalString,
    high: DecimalString,
    volume: z.number(),
    turnover: DecimalString,
    timestamp: IsoInstant.describe("Start of the bar"),
    trade_session: TradeSession,
  })
  .meta({ id: "Candlestick" });
export type Candlestick = z.infer<typeof Candlestick>;

/** Trading days of a market in a range; as in LongPort, half days are listed only in `half_trading_days`. */
export const MarketTradingDays = z
  .object({
    trading_days: z.array(IsoDate).describe("Full trading days"),
    half_trading_days: z.array(IsoDate).describe("Half days (listed only here)"),
  })
  .meta({ id: "MarketTradingDays" });
export type MarketTradingDays = z.infer<typeof MarketTradingDays>;

/** One row of a market's daily timetable, in exchange-local `HH:MM:SS`. */
export const TradingSessionInfo = z
  .object({
    begin_time: z.string().describe("Local `HH:MM:SS`"),
    end_time: z.string().describe("Local `HH:MM:SS`"),
    trade_session: TradeSession,
  })
  .meta({ id: "TradingSessionInfo" });
export type TradingSessionInfo = z.infer<typeof TradingSessionInfo>;

/** The daily timetable of one market. */
export const MarketTradingSession = z.object({ market: Market, trade_sessions: z.array(TradingSessionInfo) }).meta({ id: "MarketTradingSession" });
export type MarketTradingSession = z.infer<typeof MarketTradingSession>;

/**
 * Calculated indexes of a security. Only the requested fields are present (besides `symbol`);
 * a field that does not apply to the security (option and warrant fields for stocks) is null.
 * Rates and ratios are percentages (`"1.25"` means 1.25 %).
 */
export const SecurityCalcIndex = z
  .object({ symbol: z.string() })
  .catchall(z.union([z.string(), z.number(), z.null()]))
  .describe("`symbol` plus the requested indexes under their snake_case fields (`last_done`, `pe_ttm_ratio`, ...); rates in percent")
  .meta({ id: "SecurityCalcIndex" });
export type SecurityCalcIndex = z.infer<typeof SecurityCalcIndex>;

/** Subscriptions held for one symbol. */
export const Subscription = z.object({ symbol: z.string(), sub_types: z.array(SubType), candlesticks: z.array(Period) }).meta({ id: "QuoteSubscription" });
export type Subscription = z.infer<typeof Subscription>;

/** Pushed quote update. `current_volume`/`current_turnover` are the increase since the previous push. */
export const PushQuote = z
  .object({
    last_done: DecimalString,
    open: DecimalString,
    high: DecimalString,
    low: DecimalString,
    timestamp: IsoInstant,
    volume: z.number(),
    turnover: DecimalString,
    trade_status: TradeStatus,
    trade_session: TradeSession,
    current_volume: z.number(),
    current_turnover: DecimalString,
  })
  .meta({ id: "PushQuote" });
export type PushQuote = z.infer<typeof PushQuote>;

/** Pushed order book. */
export const PushDepth = z.object({ asks: z.array(Depth), bids: z.array(Depth) }).meta({ id: "PushDepth" });
export type PushDepth = z.infer<typeof PushDepth>;

/** Pushed trades, oldest first. */
export const PushTrades = z.object({ trades: z.array(Trade) }).meta({ id: "PushTrades" });
export type PushTrades = z.infer<typeof PushTrades>;

/** Pushed candlestick: the bar so far (`is_confirmed` false) or the finished bar (`is_confirmed` true). */
export const PushCandlestick = z.object({ period: Period, candlestick: Candlestick, is_confirmed: z.boolean() }).meta({ id: "PushCandlestick" });
export type PushCandlestick = z.infer<typeof PushCandlestick>;

/** A push event for one symbol: the schema of the event carrying `data`. */
export const PushEvent = <T extends z.ZodType>(data: T) => z.object({ symbol: z.string(), data });
/** A push event for one symbol. */
export interface PushEvent<T> {
  symbol: string;
  data: T;
}

export const PushQuoteEvent = PushEvent(PushQuote).meta({ id: "PushQuoteEvent" });
export type PushQuoteEvent = z.infer<typeof PushQuoteEvent>;
export const PushDepthEvent = PushEvent(PushDepth).meta({ id: "PushDepthEvent" });
export type PushDepthEvent = z.infer<typeof PushDepthEvent>;
export const PushTradesEvent = PushEvent(PushTrades).meta({ id: "PushTradesEvent" });
export type PushTradesEvent = z.infer<typeof PushTradesEvent>;
export const PushCandlestickEvent = PushEvent(PushCandlestick).meta({ id: "PushCandlestickEvent" });
export type PushCandlestickEvent = z.infer<typeof PushCandlestickEvent>;
