import { conflict, type DomainError } from "../errors";
import type { FeeConfig } from "../fees/index";
import { Dec, Round } from "../fees/money";
import { CalendarCoverage } from "../market/calendar-data";
import { replacementProblems } from "../engine/order-rules";
import { assertSupportedMarket, Markets, marketOf, normalizeSymbol } from "../market/market";
import { tickTableFor, type TickTable } from "../market/tick-size";
import { dayNumberOf, isoDateOf, zonedTimeToUtc } from "../market/zoned-time";
import type { Clock } from "../provider/clock";
import type { MarketData } from "../provider/market-data";
import type {
  AccountBalance,
  EstimateMaxPurchaseQuantityOptions,
  EstimateMaxPurchaseQuantityResponse,
  Execution,
  GetHistoryExecutionsOptions,
  GetHistoryOrdersOptions,
  GetTodayExecutionsOptions,
  GetTodayOrdersOptions,
  Order,
  OrderDetail,
  ReplaceOrderOptions,
  StockPositionsResponse,
  SubmitOrderOptions,
  SubmitOrderResponse,
} from "../provider/order-gateway";
import { checkOrderRules, OrderTypeSpecs, SupportedOrderTypes, type OrderType } from "../provider/order-types";
import type { Candlestick, Depth } from "../provider/quote-types";
import { PaperBook } from "./book";
import { sweepLevels, trailingLimit, trailingTrigger } from "./matching";
import { expireDateProblems, quantityProblems, refusal, refusalOf, tickProblems, trailingProblems, type BrokerProblem } from "./rules";
import { allowedSessions, endOfTradingDate, localDate, preOpeningWindow, sessionAt, tradingDayOnOrBefore } from "./sessions";
import {
  CurrencyOfMarket,
  isDone,
  PaperCurrencies,
  type MinuteBar,
  type PaperAccount,
  type PaperAdjustment,
  type PaperCurrency,
  type PaperExecution,
  type PaperMarket,
  type PaperOrder,
} from "./types";
import { balanceView, executionView, orderDetailView, orderView, positionsView } from "./views";
import { iso } from "../time";

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

/** Market-type buys (`AO`, `MIT`) hold cash at this multiple of their reference price, for slippage. */
export const MARKET_ORDER_RESERVE_FACTOR = "1.05";
/** Book levels one order may take at once (LongPort: ELO and SLO match up to 10 price queues). */
const MAX_BOOK_LEVELS = 10;
/** Calendar days of minute bars fetched per provider call while matching. */
const MATCH_WINDOW_DAYS = 5;
/**
 * Orders and executions per transaction while matching (DynamoDB allows 100 items; the account is
 * one, and the request's own order with up to 10 fills may follow).
 */
const FLUSH_AT = 80;
/** Working orders one account may have; bounds the account item and the work of each look. */
export const MAX_WORKING_ORDERS = 200;
const ATTEMPTS = 5;
const HISTORY_DAYS = 90;
const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;
const MARKETS: readonly PaperMarket[] = ["US", "HK"];

interface Context {
  deps: PaperBrokerDeps;
  accountId: string;
  book: PaperBook;
  now: number;
  data: MarketData;
}

/** A refusal decided after something worth keeping was recorded (a rejected order): written first, then thrown. */
class Refused {
  constructor(readonly error: DomainError) {}
}

class VersionConflict extends Error {}

function tickTableOf(deps: PaperBrokerDeps, symbol: string, market: PaperMarket, at: number): TickTable {
  return tickTableFor(market, { etp: deps.isExchangeTradedProduct(symbol), dayNumber: dayNumberOf(localDate(market, at)) });
}

/**
 * Runs one operation on an account: load, match working orders up to now, do the work, write
 * everything it changed in one version-guarded transaction. A concurrent change makes the
 * write fail; the operation then starts over from the new state.
 */
export async function withAccount<T>(deps: PaperBrokerDeps, accountId: string, work: (ctx: Context) => Promise<T | Refused>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const now = deps.clock.now();
    const data = await deps.marketData();
    const loaded = await deps.store.load(accountId);
    const options = { fees: deps.fees, now, tickTable: (order: PaperOrder, at: number) => tickTableOf(deps, order.symbol, order.market, at) };
    const book = loaded ? new PaperBook(loaded.account, loaded.working, options, true) : PaperBook.open(accountId, deps.initialCash, options);
    const ctx: Context = { deps, accountId, book, now, data };
    try {
      await advance(ctx);
      const result = await work(ctx);
      await flush(ctx);
      if (result instanceof Refused) throw result.error;
      return result;
    } catch (error) {
      if (!(error instanceof VersionConflict)) throw error;
      if (attempt >= ATTEMPTS) {
        throw conflict("PAPER_ACCOUNT_BUSY", `paper account ${accountId} kept changing under ${ATTEMPTS} attempts; try again`);
      }
      await new Promise((resolve) => setTimeout(resolve, 10 * attempt + Math.floor(Math.random() * 20)));
    }
  }
}

async function flush(ctx: Context): Promise<void> {
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
async function advance(ctx: Context): Promise<void> {
  const { book, now } = ctx;
  const initial = book.workingOrders();
  if (initial.length === 0) return;
  const from = Math.min(...initial.map((order) => order.matched_until));
  // Bars end on minute boundaries: with none passed since the last match there is nothing new to fetch.
  if (Math.floor(now / MINUTE_MS) === Math.floor(from / MINUTE_MS)) return book.matchedThrough(now);
  const firstDay = Math.max(dayNumberOf(CalendarCoverage.first), Math.min(...MARKETS.map((m) => dayNumberOf(localDate(m, from)))));
  // +1: the US overnight session belongs to the next trading date.
  const lastDay = Math.min(dayNumberOf(CalendarCoverage.last), Math.max(...MARKETS.map((m) => dayNumberOf(localDate(m, now)))) + 1);
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

async function lastPrice(data: MarketData, symbol: string): Promise<Dec> {
  const trades = await data.trades(symbol, 1);
  if (trades.length) return new Dec(trades[trades.length - 1].price);
  const [quote] = await data.quote([symbol]);
  return new Dec(quote.last_done);
}

async function overnightEnabled(data: MarketData): Promise<boolean> {
  const sessions = await data.tradingSession();
  return sessions.some((m) => m.market === "US" && m.trade_sessions.some((s) => s.trade_session === "Overnight"));
}

async function findOrder(ctx: Context, orderId: string): Promise<PaperOrder> {
  const known = ctx.book.order(orderId);
  if (known) return known;
  const stored = await ctx.deps.store.getOrder(ctx.accountId, orderId);
  if (!stored) throw refusal("ORDER_NOT_FOUND", `order ${orderId} does not exist in this account`, { order_id: orderId }, 404);
  return ctx.book.adopt(stored);
}

function tradableMarket(symbol: string): PaperMarket {
  const market = marketOf(symbol);
  assertSupportedMarket(market, "Trading in market");
  return market as PaperMarket;
}

const usesField = (orderType: OrderType, field: string) => (OrderTypeSpecs[orderType].required_fields as string[]).includes(field);
const plainDecimal = (value: string | undefined) => (value === undefined ? null : new Dec(value).toFixed());

/** Cash per share a buy holds while it works: its limit, or its reference price with a margin for market-type orders. */
function reservePriceOf(order: PaperOrder, last: Dec, table: TickTable): string | null {
  if (order.side !== "Buy") return null;
  switch (order.order_type) {
    case "MO":
      // Filled at once against the displayed book (checked against cash first); nothing is left to hold.
      return null;
    case "AO":
      return Round.nearestCent(last.times(MARKET_ORDER_RESERVE_FACTOR)).toFixed();
    case "MIT":
      return Round.nearestCent(new Dec(order.trigger_price!).times(MARKET_ORDER_RESERVE_FACTOR)).toFixed();
    case "TSLPAMT":
    case "TSLPPCT":
      // The trigger of a trailing buy only moves down, so its first limit is the most it can cost.
      return order.price ?? trailingLimit("Buy", new Dec(order.trigger_price!), order.limit_offset ?? "0", table).toFixed();
    default:
      return order.price;
  }
}

/** Where the market must go for a touch order to trigger: from the last price towards the trigger. */
const touchOf = (trigger: Dec, last: Dec): "up" | "down" => (trigger.gt(last) ? "up" : "down");

function bookSide(order: PaperOrder, depth: { asks: Depth[]; bids: Depth[] }): Depth[] {
  return order.side === "Buy" ? depth.asks : depth.bids;
}

/** Levels a limit order takes on arrival: HK limit orders match at the best price only; ELO, SLO and US limits up to 10 levels. */
const limitLevels = (order: PaperOrder) => (order.market === "HK" && (order.order_type === "LO" || order.order_type === "LIT") ? 1 : MAX_BOOK_LEVELS);

/**
 * What an order does on arrival, or after a replace: marketable parts trade against the displayed
 * book. (A replaced market remainder keeps filling minute by minute instead.)
 */
async function matchOnArrival(ctx: Context, order: PaperOrder, last: Dec, replaced = false): Promise<void> {
  const { book, now } = ctx;
  if (replaced && order.phase === "market") return;
  if (order.phase === "trigger" && (order.order_type === "LIT" || order.order_type === "MIT") && new Dec(order.trigger_price!).eq(last)) {
    book.release(order, now);
    order.phase = order.order_type === "MIT" ? "market" : "limit";
  }
  const type = order.order_type;
  if (order.phase === "market") {
    book.sweep(order, bookSide(order, await ctx.data.depth(order.symbol)), MAX_BOOK_LEVELS, null, now);
    if (type === "MO" && !isDone(order)) {
      book.withdraw(order, `the displayed book held only ${order.executed_quantity} of ${order.quantity} shares: a market order's remainder is withdrawn`, now);
    }
    return;
  }
  if (order.phase === "limit" && type !== "ODD" && type !== "ALO") {
    book.sweep(order, bookSide(order, await ctx.data.depth(order.symbol)), limitLevels(order), new Dec(order.price!), now);
    if (type === "SLO" && !isDone(order)) {
      book.withdraw(order, "an SLO order's remainder is cancelled once it has matched what it can", now);
    }
  }
}

function closedMessage(order: PaperOrder, now: number, session: string | null): string {
  const where = session ? `in its ${session} session` : "closed";
  const terms = order.market === "US" ? `${order.order_type} with outside_rth=${order.outside_rth}` : order.order_type;
  return `the ${order.market} market is ${where} at ${iso(now)}; ${terms} trades in: ${order.sessions.join(", ")}`;
}

/** Start (epoch ms) of the current exchange-local day of whichever market's day began first. */
function startOfToday(now: number): number {
  return Math.min(...MARKETS.map((m) => zonedTimeToUtc(Markets[m].timeZone, dayNumberOf(localDate(m, now)), 0)));
}

const isToday = (market: PaperMarket, instant: number, now: number) => localDate(market, instant) === localDate(market, now);

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/** `[from, to]` in epoch ms from optional ISO dates (whole UTC days, the end inclusive) or instants. Default: the last 90 days. */
function rangeOf(startAt: string | undefined, endAt: string | undefined, now: number): [number, number] {
  const parse = (value: string, end: boolean) => (DATE_ONLY.test(value) ? Date.parse(`${value}T00:00:00Z`) + (end ? DAY_MS - 1 : 0) : Date.parse(value));
  const to = endAt ? parse(endAt, true) : now;
  const from = startAt ? parse(startAt, false) : to - HISTORY_DAYS * DAY_MS;
  if (!Number.isFinite(from) || !Number.isFinite(to)) throw refusal("INVALID_DATE_RANGE", "start_at and end_at must be ISO dates or instants");
  if (from > to) throw refusal("INVALID_DATE_RANGE", `start_at ${startAt} is after end_at ${endAt ?? iso(now)}`);
  return [from, to];
}

function orderFilter(options: GetTodayOrdersOptions & GetHistoryOrdersOptions) {
  const symbol = options.symbol ? normalizeSymbol(options.symbol) : undefined;
  return (order: PaperOrder) =>
    (!symbol || order.symbol === symbol) &&
    (!options.status?.length || options.status.includes(order.status)) &&
    (!options.side || order.side === options.side) &&
    (!options.market || order.market === options.market) &&
    (!options.order_id || order.order_id === options.order_id);
}

const byId = (a: { order_id: string }, b: { order_id: string }) => (a.order_id < b.order_id ? -1 : a.order_id > b.order_id ? 1 : 0);

/**
 * The paper broker: LongPort's order types and account queries against the simulated (or any)
 * market, with its state in the table. Orders are matched when the account is looked at: every
 * call first matches working orders against the minutes completed since their last match.
 */
export const PaperBroker = {
  /** `sleeve`: the session whose capital the order trades (its sleeve's cash and shares), else the account's free ones. */
  async submitOrder(deps: PaperBrokerDeps, accountId: string, options: SubmitOrderOptions, sleeve?: string): Promise<SubmitOrderResponse> {
    const symbol = normalizeSymbol(options.symbol);
    const market = tradableMarket(symbol);
    const ruleProblems: BrokerProblem[] = [...checkOrderRules(market, options), ...trailingProblems(options.order_type, options.trailing_percent)];
    if (ruleProblems.length) throw refusalOf(ruleProblems);
    const type = options.order_type;

    return withAccount(deps, accountId, async (ctx) => {
      const { book, now, data } = ctx;
      const [info] = await data.staticInfo([symbol]);
      const table = tickTableOf(deps, symbol, market, now);
      const problems = [
        ...quantityProblems(market, type, options.submitted_quantity, info.lot_size),
        ...tickProblems(
          table,
          (["submitted_price", "trigger_price"] as const).filter((f) => usesField(type, f)).map((field) => ({ field, value: options[field] })),
        ),
      ];
      if (problems.length) throw refusalOf(problems);

      const trailing = type === "TSLPAMT" || type === "TSLPPCT";
      const outsideRth = market === "US" ? (options.outside_rth ?? "RTH_ONLY") : null;
      const submittedPrice = usesField(type, "submitted_price") ? plainDecimal(options.submitted_price) : null;
      const order: PaperOrder = {
        account_id: accountId,
        order_id: deps.newOrderId(now),
        symbol,
        stock_name: info.name_en,
        market,
        currency: CurrencyOfMarket[market],
        lot_size: info.lot_size,
        order_type: type,
        side: options.side,
        time_in_force: options.time_in_force,
        outside_rth: outsideRth,
        expire_date: options.time_in_force === "GTD" ? (options.expire_date ?? null) : null,
        remark: options.remark ?? "",
        msg: "",
        status: "NotReported",
        tag: options.time_in_force === "GTC" ? "GTC" : "Normal",
        quantity: new Dec(options.submitted_quantity).toFixed(),
        executed_quantity: "0",
        executed_amount: "0",
        price: submittedPrice,
        submitted_price: submittedPrice,
        trigger_price: usesField(type, "trigger_price") ? plainDecimal(options.trigger_price) : null,
        limit_offset: trailing ? plainDecimal(options.limit_offset) : null,
        trailing_amount: type === "TSLPAMT" ? plainDecimal(options.trailing_amount) : null,
        trailing_percent: type === "TSLPPCT" ? plainDecimal(options.trailing_percent) : null,
        trigger_status: type === "LIT" || type === "MIT" || trailing ? "ACTIVE" : "NOT_USED",
        trigger_at: null,
        touch: null,
        trailing_reference: null,
        phase: type === "AO" || type === "ALO" ? "auction" : type === "LIT" || type === "MIT" || trailing ? "trigger" : type === "MO" ? "market" : "limit",
        auction_at: null,
        sessions: allowedSessions(market, outsideRth),
        trading_date: localDate(market, now),
        expires_at: null,
        reserve_price: null,
        frozen_cash: "0.00",
        frozen_fees: "0.00",
        frozen_quantity: "0",
        fees_charged: "0.00",
        fee_details: null,
        last_done: null,
        submitted_at: iso(now),
        updated_at: iso(now),
        matched_until: now,
        fills: 0,
        history: [],
        ...(sleeve !== undefined ? { sleeve } : {}),
      };
      if (sleeve !== undefined) book.sleeve(sleeve);
      const reject = (code: string, message: string, extra: Record<string, unknown> = {}) => {
        book.recordRejected(order, `${code}: ${message}`);
        return new Refused(refusal(code, message, { order_id: order.order_id, ...extra }));
      };

      if (book.account.working.length >= MAX_WORKING_ORDERS) {
        return reject("TOO_MANY_WORKING_ORDERS", `the account already has ${MAX_WORKING_ORDERS} working orders; cancel some first`);
      }
      if (type === "AO" || type === "ALO") {
        const window = preOpeningWindow(market, now);
        if (!window) {
          return reject(
            "MARKET_CLOSED",
            `${type} orders are taken in the HK pre-opening session (09:00–09:15 of a trading day) and match in the opening auction; it is ${iso(now)}`,
          );
        }
        order.trading_date = window.trading_date;
        order.auction_at = window.opens_at;
      } else {
        const position = sessionAt(market, now, market === "US" && (await overnightEnabled(data)));
        if (!position || !order.sessions.includes(position.session)) return reject("MARKET_CLOSED", closedMessage(order, now, position?.session ?? null));
        if (position.session !== "Intraday" && type !== "LO") {
          return reject("ORDER_TYPE_NOT_ALLOWED_IN_SESSION", `only LO orders are taken in the ${position.session} session, not ${type}`);
        }
        order.trading_date = position.date;
      }
      const dateProblems = expireDateProblems(market, order.time_in_force, order.expire_date, order.trading_date);
      if (dateProblems.length) throw refusalOf(dateProblems);
      const lastDay = order.time_in_force === "GTD" ? tradingDayOnOrBefore(market, order.expire_date!)! : order.trading_date;
      order.expires_at = order.time_in_force === "GTC" ? null : endOfTradingDate(market, lastDay, order.sessions);

      const last = await lastPrice(data, symbol);
      if (type === "LIT" || type === "MIT") order.touch = touchOf(new Dec(order.trigger_price!), last);
      if (trailing) {
        order.trailing_reference = last.toFixed();
        order.trigger_price = trailingTrigger(order, last, table).toFixed();
      }
      order.reserve_price = reservePriceOf(order, last, table);

      const quantity = new Dec(order.quantity);
      if (order.side === "Sell") {
        const free = book.positionAvailable(symbol, sleeve);
        if (free.lt(quantity)) {
          const held = book.account.positions[symbol]?.quantity ?? "0";
          return reject(
            "INSUFFICIENT_POSITION",
            `selling ${order.quantity} ${symbol} needs that many free shares; the account holds ${held}, ${free.toFixed()} free (short selling is not offered)`,
            { available_quantity: free.toFixed() },
          );
        }
      } else {
        const available = book.available(order.currency, sleeve);
        let required: Dec;
        if (type === "MO") {
          const plan = sweepLevels("Buy", (await data.depth(symbol)).asks, quantity, null, MAX_BOOK_LEVELS);
          if (plan.length === 0) return reject("NO_LIQUIDITY", `no ask is displayed for ${symbol}; a market order has nothing to trade against`);
          const planned = plan.reduce((sum, level) => sum.plus(level.quantity), new Dec(0));
          const value = plan.reduce((sum, level) => sum.plus(level.quantity.times(level.price)), new Dec(0));
          required = Round.nearestCent(value).plus(book.feeFor(order, planned, value, now).total);
        } else {
          required = book.reservationOf(order).cash;
        }
        if (required.gt(available)) {
          return reject(
            "INSUFFICIENT_CASH",
            `the order needs ${required.toFixed(2)} ${order.currency} (price × quantity + estimated fees); ${available.toFixed(2)} ${order.currency} is free`,
            { required: required.toFixed(2), available: available.toFixed(2), currency: order.currency },
          );
        }
      }
      book.accept(order);
      await matchOnArrival(ctx, order, last);
      return { order_id: order.order_id };
    });
  },

  async replaceOrder(deps: PaperBrokerDeps, accountId: string, options: ReplaceOrderOptions): Promise<void> {
    await withAccount(deps, accountId, async (ctx) => {
      const { book, now, data } = ctx;
      const order = await findOrder(ctx, options.order_id);
      const spec = OrderTypeSpecs[order.order_type];
      if (!spec.replaceable)
        throw refusal("ORDER_NOT_REPLACEABLE", `${order.order_type} orders cannot be replaced; cancel it and submit a new order`, { order_id: order.order_id });
      if (order.phase === "done")
        throw refusal("ORDER_NOT_REPLACEABLE", `order ${order.order_id} is ${order.status} and can no longer be replaced`, {
          order_id: order.order_id,
          status: order.status,
        });

      const triggered = order.trigger_status === "RELEASED";
      const problems: BrokerProblem[] = [];
      for (const field of ["price", "trigger_price", "limit_offset", "trailing_amount", "trailing_percent"] as const) {
        if (options[field] === undefined) continue;
        if (!(spec.replaceable_fields as string[]).includes(field)) {
          problems.push({
            field,
            code: "FIELD_NOT_REPLACEABLE",
            message: `${field} cannot be changed on a ${order.order_type} order; it may change: quantity, ${spec.replaceable_fields.join(", ")}`,
          });
        } else if (triggered && field !== "price") {
          problems.push({ field, code: "FIELD_NOT_REPLACEABLE", message: `${field} cannot change: the order triggered at ${order.trigger_at}` });
        }
      }
      problems.push(...quantityProblems(order.market, order.order_type, options.quantity, order.lot_size, "quantity"));
      problems.push(...replacementProblems(options.quantity, order.executed_quantity));
      const table = tickTableOf(deps, order.symbol, order.market, now);
      problems.push(
        ...tickProblems(table, [
          { field: "price", value: options.price },
          { field: "trigger_price", value: options.trigger_price },
        ]),
        ...trailingProblems(order.order_type, options.trailing_percent),
      );
      if (problems.length) throw refusalOf(problems);

      const last = await lastPrice(data, order.symbol);
      const terms: Partial<PaperOrder> = { quantity: new Dec(options.quantity).toFixed() };
      if (options.remark !== undefined) terms.remark = options.remark;
      if (options.price !== undefined) terms.price = terms.submitted_price = new Dec(options.price).toFixed();
      if (options.trigger_price !== undefined) {
        terms.trigger_price = new Dec(options.trigger_price).toFixed();
        terms.touch = touchOf(new Dec(terms.trigger_price), last);
      }
      if (options.limit_offset !== undefined) terms.limit_offset = new Dec(options.limit_offset).toFixed();
      if (options.trailing_amount !== undefined) terms.trailing_amount = new Dec(options.trailing_amount).toFixed();
      if (options.trailing_percent !== undefined) terms.trailing_percent = new Dec(options.trailing_percent).toFixed();
      const next: PaperOrder = { ...order, ...terms };
      if (!triggered && (next.order_type === "TSLPAMT" || next.order_type === "TSLPPCT")) {
        next.trigger_price = terms.trigger_price = trailingTrigger(next, new Dec(next.trailing_reference!), table).toFixed();
      }
      // An AO order keeps the hold it was accepted with: its reference was the price before the auction.
      next.reserve_price = terms.reserve_price = order.order_type === "AO" ? order.reserve_price : reservePriceOf(next, last, table);

      const remaining = new Dec(next.quantity).minus(next.executed_quantity);
      if (order.side === "Sell") {
        const free = book.positionAvailable(order.symbol, order.sleeve).plus(order.frozen_quantity);
        if (remaining.gt(free)) {
          throw refusal("INSUFFICIENT_POSITION", `the replaced order would sell ${remaining.toFixed()} more shares; ${free.toFixed()} are free`, {
            available_quantity: free.toFixed(),
          });
        }
      } else {
        const required = book.reservationOf(next).cash;
        const free = book.available(order.currency, order.sleeve).plus(order.frozen_cash);
        if (required.gt(free)) {
          throw refusal(
            "INSUFFICIENT_CASH",
            `the replaced order needs ${required.toFixed(2)} ${order.currency}; ${free.toFixed(2)} ${order.currency} is free counting what the order holds now`,
            { required: required.toFixed(2), available: free.toFixed(2), currency: order.currency },
          );
        }
      }
      book.replace(order, terms, now);
      await matchOnArrival(ctx, order, last, true);
      return undefined;
    });
  },

  async cancelOrder(deps: PaperBrokerDeps, accountId: string, orderId: string): Promise<void> {
    await withAccount(deps, accountId, async (ctx) => {
      const order = await findOrder(ctx, orderId);
      if (order.phase === "done") {
        throw refusal("ORDER_NOT_CANCELLABLE", `order ${orderId} is ${order.status} and can no longer be cancelled`, {
          order_id: orderId,
          status: order.status,
        });
      }
      ctx.book.withdraw(order, "", ctx.now);
      return undefined;
    });
  },

  async orderDetail(deps: PaperBrokerDeps, accountId: string, orderId: string): Promise<OrderDetail> {
    return withAccount(deps, accountId, async (ctx) => orderDetailView(await findOrder(ctx, orderId)));
  },

  async todayOrders(deps: PaperBrokerDeps, accountId: string, options: GetTodayOrdersOptions = {}): Promise<Order[]> {
    const keep = orderFilter(options);
    const book = await withAccount(deps, accountId, async (ctx) => ctx.book);
    const now = book.now;
    const orders = new Map<string, PaperOrder>();
    for (const order of await deps.store.ordersSubmittedBetween(accountId, startOfToday(now), now)) {
      if (isToday(order.market, Date.parse(order.submitted_at), now)) orders.set(order.order_id, order);
    }
    for (const order of book.workingOrders()) orders.set(order.order_id, order);
    return [...orders.values()].filter(keep).sort(byId).map(orderView);
  },

  async historyOrders(deps: PaperBrokerDeps, accountId: string, options: GetHistoryOrdersOptions = {}): Promise<Order[]> {
    const keep = orderFilter(options);
    const book = await withAccount(deps, accountId, async (ctx) => ctx.book);
    const [from, to] = rangeOf(options.start_at, options.end_at, book.now);
    return (await deps.store.ordersSubmittedBetween(accountId, from, to)).filter(keep).sort(byId).map(orderView);
  },

  async todayExecutions(deps: PaperBrokerDeps, accountId: string, options: GetTodayExecutionsOptions = {}): Promise<Execution[]> {
    const symbol = options.symbol ? normalizeSymbol(options.symbol) : undefined;
    const book = await withAccount(deps, accountId, async (ctx) => ctx.book);
    const now = book.now;
    return (await deps.store.executionsBetween(accountId, startOfToday(now), now))
      .filter((e) => isToday(e.market, e.done_ms, now) && (!symbol || e.symbol === symbol) && (!options.order_id || e.order_id === options.order_id))
      .map(executionView);
  },

  async historyExecutions(deps: PaperBrokerDeps, accountId: string, options: GetHistoryExecutionsOptions = {}): Promise<Execution[]> {
    const symbol = options.symbol ? normalizeSymbol(options.symbol) : undefined;
    const book = await withAccount(deps, accountId, async (ctx) => ctx.book);
    const [from, to] = rangeOf(options.start_at, options.end_at, book.now);
    return (await deps.store.executionsBetween(accountId, from, to)).filter((e) => !symbol || e.symbol === symbol).map(executionView);
  },

  async estimateMaxPurchaseQuantity(
    deps: PaperBrokerDeps,
    accountId: string,
    options: EstimateMaxPurchaseQuantityOptions,
  ): Promise<EstimateMaxPurchaseQuantityResponse> {
    const symbol = normalizeSymbol(options.symbol);
    const market = tradableMarket(symbol);
    if (!SupportedOrderTypes[market].includes(options.order_type)) {
      throw refusal(
        "ORDER_TYPE_NOT_SUPPORTED",
        `order_type=${options.order_type} is not accepted in market ${market}; supported: ${SupportedOrderTypes[market].join(", ")}`,
      );
    }
    const currency = CurrencyOfMarket[market];
    if (options.currency && options.currency.toUpperCase() !== currency) {
      throw refusal("CURRENCY_NOT_SUPPORTED", `${symbol} settles in ${currency}; the paper account does not convert currencies`);
    }
    return withAccount(deps, accountId, async (ctx) => {
      const { book, now, data } = ctx;
      const [info] = await data.staticInfo([symbol]);
      const amending = options.order_id ? await findOrder(ctx, options.order_id) : null;
      if (amending && (amending.symbol !== symbol || amending.phase === "done")) {
        throw refusal("ORDER_NOT_REPLACEABLE", `order ${amending.order_id} is not a working ${symbol} order`, { order_id: amending.order_id });
      }
      const odd = options.order_type === "ODD";
      const unit = market === "HK" && !odd ? info.lot_size : 1;
      const answer = (quantity: Dec) => ({ cash_max_qty: quantity.toFixed(), margin_max_qty: quantity.toFixed() });
      if (options.side === "Sell") {
        const free = book.positionAvailable(symbol).plus(amending?.side === "Sell" ? amending.frozen_quantity : "0");
        return answer(odd ? free.mod(info.lot_size) : free.div(unit).floor().times(unit));
      }
      const depth = options.price ? null : await data.depth(symbol);
      const price = new Dec(options.price ?? depth?.asks[0]?.price ?? (await lastPrice(data, symbol)));
      const free = book.available(currency).plus(amending?.side === "Buy" ? amending.frozen_cash : "0");
      const side = { side: "Buy" as const, market };
      const fits = (lots: number) => {
        const quantity = new Dec(lots * unit);
        const value = quantity.times(price);
        return Round.nearestCent(value)
          .plus(book.feeFor(side, quantity, value, now).total)
          .lte(free);
      };
      let low = 0;
      let high = Math.max(0, free.div(price.times(unit)).floor().toNumber());
      if (odd) high = Math.min(high, info.lot_size - 1);
      while (low < high) {
        const middle = Math.ceil((low + high) / 2);
        if (fits(middle)) low = middle;
        else high = middle - 1;
      }
      return answer(new Dec(low * unit));
    });
  },

  async accountBalance(deps: PaperBrokerDeps, accountId: string, currency?: string): Promise<AccountBalance[]> {
    const wanted = currency?.toUpperCase();
    if (wanted && !(PaperCurrencies as readonly string[]).includes(wanted)) {
      throw refusal("CURRENCY_NOT_SUPPORTED", `currency ${currency} is not held by paper accounts; they hold ${PaperCurrencies.join(", ")}`);
    }
    const book = await withAccount(deps, accountId, async (ctx) => ctx.book);
    const symbols = Object.keys(book.account.positions);
    const prices = new Map<string, string>();
    if (symbols.length) {
      for (const quote of await (await deps.marketData()).quote(symbols)) prices.set(quote.symbol, quote.last_done);
    }
    return (wanted ? [wanted as PaperCurrency] : [...PaperCurrencies]).map((c) => balanceView(book.account, c, prices, (currency) => book.available(currency)));
  },

  /** Holdings as LongPort's `stockPositions()` answers (for asset sync). */
  async stockPositions(deps: PaperBrokerDeps, accountId: string, symbols?: string[]): Promise<StockPositionsResponse> {
    const wanted = symbols?.map(normalizeSymbol);
    const book = await withAccount(deps, accountId, async (ctx) => ctx.book);
    return positionsView(book.account, (symbol) => book.positionAvailable(symbol), wanted);
  },
};
