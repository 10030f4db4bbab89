import { MarketCalendar } from "./calendar";
import { type TradingClock, toMs, zonedDate, zonedInstant, zonedParts } from "./clock";
import { type Bar, buildBars, isKnownPeriod, MARKETS, type MarketCode, marketOf, Period } from "./candles";
import { CALC_INDEX_FIELDS, Command, SubType, TradeSession } from "./messages";

/** A listed security as a test declares it; everything but the symbol has a default by market. */
export interface SecuritySpec {
  symbol: string;
  nameEn?: string;
  nameCn?: string;
  nameHk?: string;
  currency?: string;
  lotSize?: number;
  /** LongPort's board name (`USMain`, `HKEquity`, ...): the SDK picks its candlestick rules by it. */
  board?: string;
  exchange?: string;
  prevClose?: number;
  lastDone?: number;
}

/** A trade tick to push: `at` defaults to the trading clock's now, `session` to the regular one. */
export interface TradeTick {
  price: number;
  volume?: number;
  at?: number | string | Date;
  /** LongPort's trade type: "" is a normal trade; US "I" (odd lot) moves volume only in the SDK's bars. */
  tradeType?: string;
  /** 0 neutral, 1 down, 2 up. */
  direction?: number;
  session?: number;
}

export interface TradeRecord {
  price: number;
  volume: number;
  at: number;
  tradeType: string;
  direction: number;
  session: number;
}

export interface DepthLevel {
  price: number;
  volume: number;
  orders?: number;
}

interface QuoteState {
  lastDone: number;
  prevClose: number;
  open: number;
  high: number;
  low: number;
  volume: number;
  turnover: number;
  timestamp: number;
  tradeStatus: number;
}

interface SecurityState {
  spec: Required<SecuritySpec>;
  market: MarketCode;
  quote: QuoteState;
  asks: DepthLevel[];
  bids: DepthLevel[];
  trades: TradeRecord[];
  seeded: Map<number, Bar[]>;
  sequence: number;
}

/** A quote-gateway push the market produced: the sockets send it to connections subscribed to `subType`. */
export interface MarketPush {
  symbol: string;
  command: number;
  subType: number;
  body: Record<string, unknown>;
}

const DEFAULTS: Record<MarketCode, { currency: string; lotSize: number; board: string; exchange: string }> = {
  US: { currency: "USD", lotSize: 1, board: "USMain", exchange: "NASD" },
  HK: { currency: "HKD", lotSize: 100, board: "HKEquity", exchange: "SEHK" },
  CN: { currency: "CNY", lotSize: 100, board: "SHMainConnect", exchange: "SSE" },
  SG: { currency: "SGD", lotSize: 100, board: "SGMain", exchange: "SGX" },
};

/** A price or amount as the protocol's decimal strings carry it (at most 4 places, no float noise). */
export const dec = (n: number, places = 4) => String(Number(n.toFixed(places)));
const seconds = (ms: number) => Math.floor(ms / 1000);

/** A quote's fields as a quote answer and a quote push both carry them. */
const quoteFields = (q: QuoteState) => ({
  last_done: dec(q.lastDone),
  open: dec(q.open),
  high: dec(q.high),
  low: dec(q.low),
  timestamp: seconds(q.timestamp),
  volume: q.volume,
  turnover: dec(q.turnover, 2),
  trade_status: q.tradeStatus,
});

/**
 * The fake's market: securities, their quote, depth and trades, stored candlesticks, the trading
 * calendar. `trade()` is the one way prices move; it emits a trade push and then a quote push, as
 * LongPort does for a trade.
 */
export class FakeMarket {
  private readonly securities = new Map<string, SecurityState>();
  private readonly listeners = new Set<(push: MarketPush) => void>();
  /** Trading days, half days, holidays and sessions per market. */
  readonly calendar = new MarketCalendar();

  constructor(private readonly clock: TradingClock) {}

  onPush(listener: (push: MarketPush) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(push: MarketPush): void {
    for (const listener of this.listeners) listener(push);
  }

  add(spec: SecuritySpec): void {
    const market = marketOf(spec.symbol);
    if (!market) throw new Error(`unknown market for ${spec.symbol}`);
    const d = DEFAULTS[market];
    const prevClose = spec.prevClose ?? 100;
    const lastDone = spec.lastDone ?? prevClose;
    const full: Required<SecuritySpec> = {
      symbol: spec.symbol,
      nameEn: spec.nameEn ?? spec.symbol,
      nameCn: spec.nameCn ?? spec.nameEn ?? spec.symbol,
      nameHk: spec.nameHk ?? spec.nameEn ?? spec.symbol,
      currency: spec.currency ?? d.currency,
      lotSize: spec.lotSize ?? d.lotSize,
      board: spec.board ?? d.board,
      exchange: spec.exchange ?? d.exchange,
      prevClose,
      lastDone,
    };
    // Until its first trade a security shows the last session's close, stamped at that close.
    const timestamp = this.calendar.lastClose(market, this.clock.now());
    const quote = { lastDone, prevClose, open: lastDone, high: lastDone, low: lastDone, volume: 0, turnover: 0, timestamp, tradeStatus: 0 };
    this.securities.set(spec.symbol, { spec: full, market, quote, asks: [], bids: [], trades: [], seeded: new Map(), sequence: 0 });
  }

  has(symbol: string): boolean {
    return this.securities.has(symbol);
  }

  /** The security's settings (name, currency, lot size, board, ...). */
  spec(symbol: string): Required<SecuritySpec> {
    return this.state(symbol).spec;
  }

  lastPrice(symbol: string): number {
    return this.state(symbol).quote.lastDone;
  }

  private state(symbol: string): SecurityState {
    const state = this.securities.get(symbol);
    if (!state) throw new Error(`the fake market does not list ${symbol}`);
    return state;
  }

  /** Records a trade and pushes it (PushTrade), then the quote it moved (PushQuote). */
  trade(symbol: string, tick: TradeTick): TradeRecord {
    const s = this.state(symbol);
    const record: TradeRecord = {
      price: tick.price,
      volume: tick.volume ?? 100,
      at: tick.at === undefined ? this.clock.now() : toMs(tick.at),
      tradeType: tick.tradeType ?? "",
      direction: tick.direction ?? 0,
      session: tick.session ?? TradeSession.normal,
    };
    s.trades.push(record);
    const q = s.quote;
    if (record.session === TradeSession.normal) {
      const tz = MARKETS[s.market].timeZone;
      // The first regular trade of a new market day starts the day's figures.
      if (q.volume === 0 || (record.at > q.timestamp && zonedDate(record.at, tz) !== zonedDate(q.timestamp, tz))) {
        if (q.volume > 0) q.prevClose = q.lastDone;
        q.open = q.high = q.low = record.price;
        q.volume = q.turnover = 0;
      }
      q.high = Math.max(q.high, record.price);
      q.low = Math.min(q.low, record.price);
      q.lastDone = record.price;
      q.volume += record.volume;
      q.turnover += record.price * record.volume;
    }
    q.timestamp = Math.max(q.timestamp, record.at);
    this.emit({ symbol, command: Command.pushTrade, subType: SubType.trade, body: { symbol, sequence: ++s.sequence, trade: [this.tradeBody(record)] } });
    this.emit({
      symbol,
      command: Command.pushQuote,
      subType: SubType.quote,
      body: this.pushQuoteBody(s, record.volume, record.price * record.volume, record.session),
    });
    return record;
  }

  /** Changes quote fields (e.g. a halt: `tradeStatus: 1`) and pushes the quote. */
  setQuote(symbol: string, fields: Partial<QuoteState>): void {
    const s = this.state(symbol);
    Object.assign(s.quote, fields);
    this.emit({ symbol, command: Command.pushQuote, subType: SubType.quote, body: this.pushQuoteBody(s, 0, 0, TradeSession.normal) });
  }

  /** Replaces the order book and pushes it (PushDepth). */
  setDepth(symbol: string, asks: DepthLevel[], bids: DepthLevel[]): void {
    const s = this.state(symbol);
    s.asks = asks;
    s.bids = bids;
    this.emit({ symbol, command: Command.pushDepth, subType: SubType.depth, body: { symbol, sequence: ++s.sequence, ...this.depthBody(s) } });
  }

  /**
   * Stores history bars of `period` (quote/api.proto `Period`: 1 = one minute, 1000 = day, ...).
   * Day bars seeded before any trade also set the quote: the last bar's figures, stamped at that
   * day's close (the snapshot LongPort shows, and pushes first, before the next session).
   */
  seedCandles(symbol: string, period: number, bars: Array<Omit<Bar, "time" | "turnover"> & { time: number | string | Date; turnover?: number }>): void {
    if (!isKnownPeriod(period)) throw new Error(`unknown period ${period}`);
    const stored = bars.map((bar) => ({ ...bar, time: toMs(bar.time), turnover: bar.turnover ?? bar.close * bar.volume })).sort((a, b) => a.time - b.time);
    const s = this.state(symbol);
    s.seeded.set(period, stored);
    const last = stored.at(-1);
    if (period !== Period.day || s.trades.length > 0 || !last) return;
    const { timeZone, sessions } = MARKETS[s.market];
    const timestamp = zonedInstant(zonedDate(last.time, timeZone), sessions[sessions.length - 1][1], timeZone);
    const prevClose = stored.at(-2)?.close ?? s.quote.prevClose;
    Object.assign(s.quote, {
      open: last.open,
      high: last.high,
      low: last.low,
      lastDone: last.close,
      volume: last.volume,
      turnover: last.turnover,
      timestamp,
      prevClose,
    });
  }

  /** The bars of `period`: seeded ones merged with the regular-session trades. */
  bars(symbol: string, period: number): Bar[] {
    const s = this.state(symbol);
    const ticks = s.trades.filter((t) => t.session === TradeSession.normal);
    return buildBars(s.market, period, s.seeded.get(period) ?? [], ticks, (ms) => this.calendar.isHalfDay(s.market, ms));
  }

  // ---- answers for the quote gateway (protocol shapes) ----

  staticInfo(symbol: string): Record<string, unknown> | undefined {
    const s = this.securities.get(symbol);
    if (!s) return undefined;
    const { spec } = s;
    return {
      symbol,
      name_cn: spec.nameCn,
      name_en: spec.nameEn,
      name_hk: spec.nameHk,
      listing_date: "19801212",
      exchange: spec.exchange,
      currency: spec.currency,
      lot_size: spec.lotSize,
      total_shares: 1_000_000_000,
      circulating_shares: 1_000_000_000,
      hk_shares: s.market === "HK" ? 1_000_000_000 : 0,
      eps: "1.5",
      eps_ttm: "1.6",
      bps: "4.2",
      dividend_yield: "0.5",
      stock_derivatives: [],
      board: spec.board,
    };
  }

  securityQuote(symbol: string): Record<string, unknown> | undefined {
    const s = this.securities.get(symbol);
    if (!s) return undefined;
    return { symbol, prev_close: dec(s.quote.prevClose), ...quoteFields(s.quote) };
  }

  depthBody(s: SecurityState | string): { ask: unknown[]; bid: unknown[] } {
    const state = typeof s === "string" ? this.securities.get(s) : s;
    const level = (l: DepthLevel, i: number) => ({ position: i + 1, price: dec(l.price), volume: l.volume, order_num: l.orders ?? 1 });
    return { ask: (state?.asks ?? []).map(level), bid: (state?.bids ?? []).map(level) };
  }

  tradesBody(symbol: string, count: number): Record<string, unknown>[] {
    return (this.securities.get(symbol)?.trades ?? []).slice(-count).map((t) => this.tradeBody(t));
  }

  private tradeBody(t: TradeRecord): Record<string, unknown> {
    return { price: dec(t.price), volume: t.volume, timestamp: seconds(t.at), trade_type: t.tradeType, direction: t.direction, trade_session: t.session };
  }

  private pushQuoteBody(s: SecurityState, currentVolume: number, currentTurnover: number, session: number): Record<string, unknown> {
    return {
      symbol: s.spec.symbol,
      sequence: ++s.sequence,
      ...quoteFields(s.quote),
      trade_session: session,
      current_volume: currentVolume,
      current_turnover: dec(currentTurnover, 2),
      tag: 0,
    };
  }

  /** Protocol candlesticks (times in Unix seconds) of bars. */
  candleBodies(bars: Bar[]): Record<string, unknown>[] {
    return bars.map((b) => ({
      close: dec(b.close),
      open: dec(b.open),
      low: dec(b.low),
      high: dec(b.high),
      volume: b.volume,
      turnover: dec(b.turnover, 2),
      timestamp: seconds(b.time),
      trade_session: TradeSession.normal,
    }));
  }

  /** Today's minute lines (price = the minute's close, avg_price = the day's volume-weighted average so far). */
  intradayLines(symbol: string): Record<string, unknown>[] {
    const s = this.securities.get(symbol);
    if (!s) return [];
    const tz = MARKETS[s.market].timeZone;
    const today = zonedDate(this.clock.now(), tz);
    let volume = 0;
    let turnover = 0;
    return this.bars(symbol, Period.min1)
      .filter((bar) => zonedDate(bar.time, tz) === today)
      .map((bar) => {
        volume += bar.volume;
        turnover += bar.turnover;
        return { price: dec(bar.close), timestamp: seconds(bar.time), volume: bar.volume, turnover: dec(bar.turnover, 2), avg_price: dec(turnover / volume) };
      });
  }

  /** The calc-index fields of `symbol` the protocol's CALCINDEX values ask for (1 = last done, 2 = change, ...). */
  calcIndex(symbol: string, indexes: number[]): Record<string, unknown> | undefined {
    const s = this.securities.get(symbol);
    if (!s) return undefined;
    const q = s.quote;
    const change = q.lastDone - q.prevClose;
    const known: Record<string, string | number> = {
      last_done: dec(q.lastDone),
      change_val: dec(change),
      change_rate: dec((change / q.prevClose) * 100, 2),
      volume: q.volume,
      turnover: dec(q.turnover, 2),
      total_market_value: dec(q.lastDone * 1_000_000_000, 0),
      amplitude: dec(q.high && q.prevClose ? ((q.high - q.low) / q.prevClose) * 100 : 0, 2),
      pe_ttm_ratio: dec(q.lastDone / 1.6, 2),
    };
    const out: Record<string, unknown> = { symbol };
    for (const index of indexes) {
      const name = CALC_INDEX_FIELDS[index - 1];
      if (name && name in known) out[name] = known[name];
    }
    return out;
  }

  /** The market date (YYYY-MM-DD) of `ms` for `symbol`. */
  localDate(symbol: string, ms: number): string {
    return zonedDate(ms, MARKETS[this.state(symbol).market].timeZone);
  }

  /** Minutes after local midnight of `ms` in `symbol`'s market. */
  localMinute(symbol: string, ms: number): number {
    const p = zonedParts(ms, MARKETS[this.state(symbol).market].timeZone);
    return p.hour * 60 + p.minute;
  }
}
