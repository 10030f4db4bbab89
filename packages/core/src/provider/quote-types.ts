import type { Market } from "../market/market";
import type { TradeSession } from "../market/trade-session";
import type { IsoDate } from "../market/zoned-time";
import type { DerivativeType, Period, SubType, TradeDirection, TradeStatus } from "./quote-enums";

/**
 * Plain-JSON results of the quote API. Field names are LongPort's snake_case JSON names; prices
 * and money (LongPort `Decimal`) are decimal strings; share counts are numbers; instants are
 * ISO 8601 UTC strings; dates are `YYYY-MM-DD`; enumerations are LongPort's member names.
 */

/** A decimal number as a string, e.g. `"612.500"`. */
export type DecimalString = string;
/** An ISO 8601 instant in UTC, e.g. `"2026-03-09T13:31:00.000Z"`. */
export type IsoInstant = string;

/** Static reference data of a security. */
export interface SecurityStaticInfo {
  symbol: string;
  name_cn: string;
  name_en: string;
  name_hk: string;
  exchange: string;
  currency: string;
  lot_size: number;
  total_shares: number;
  circulating_shares: number;
  /** HK shares (HK securities only; 0 elsewhere). */
  hk_shares: number;
  eps: DecimalString;
  eps_ttm: DecimalString;
  bps: DecimalString;
  /** LongPort names it a yield, but it carries the trailing dividend per share. */
  dividend_yield: DecimalString;
  stock_derivatives: DerivativeType[];
  board: string;
}

/** US pre-market, after-hours or overnight quote. */
export interface PrePostQuote {
  last_done: DecimalString;
  timestamp: IsoInstant;
  volume: number;
  turnover: DecimalString;
  high: DecimalString;
  low: DecimalString;
  /** Close of the regular session before this session. */
  prev_close: DecimalString;
}

/** Snapshot quote of a security (regular session, plus extended sessions for US). */
export interface SecurityQuote {
  symbol: string;
  last_done: DecimalString;
  prev_close: DecimalString;
  open: DecimalString;
  high: DecimalString;
  low: DecimalString;
  timestamp: IsoInstant;
  volume: number;
  turnover: DecimalString;
  trade_status: TradeStatus;
  pre_market_quote: PrePostQuote | null;
  post_market_quote: PrePostQuote | null;
  overnight_quote: PrePostQuote | null;
}

/** Quote kept from pushes (what `realtimeQuote` answers). */
export interface RealtimeQuote {
  symbol: string;
  last_done: DecimalString;
  open: DecimalString;
  high: DecimalString;
  low: DecimalString;
  timestamp: IsoInstant;
  volume: number;
  turnover: DecimalString;
  trade_status: TradeStatus;
}

/** One price level of the order book. */
export interface Depth {
  /** Level, 1 = best. */
  position: number;
  price: DecimalString | null;
  volume: number;
  order_num: number;
}

/** Order book: asks ascending from the best ask, bids descending from the best bid. */
export interface SecurityDepth {
  asks: Depth[];
  bids: Depth[];
}

/** One trade (tick). */
export interface Trade {
  price: DecimalString;
  volume: number;
  timestamp: IsoInstant;
  /** Exchange trade-type code; empty for an ordinary automatched trade. */
  trade_type: string;
  direction: TradeDirection;
  trade_session: TradeSession;
}

/** One minute of the intraday line. */
export interface IntradayLine {
  /** Close price of the minute. */
  price: DecimalString;
  /** Start of the minute. */
  timestamp: IsoInstant;
  volume: number;
  turnover: DecimalString;
  /** Volume-weighted average price from the first line up to this one. */
  avg_price: DecimalString;
}

/** One candlestick. `timestamp` is the start of the bar; for daily and longer bars, local midnight of its first trading date. */
export interface Candlestick {
  close: DecimalString;
  open: DecimalString;
  low: DecimalString;
  high: DecimalString;
  volume: number;
  turnover: DecimalString;
  timestamp: IsoInstant;
  trade_session: TradeSession;
}

/** Trading days of a market in a range; as in LongPort, half days are listed only in `half_trading_days`. */
export interface MarketTradingDays {
  trading_days: IsoDate[];
  half_trading_days: IsoDate[];
}

/** One row of a market's daily timetable, in exchange-local `HH:MM:SS`. */
export interface TradingSessionInfo {
  begin_time: string;
  end_time: string;
  trade_session: TradeSession;
}

/** The daily timetable of one market. */
export interface MarketTradingSession {
  market: Market;
  trade_sessions: TradingSessionInfo[];
}

/**
 * Calculated indexes of a security. Only the requested fields are present (besides `symbol`);
 * a field that does not apply to the security (option and warrant fields for stocks) is null.
 * Rates and ratios are percentages (`"1.25"` means 1.25 %).
 */
export interface SecurityCalcIndex {
  symbol: string;
  [field: string]: string | number | null;
}

/** Subscriptions held for one symbol. */
export interface Subscription {
  symbol: string;
  sub_types: SubType[];
  candlesticks: Period[];
}

/** Pushed quote update. `current_volume`/`current_turnover` are the increase since the previous push. */
export interface PushQuote {
  last_done: DecimalString;
  open: DecimalString;
  high: DecimalString;
  low: DecimalString;
  timestamp: IsoInstant;
  volume: number;
  turnover: DecimalString;
  trade_status: TradeStatus;
  trade_session: TradeSession;
  current_volume: number;
  current_turnover: DecimalString;
}

/** Pushed order book. */
export interface PushDepth {
  asks: Depth[];
  bids: Depth[];
}

/** Pushed trades, oldest first. */
export interface PushTrades {
  trades: Trade[];
}

/** Pushed candlestick: the bar so far (`is_confirmed` false) or the finished bar (`is_confirmed` true). */
export interface PushCandlestick {
  period: Period;
  candlestick: Candlestick;
  is_confirmed: boolean;
}

/** A push event for one symbol. */
export interface PushEvent<T> {
  symbol: string;
  data: T;
}

export type PushQuoteEvent = PushEvent<PushQuote>;
export type PushDepthEvent = PushEvent<PushDepth>;
export type PushTradesEvent = PushEvent<PushTrades>;
export type PushCandlestickEvent = PushEvent<PushCandlestick>;
