import { Dec, Round } from "../money/decimal";
import { Markets, normalizeSymbol } from "../market/market";
import { dayNumberOf, zonedTimeToUtc } from "../market/zoned-time";
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
  StockPositionsResponse,
} from "../provider/order-gateway";
import { SupportedOrderTypes } from "../provider/order-types";
import { iso } from "../util/time";
import { findOrder, lastPrice, PAPER_MARKETS, tradableMarket, withAccount, type PaperBrokerDeps } from "./account-operation";
import { refusal, refusalError, valueOrThrow } from "./rules";
import { localDate } from "./sessions";
import { CurrencyOfMarket, PaperCurrencies, type PaperCurrency, type PaperMarket, type PaperOrder } from "./types";
import { balanceView, executionView, orderDetailView, orderView, positionsView } from "./views";

// The paper broker's reads: orders and executions of today and of the past, what a buy or sell
// could trade, balances and holdings. Each first brings the account up to now (`withAccount`).
// A read's refusal (a bad range, currency or order) is thrown (`refusalError`): reads are answered
// only through the `OrderGateway` port, which throws, and keep nothing to decide on.

const HISTORY_DAYS = 90;
const DAY_MS = 86_400_000;

/** Start (epoch ms) of the current exchange-local day of whichever market's day began first. */
function startOfToday(now: number): number {
  return Math.min(...PAPER_MARKETS.map((m) => zonedTimeToUtc(Markets[m].timeZone, dayNumberOf(localDate(m, now)), 0)));
}

const isToday = (market: PaperMarket, instant: number, now: number) => localDate(market, instant) === localDate(market, now);

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/** `[from, to]` in epoch ms from optional ISO dates (whole UTC days, the end inclusive) or instants. Default: the last 90 days. */
function rangeOf(startAt: string | undefined, endAt: string | undefined, now: number): [number, number] {
  const parse = (value: string, end: boolean) => (DATE_ONLY.test(value) ? Date.parse(`${value}T00:00:00Z`) + (end ? DAY_MS - 1 : 0) : Date.parse(value));
  const to = endAt ? parse(endAt, true) : now;
  const from = startAt ? parse(startAt, false) : to - HISTORY_DAYS * DAY_MS;
  if (!Number.isFinite(from) || !Number.isFinite(to)) throw refusalError(refusal("INVALID_DATE_RANGE", "start_at and end_at must be ISO dates or instants"));
  if (from > to) throw refusalError(refusal("INVALID_DATE_RANGE", `start_at ${startAt} is after end_at ${endAt ?? iso(now)}`));
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

/** The paper broker's account queries, as LongPort's trade context answers them. */
export const PaperAccountQueries = {
  async orderDetail(deps: PaperBrokerDeps, accountId: string, orderId: string): Promise<OrderDetail> {
    return withAccount(deps, accountId, async (ctx) => orderDetailView(valueOrThrow(await findOrder(ctx, orderId))));
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
      throw refusalError(
        refusal(
          "ORDER_TYPE_NOT_SUPPORTED",
          `order_type=${options.order_type} is not accepted in market ${market}; supported: ${SupportedOrderTypes[market].join(", ")}`,
        ),
      );
    }
    const currency = CurrencyOfMarket[market];
    if (options.currency && options.currency.toUpperCase() !== currency) {
      throw refusalError(refusal("CURRENCY_NOT_SUPPORTED", `${symbol} settles in ${currency}; the paper account does not convert currencies`));
    }
    return withAccount(deps, accountId, async (ctx) => {
      const { book, now, data } = ctx;
      const [info] = await data.staticInfo([symbol]);
      const amending = options.order_id ? valueOrThrow(await findOrder(ctx, options.order_id)) : null;
      if (amending && (amending.symbol !== symbol || amending.phase === "done")) {
        throw refusalError(refusal("ORDER_NOT_REPLACEABLE", `order ${amending.order_id} is not a working ${symbol} order`, { order_id: amending.order_id }));
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
      throw refusalError(refusal("CURRENCY_NOT_SUPPORTED", `currency ${currency} is not held by paper accounts; they hold ${PaperCurrencies.join(", ")}`));
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
