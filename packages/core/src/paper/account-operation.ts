import { conflict } from "../errors";
import type { FeeConfig } from "../fees/index";
import { Dec } from "../money/decimal";
import { CalendarCoverage } from "../market/calendar-data";
import { assertSupportedMarket, marketOf } from "../market/market";
import { tickTableFor, type TickTable } from "../market/tick-size";
import { dayNumberOf, isoDateOf } from "../market/zoned-time";
import type { Clock } from "../provider/clock";
import type { MarketData } from "../provider/market-data";
import type { Candlestick } from "../provider/quote-types";
import { PaperBook } from "./book";
import { accepted, refusal, refused, type BrokerRefusal, type BrokerResult } from "./rules";
import { localDate } from "./sessions";
import type { MinuteBar, PaperAccount, PaperAdjustment, PaperCurrency, PaperExecution, PaperMarket, PaperOrder } from "./types";

// One operation on a paper account (`withAccount`): its storage port, loading the account,
// matching its working orders up to now against the market's minutes, and writing what changed.

/** Storage port of the paper broker: one account item, its orders and its executions. */
export interface PaperAccountStore {
  /** The account and its working orders; undefined when the account was never opened. */
  load(accountId: string): Promise<{ account: PaperAccount; working: PaperOrder[] } | undefined>;
  getOrder(accountId: string, orderId: string): Promise<PaperOrder | undefined>;
  /** Orders submitted in `[fromMs, toMs]`, oldest first. */
  ordersSubmittedBetween(accountId: string, fromMs: number, toMs: number): Promise<PaperOrder[]>;
  /** Executions done in `[fromMs, toMs]`, oldest first. */
  executionsBetween(accountId: string, fromMs: number, toMs: number): Promise<PaperExecution[]>;
  /**
   * Writes the account with its orders and executions in one transaction, only if the stored
   * account still has `expectedVersion` (0: only if there is none); false when it does not.
   */
  commit(change: PaperCommit): Promise<boolean>;
}

export interface PaperCommit {
  account: PaperAccount;
  expectedVersion: number;
  orders: PaperOrder[];
  /** Ids among `orders` that are new: written only if absent. */
  newOrderIds: string[];
  executions: PaperExecution[];
  /** Changes that are not trades (docs/accounts.md), each written as its own record. */
  adjustments: PaperAdjustment[];
}

export interface PaperBrokerDeps {
  store: PaperAccountStore;
  /** The market the broker fills against (the provider currently selected). */
  marketData: () => Promise<MarketData>;
  clock: Clock;
  /** Fee schedule for `charge_detail` and cash (`Fees.resolve("paper")` unless configured). */
  fees: FeeConfig;
  /** Cash of a newly opened account, per currency. */
  initialCash: Record<PaperCurrency, string>;
  /** Whether a symbol is an exchange-traded product (HK ETPs have their own tick table; static info does not say). */
  isExchangeTradedProduct: (symbol: string) => boolean;
  /** A new order id, unique and sorting by submission time (see the store). */
  newOrderId: (now: number) => string;
}

/** Calendar days of minute bars fetched per provider call while matching. */
const MATCH_WINDOW_DAYS = 5;
/**
 * Orders and executions per transaction while matching (DynamoDB allows 100 items; the account is
 * one, and the request's own order with up to 10 fills may follow).
 */
const FLUSH_AT = 80;
const ATTEMPTS = 5;
const MINUTE_MS = 60_000;
/** The markets paper accounts trade. */
export const PAPER_MARKETS: readonly PaperMarket[] = ["US", "HK"];

/** What an operation on an account works with: the account's book as of `now` and the market. */
export interface AccountContext {
  deps: PaperBrokerDeps;
  accountId: string;
  book: PaperBook;
  now: number;
  data: MarketData;
}

/** A refusal decided after something worth keeping was recorded (a rejected order): written first, then answered. */
export class Refused {
  constructor(readonly refusal: BrokerRefusal) {}
}

class VersionConflict extends Error {}

export function tickTableOf(deps: PaperBrokerDeps, symbol: string, market: PaperMarket, at: number): TickTable {
  return tickTableFor(market, { etp: deps.isExchangeTradedProduct(symbol), dayNumber: dayNumberOf(localDate(market, at)) });
}

/**
 * Runs one operation on an account: load, match working orders up to now, do the work, write
 * everything it changed in one version-guarded transaction. A concurrent change makes the
 * write fail; the operation then starts over from the new state.
 */
export async function withAccount<T>(deps: PaperBrokerDeps, accountId: string, work: (ctx: AccountContext) => Promise<T>): Promise<T> {
  return operate(deps, accountId, async (ctx) => ({ value: await work(ctx), write: true }));
}

/**
 * One order operation on an account (`withAccount`): its value, or the broker's refusal as data.
 * A refusal leaves the account as it was (not even the matching up to now is written) unless the
 * work kept something first (`Refused`: a rejected order), which is written with the rest.
 */
export async function orderOperation<T>(
  deps: PaperBrokerDeps,
  accountId: string,
  work: (ctx: AccountContext) => Promise<BrokerResult<T> | Refused>,
): Promise<BrokerResult<T>> {
  return operate(deps, accountId, async (ctx) => {
    const result = await work(ctx);
    if (result instanceof Refused) return { value: refused(result.refusal), write: true };
    return { value: result, write: result.ok };
  });
}

async function operate<T>(deps: PaperBrokerDeps, accountId: string, work: (ctx: AccountContext) => Promise<{ value: T; write: boolean }>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const now = deps.clock.now();
    const data = await deps.marketData();
    const loaded = await deps.store.load(accountId);
    const options = { fees: deps.fees, now, tickTable: (order: PaperOrder, at: number) => tickTableOf(deps, order.symbol, order.market, at) };
    const book = loaded ? new PaperBook(loaded.account, loaded.working, options, true) : PaperBook.open(accountId, deps.initialCash, options);
    const ctx: AccountContext = { deps, accountId, book, now, data };
    try {
      await advance(ctx);
      const { value, write } = await work(ctx);
      if (write) await flush(ctx);
      return value;
    } catch (error) {
      if (!(error instanceof VersionConflict)) throw error;
      if (attempt >= ATTEMPTS) {
        throw conflict("PAPER_ACCOUNT_BUSY", `paper account ${accountId} kept changing under ${ATTEMPTS} attempts; try again`);
      }
      await new Promise((resolve) => setTimeout(resolve, 10 * attempt + Math.floor(Math.random() * 20)));
    }
  }
}

async function flush(ctx: AccountContext): Promise<void> {
  if (!ctx.book.hasChanges()) return;
  const changes = ctx.book.changes();
  const written = await ctx.deps.store.commit({ ...changes, expectedVersion: ctx.book.account.version });
  if (!written) throw new VersionConflict();
  ctx.book.committed(changes);
}

function barOf(candle: Candlestick): MinuteBar {
  const start = Date.parse(candle.timestamp);
  return {
    start,
    end: start + MINUTE_MS,
    open: candle.open,
    high: candle.high,
    low: candle.low,
    close: candle.close,
    volume: candle.volume,
    session: candle.trade_session,
  };
}

/**
 * Matches every working order against the minutes completed since it was last matched, in
 * time order across symbols (so cash freed by one fill is there for the next), a few trading
 * days of bars at a time; then ends `Day`/`GTD` orders whose time is up.
 */
async function advance(ctx: AccountContext): Promise<void> {
  const { book, now } = ctx;
  const initial = book.workingOrders();
  if (initial.length === 0) return;
  const from = Math.min(...initial.map((order) => order.matched_until));
  // Bars end on minute boundaries: with none passed since the last match there is nothing new to fetch.
  if (Math.floor(now / MINUTE_MS) === Math.floor(from / MINUTE_MS)) return book.matchedThrough(now);
  const firstDay = Math.max(dayNumberOf(CalendarCoverage.first), Math.min(...PAPER_MARKETS.map((m) => dayNumberOf(localDate(m, from)))));
  // +1: the US overnight session belongs to the next trading date.
  const lastDay = Math.min(dayNumberOf(CalendarCoverage.last), Math.max(...PAPER_MARKETS.map((m) => dayNumberOf(localDate(m, now)))) + 1);
  for (let start = firstDay; start <= lastDay; start += MATCH_WINDOW_DAYS) {
    const working = book.workingOrders();
    if (working.length === 0) break;
    const end = Math.min(start + MATCH_WINDOW_DAYS - 1, lastDay);
    const bySymbol = new Map<string, PaperOrder[]>();
    for (const order of working) bySymbol.set(order.symbol, [...(bySymbol.get(order.symbol) ?? []), order]);
    const events: { symbol: string; bar: MinuteBar }[] = [];
    for (const [symbol, orders] of bySymbol) {
      const since = Math.min(...orders.map((order) => order.matched_until));
      const candles = await ctx.data.historyCandlesticksByDate(symbol, "1m", "NoAdjust", isoDateOf(start), isoDateOf(end), "All");
      for (const candle of candles) {
        const bar = barOf(candle);
        if (bar.end > since && bar.end <= now) events.push({ symbol, bar });
      }
    }
    events.sort((a, b) => a.bar.end - b.bar.end || (a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0));
    for (const { symbol, bar } of events) {
      for (const order of bySymbol.get(symbol)!) {
        book.matchBar(order, bar);
        if (book.pendingItems() >= FLUSH_AT) await flush(ctx);
      }
    }
  }
  for (const order of book.workingOrders()) {
    if (order.expires_at !== null && order.expires_at <= now) book.expire(order);
  }
  book.matchedThrough(now);
}

export async function lastPrice(data: MarketData, symbol: string): Promise<Dec> {
  const trades = await data.trades(symbol, 1);
  if (trades.length) return new Dec(trades[trades.length - 1].price);
  const [quote] = await data.quote([symbol]);
  return new Dec(quote.last_done);
}

/** The account's order, or the refusal `ORDER_NOT_FOUND` (404) when the account has none by that id. */
export async function findOrder(ctx: AccountContext, orderId: string): Promise<BrokerResult<PaperOrder>> {
  const known = ctx.book.order(orderId);
  if (known) return accepted(known);
  const stored = await ctx.deps.store.getOrder(ctx.accountId, orderId);
  if (!stored) return refused(refusal("ORDER_NOT_FOUND", `order ${orderId} does not exist in this account`, { order_id: orderId }, 404));
  return accepted(ctx.book.adopt(stored));
}

export function tradableMarket(symbol: string): PaperMarket {
  const market = marketOf(symbol);
  assertSupportedMarket(market, "Trading in market");
  return market as PaperMarket;
}
