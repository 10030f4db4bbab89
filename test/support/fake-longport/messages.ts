import { field, mapOf, repeated, type Schema } from "./protobuf";

/**
 * The message tables of LongPort's socket protocol, field numbers as in longportapp/openapi-protobufs
 * (control/control.proto, control/error.proto, quote/api.proto, trade/subscribe.proto). Only the
 * messages the fake reads or writes are listed.
 */

/** Command codes of the control channel (both gateways), the quote gateway and the trade gateway. */
export const Command = {
  close: 0,
  heartbeat: 1,
  auth: 2,
  reconnect: 3,
  quoteProfile: 4,
  subscription: 5,
  subscribe: 6,
  unsubscribe: 7,
  tradingSession: 8,
  tradingDays: 9,
  staticInfo: 10,
  quote: 11,
  optionQuote: 12,
  warrantQuote: 13,
  depth: 14,
  brokers: 15,
  participants: 16,
  trades: 17,
  intraday: 18,
  candlesticks: 19,
  calcIndexes: 26,
  historyCandlesticks: 27,
  pushQuote: 101,
  pushDepth: 102,
  pushBrokers: 103,
  pushTrade: 104,
  tradeSub: 16,
  tradeUnsub: 17,
  tradeNotify: 18,
} as const;

/** quote/api.proto `SubType`. */
export const SubType = { quote: 1, depth: 2, brokers: 3, trade: 4 } as const;

/** quote/api.proto `TradeSession` (the SDK's `TradeSessions.All` asks with 100). */
export const TradeSession = { normal: 0, pre: 1, post: 2, overnight: 3 } as const;
export const ALL_TRADE_SESSIONS = 100;

// control/control.proto and control/error.proto

export const AuthRequest: Schema = { token: field(1, "string"), metadata: mapOf(2, "string") };
export const AuthResponse: Schema = { session_id: field(1, "string"), expires: field(2, "int64"), limit: field(3, "uint32"), online: field(4, "uint32") };
export const ReconnectRequest: Schema = { session_id: field(1, "string"), metadata: mapOf(2, "string") };
export const ReconnectResponse: Schema = AuthResponse;
export const Heartbeat: Schema = { timestamp: field(1, "int64"), heartbeat_id: field(2, "int32") };
export const ErrorBody: Schema = { code: field(1, "uint64"), msg: field(2, "string") };

// quote/api.proto: requests

export const MultiSecurityRequest: Schema = { symbol: repeated(1, "string") };
export const SecurityRequest: Schema = { symbol: field(1, "string") };
export const SecurityTradeRequest: Schema = { symbol: field(1, "string"), count: field(2, "int32") };
export const SecurityIntradayRequest: Schema = { symbol: field(1, "string"), trade_session: field(2, "int32") };
export const SecurityCandlestickRequest: Schema = {
  symbol: field(1, "string"),
  period: field(2, "enum"),
  count: field(3, "int32"),
  adjust_type: field(4, "enum"),
  trade_session: field(5, "int32"),
};
export const SecurityHistoryCandlestickRequest: Schema = {
  symbol: field(1, "string"),
  period: field(2, "enum"),
  adjust_type: field(3, "enum"),
  query_type: field(4, "enum"),
  offset_request: field(5, { direction: field(1, "enum"), date: field(2, "string"), minute: field(3, "string"), count: field(4, "int32") }),
  date_request: field(6, { start_date: field(1, "string"), end_date: field(2, "string") }),
  trade_session: field(7, "int32"),
};
export const SubscribeRequest: Schema = { symbol: repeated(1, "string"), sub_type: repeated(2, "enum"), is_first_push: field(3, "bool") };
export const UnsubscribeRequest: Schema = { symbol: repeated(1, "string"), sub_type: repeated(2, "enum"), unsub_all: field(3, "bool") };
export const MarketTradeDayRequest: Schema = { market: field(1, "string"), beg_day: field(2, "string"), end_day: field(3, "string") };
export const SecurityCalcQuoteRequest: Schema = { symbols: repeated(1, "string"), calc_index: repeated(2, "enum") };
export const UserQuoteProfileRequest: Schema = { language: field(1, "string") };

// quote/api.proto: answers and pushes

const StaticInfo: Schema = {
  symbol: field(1, "string"),
  name_cn: field(2, "string"),
  name_en: field(3, "string"),
  name_hk: field(4, "string"),
  listing_date: field(5, "string"),
  exchange: field(6, "string"),
  currency: field(7, "string"),
  lot_size: field(8, "int32"),
  total_shares: field(9, "int64"),
  circulating_shares: field(10, "int64"),
  hk_shares: field(11, "int64"),
  eps: field(12, "string"),
  eps_ttm: field(13, "string"),
  bps: field(14, "string"),
  dividend_yield: field(15, "string"),
  stock_derivatives: repeated(16, "int32"),
  board: field(17, "string"),
};
export const SecurityStaticInfoResponse: Schema = { secu_static_info: repeated(1, StaticInfo) };

const PrePostQuote: Schema = {
  last_done: field(1, "string"),
  timestamp: field(2, "int64"),
  volume: field(3, "int64"),
  turnover: field(4, "string"),
  high: field(5, "string"),
  low: field(6, "string"),
  prev_close: field(7, "string"),
};
const SecurityQuote: Schema = {
  symbol: field(1, "string"),
  last_done: field(2, "string"),
  prev_close: field(3, "string"),
  open: field(4, "string"),
  high: field(5, "string"),
  low: field(6, "string"),
  timestamp: field(7, "int64"),
  volume: field(8, "int64"),
  turnover: field(9, "string"),
  trade_status: field(10, "enum"),
  pre_market_quote: field(11, PrePostQuote),
  post_market_quote: field(12, PrePostQuote),
  over_night_quote: field(13, PrePostQuote),
};
export const SecurityQuoteResponse: Schema = { secu_quote: repeated(1, SecurityQuote) };

const Depth: Schema = { position: field(1, "int32"), price: field(2, "string"), volume: field(3, "int64"), order_num: field(4, "int64") };
export const SecurityDepthResponse: Schema = { symbol: field(1, "string"), ask: repeated(2, Depth), bid: repeated(3, Depth) };

const Trade: Schema = {
  price: field(1, "string"),
  volume: field(2, "int64"),
  timestamp: field(3, "int64"),
  trade_type: field(4, "string"),
  direction: field(5, "int32"),
  trade_session: field(6, "enum"),
};
export const SecurityTradeResponse: Schema = { symbol: field(1, "string"), trades: repeated(2, Trade) };

const Line: Schema = {
  price: field(1, "string"),
  timestamp: field(2, "int64"),
  volume: field(3, "int64"),
  turnover: field(4, "string"),
  avg_price: field(5, "string"),
};
export const SecurityIntradayResponse: Schema = { symbol: field(1, "string"), lines: repeated(2, Line) };

const Candlestick: Schema = {
  close: field(1, "string"),
  open: field(2, "string"),
  low: field(3, "string"),
  high: field(4, "string"),
  volume: field(5, "int64"),
  turnover: field(6, "string"),
  timestamp: field(7, "int64"),
  trade_session: field(8, "enum"),
};
export const SecurityCandlestickResponse: Schema = { symbol: field(1, "string"), candlesticks: repeated(2, Candlestick) };

const TradePeriod: Schema = { beg_time: field(1, "int32"), end_time: field(2, "int32"), trade_session: field(3, "enum") };
export const MarketTradePeriodResponse: Schema = {
  market_trade_session: repeated(1, { market: field(1, "string"), trade_session: repeated(2, TradePeriod) }),
};
export const MarketTradeDayResponse: Schema = { trade_day: repeated(1, "string"), half_trade_day: repeated(2, "string") };

export const SubscriptionResponse: Schema = { sub_list: repeated(1, { symbol: field(1, "string"), sub_type: repeated(2, "enum") }) };

export const PushQuote: Schema = {
  symbol: field(1, "string"),
  sequence: field(2, "int64"),
  last_done: field(3, "string"),
  open: field(4, "string"),
  high: field(5, "string"),
  low: field(6, "string"),
  timestamp: field(7, "int64"),
  volume: field(8, "int64"),
  turnover: field(9, "string"),
  trade_status: field(10, "enum"),
  trade_session: field(11, "enum"),
  current_volume: field(12, "int64"),
  current_turnover: field(13, "string"),
  tag: field(14, "enum"),
};
export const PushDepth: Schema = { symbol: field(1, "string"), sequence: field(2, "int64"), ask: repeated(3, Depth), bid: repeated(4, Depth) };
export const PushTrade: Schema = { symbol: field(1, "string"), sequence: field(2, "int64"), trade: repeated(3, Trade) };

/** quote/api.proto `SecurityCalcIndex`: field n is CALCINDEX n (n = 1..40) after `symbol`; three of them are int64. */
export const CALC_INDEX_FIELDS = [
  "last_done",
  "change_val",
  "change_rate",
  "volume",
  "turnover",
  "ytd_change_rate",
  "turnover_rate",
  "total_market_value",
  "capital_flow",
  "amplitude",
  "volume_ratio",
  "pe_ttm_ratio",
  "pb_ratio",
  "dividend_ratio_ttm",
  "five_day_change_rate",
  "ten_day_change_rate",
  "half_year_change_rate",
  "five_minutes_change_rate",
  "expiry_date",
  "strike_price",
  "upper_strike_price",
  "lower_strike_price",
  "outstanding_qty",
  "outstanding_ratio",
  "premium",
  "itm_otm",
  "implied_volatility",
  "warrant_delta",
  "call_price",
  "to_call_price",
  "effective_leverage",
  "leverage_ratio",
  "conversion_ratio",
  "balance_point",
  "open_interest",
  "delta",
  "gamma",
  "theta",
  "vega",
  "rho",
];
const INT64_CALC_FIELDS = new Set(["volume", "outstanding_qty", "open_interest"]);
const SecurityCalcIndex: Schema = Object.fromEntries([
  ["symbol", field(1, "string")],
  ...CALC_INDEX_FIELDS.map((name, i) => [name, field(i + 2, INT64_CALC_FIELDS.has(name) ? "int64" : "string")]),
]);
export const SecurityCalcQuoteResponse: Schema = { security_calc_index: repeated(1, SecurityCalcIndex) };

export const UserQuoteProfileResponse: Schema = {
  member_id: field(1, "int64"),
  quote_level: field(2, "string"),
  subscribe_limit: field(3, "int32"),
  history_candlestick_limit: field(4, "int32"),
  rate_limit: repeated(5, { command: field(1, "enum"), limit: field(2, "int32"), burst: field(3, "int32") }),
};

// trade/subscribe.proto

export const Sub: Schema = { topics: repeated(1, "string") };
export const SubResponse: Schema = {
  success: repeated(1, "string"),
  fail: repeated(2, { topic: field(1, "string"), reason: field(2, "string") }),
  current: repeated(3, "string"),
};
export const Unsub: Schema = { topics: repeated(1, "string") };
export const UnsubResponse: Schema = { current: repeated(3, "string") };
export const Notification: Schema = { topic: field(1, "string"), content_type: field(2, "enum"), dispatch_type: field(3, "enum"), data: field(4, "bytes") };
/** trade/subscribe.proto `ContentType.CONTENT_JSON` and `DispatchType.DISPATCH_DIRECT`. */
export const CONTENT_JSON = 1;
export const DISPATCH_DIRECT = 1;
