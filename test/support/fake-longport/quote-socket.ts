import { isoDate } from "./clock";
import { isKnownPeriod, type MarketCode, MARKETS } from "./candles";
import type { Faults } from "./faults";
import { type Connection, type Gateway, SocketError, SocketStatus } from "./gateway";
import type { FakeMarket, MarketPush } from "./market";
import {
  Command,
  MarketTradeDayRequest,
  MarketTradeDayResponse,
  MarketTradePeriodResponse,
  MultiSecurityRequest,
  PushDepth,
  PushQuote,
  PushTrade,
  SecurityCalcQuoteRequest,
  SecurityCalcQuoteResponse,
  SecurityCandlestickRequest,
  SecurityCandlestickResponse,
  SecurityDepthResponse,
  SecurityHistoryCandlestickRequest,
  SecurityIntradayRequest,
  SecurityIntradayResponse,
  SecurityQuoteResponse,
  SecurityRequest,
  SecurityStaticInfoResponse,
  SecurityTradeRequest,
  SecurityTradeResponse,
  SubscribeRequest,
  SubscriptionResponse,
  SubType,
  UnsubscribeRequest,
  UserQuoteProfileRequest,
  UserQuoteProfileResponse,
} from "./messages";
import { decode, encode, type Schema } from "./protobuf";

/** The fake's code for a quote request it cannot answer (LongPort's quote errors are 3016xx). */
const QUOTE_PARAMETER_ERROR = 301600;

const PUSH_SCHEMAS: Record<number, Schema> = { [Command.pushQuote]: PushQuote, [Command.pushDepth]: PushDepth, [Command.pushTrade]: PushTrade };

/**
 * The rate limit the quote profile announces for each command; the SDK paces each command by it
 * itself, with a bucket that starts empty: the first request of a command right after connecting
 * waits about a second (QuoteContext.new takes ~1 s, for its trading-days requests).
 */
export interface QuoteRateLimit {
  limit: number;
  burst: number;
}

/**
 * The quote gateway's commands: the profile the SDK asks for on connecting, subscriptions,
 * static info, quotes, depth, trades, intraday lines, candlesticks (latest and history),
 * trading days and sessions, calc indexes; and the pushes of subscribed symbols.
 */
export class QuoteService {
  constructor(
    private readonly market: FakeMarket,
    private readonly faults: Faults,
    private readonly rateLimit: QuoteRateLimit | null,
  ) {}

  /** Sends a market push to every socket subscribed to its symbol and kind. */
  deliver(gateway: Gateway, push: MarketPush): void {
    const body = encode(PUSH_SCHEMAS[push.command], push.body);
    for (const connection of gateway.authenticated()) {
      if (connection.subscriptions.get(push.symbol)?.has(push.subType)) gateway.push(connection, push.command, body);
    }
  }

  handle(gateway: Gateway, connection: Connection, command: number, body: Buffer): Buffer {
    const refusal = this.faults.takeQuote(command);
    if (refusal) throw new SocketError(refusal.status, refusal.code, refusal.message);
    const m = this.market;
    switch (command) {
      case Command.quoteProfile: {
        decode(UserQuoteProfileRequest, body);
        const commands = [5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27];
        return encode(UserQuoteProfileResponse, {
          member_id: 10086,
          quote_level: "LV1",
          subscribe_limit: 500,
          history_candlestick_limit: 100,
          rate_limit: this.rateLimit ? commands.map((c) => ({ command: c, ...this.rateLimit })) : [],
        });
      }
      case Command.subscription:
        return encode(SubscriptionResponse, {
          sub_list: [...connection.subscriptions].filter(([, types]) => types.size > 0).map(([symbol, types]) => ({ symbol, sub_type: [...types].sort() })),
        });
      case Command.subscribe: {
        const request = decode<{ symbol: string[]; sub_type: number[]; is_first_push: boolean }>(SubscribeRequest, body);
        for (const symbol of request.symbol) {
          const types = connection.subscriptions.get(symbol) ?? new Set<number>();
          for (const type of request.sub_type) types.add(type);
          connection.subscriptions.set(symbol, types);
        }
        // The first push of a subscription (what LongPort sends when asked): the current quote and depth.
        if (request.is_first_push) setImmediate(() => this.firstPush(gateway, connection, request.symbol, request.sub_type));
        return Buffer.alloc(0);
      }
      case Command.unsubscribe: {
        const request = decode<{ symbol: string[]; sub_type: number[]; unsub_all: boolean }>(UnsubscribeRequest, body);
        if (request.unsub_all) connection.subscriptions.clear();
        for (const symbol of request.symbol) for (const type of request.sub_type) connection.subscriptions.get(symbol)?.delete(type);
        return Buffer.alloc(0);
      }
      case Command.tradingSession:
        return encode(MarketTradePeriodResponse, { market_trade_session: m.calendar.tradingSessions() });
      case Command.tradingDays: {
        const request = decode<{ market: string; beg_day: string; end_day: string }>(MarketTradeDayRequest, body);
        if (!(request.market in MARKETS)) throw new SocketError(SocketStatus.badRequest, QUOTE_PARAMETER_ERROR, `invalid market: ${request.market}`);
        return encode(MarketTradeDayResponse, m.calendar.tradingDays(request.market as MarketCode, isoDate(request.beg_day), isoDate(request.end_day)));
      }
      case Command.staticInfo: {
        const { symbol } = decode<{ symbol: string[] }>(MultiSecurityRequest, body);
        return encode(SecurityStaticInfoResponse, { secu_static_info: symbol.map((s) => m.staticInfo(s)).filter(Boolean) });
      }
      case Command.quote: {
        const { symbol } = decode<{ symbol: string[] }>(MultiSecurityRequest, body);
        return encode(SecurityQuoteResponse, { secu_quote: symbol.map((s) => m.securityQuote(s)).filter(Boolean) });
      }
      case Command.depth: {
        const { symbol } = decode<{ symbol: string }>(SecurityRequest, body);
        return encode(SecurityDepthResponse, { symbol, ...m.depthBody(symbol) });
      }
      case Command.trades: {
        const { symbol, count } = decode<{ symbol: string; count: number }>(SecurityTradeRequest, body);
        return encode(SecurityTradeResponse, { symbol, trades: m.tradesBody(symbol, count) });
      }
      case Command.intraday: {
        const { symbol } = decode<{ symbol: string }>(SecurityIntradayRequest, body);
        return encode(SecurityIntradayResponse, { symbol, lines: m.intradayLines(symbol) });
      }
      case Command.candlesticks: {
        const request = decode<{ symbol: string; period: number; count: number }>(SecurityCandlestickRequest, body);
        const bars = this.bars(request.symbol, request.period).slice(-Math.max(request.count, 0));
        return encode(SecurityCandlestickResponse, { symbol: request.symbol, candlesticks: m.candleBodies(bars) });
      }
      case Command.historyCandlesticks:
        return this.history(body);
      case Command.calcIndexes: {
        const { symbols, calc_index } = decode<{ symbols: string[]; calc_index: number[] }>(SecurityCalcQuoteRequest, body);
        return encode(SecurityCalcQuoteResponse, { security_calc_index: symbols.map((s) => m.calcIndex(s, calc_index)).filter(Boolean) });
      }
      default:
        throw new SocketError(SocketStatus.badRequest, QUOTE_PARAMETER_ERROR, `the fake does not answer quote command ${command}`);
    }
  }

  private bars(symbol: string, period: number) {
    if (!isKnownPeriod(period)) throw new SocketError(SocketStatus.badRequest, QUOTE_PARAMETER_ERROR, `invalid period: ${period}`);
    if (!this.market.has(symbol)) throw new SocketError(SocketStatus.badRequest, QUOTE_PARAMETER_ERROR, `invalid symbol: ${symbol}`);
    return this.market.bars(symbol, period);
  }

  /** QueryHistoryCandlestick: by date range (query_type 2) or from an offset (query_type 1, backward or forward). */
  private history(body: Buffer): Buffer {
    type Request = {
      symbol: string;
      period: number;
      query_type: number;
      offset_request?: { direction: number; date: string; minute: string; count: number };
      date_request?: { start_date: string; end_date: string };
    };
    const request = decode<Request>(SecurityHistoryCandlestickRequest, body);
    const bars = this.bars(request.symbol, request.period);
    const dateOf = (ms: number) => this.market.localDate(request.symbol, ms);
    let picked = bars;
    if (request.query_type === 2) {
      const start = request.date_request?.start_date ? isoDate(request.date_request.start_date) : "";
      const end = request.date_request?.end_date ? isoDate(request.date_request.end_date) : "9999-12-31";
      picked = bars.filter((bar) => dateOf(bar.time) >= start && dateOf(bar.time) <= end);
    } else if (request.query_type === 1 && request.offset_request) {
      const { direction, date, minute, count } = request.offset_request;
      // The anchor is a market date (YYYYMMDD) and an optional HHMM; bars are compared by that local reading.
      const anchor = date ? `${isoDate(date)} ${minute ? minute.padStart(4, "0") : direction === 0 ? "2359" : "0000"}` : undefined;
      const stamp = (ms: number) => {
        const minutes = this.market.localMinute(request.symbol, ms);
        return `${dateOf(ms)} ${String(Math.floor(minutes / 60) * 100 + (minutes % 60)).padStart(4, "0")}`;
      };
      if (direction === 1) picked = bars.filter((bar) => !anchor || stamp(bar.time) >= anchor).slice(0, count);
      else picked = bars.filter((bar) => !anchor || stamp(bar.time) <= anchor).slice(-count);
    }
    return encode(SecurityCandlestickResponse, { symbol: request.symbol, candlesticks: this.market.candleBodies(picked) });
  }

  private firstPush(gateway: Gateway, connection: Connection, symbols: string[], types: number[]): void {
    for (const symbol of symbols) {
      if (!this.market.has(symbol)) continue;
      if (types.includes(SubType.quote)) {
        const q = this.market.securityQuote(symbol)!;
        const body = { ...q, sequence: 0, trade_session: 0, current_volume: 0, current_turnover: "0", tag: 0 };
        gateway.push(connection, Command.pushQuote, encode(PushQuote, body));
      }
      if (types.includes(SubType.depth))
        gateway.push(connection, Command.pushDepth, encode(PushDepth, { symbol, sequence: 0, ...this.market.depthBody(symbol) }));
    }
  }
}
