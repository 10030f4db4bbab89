import { Dec, Round } from "../money/decimal";
import { replacementProblems } from "../engine/order-rules";
import { normalizeSymbol } from "../market/market";
import type { TickTable } from "../market/tick-size";
import type { MarketData } from "../provider/market-data";
import type { ReplaceOrderOptions, SubmitOrderOptions, SubmitOrderResponse } from "../provider/order-gateway";
import { checkOrderRules, OrderTypeSpecs, type OrderType } from "../provider/order-types";
import type { Depth } from "../provider/quote-types";
import { iso } from "../util/time";
import { findOrder, lastPrice, orderOperation, Refused, tickTableOf, tradableMarket, type AccountContext, type PaperBrokerDeps } from "./account-operation";
import { PaperAccountQueries } from "./account-queries";
import { sweepLevels, trailingLimit, trailingTrigger } from "./matching";
import {
  accepted,
  expireDateProblems,
  quantityProblems,
  refusal,
  refusalOf,
  refused,
  tickProblems,
  trailingProblems,
  type BrokerProblem,
  type BrokerResult,
} from "./rules";
import { allowedSessions, endOfTradingDate, localDate, preOpeningWindow, sessionAt, tradingDayOnOrBefore } from "./sessions";
import { CurrencyOfMarket, isDone, type PaperOrder } from "./types";

// The paper broker's orders (submit, replace, cancel) and the `PaperBroker` façade over them and
// the account's reads (`account-queries.ts`); every call runs as one operation on the account
// (`account-operation.ts`). An order operation answers its refusal as data (`BrokerResult`), as the
// engine's checks answer denials; `PaperOrderGateway` throws it where the `OrderGateway` port must.

export { withAccount, type PaperAccountStore, type PaperBrokerDeps, type PaperCommit } from "./account-operation";

/** Market-type buys (`AO`, `MIT`) hold cash at this multiple of their reference price, for slippage. */
export const MARKET_ORDER_RESERVE_FACTOR = "1.05";
/** Book levels one order may take at once (LongPort: ELO and SLO match up to 10 price queues). */
const MAX_BOOK_LEVELS = 10;
/** Working orders one account may have; bounds the account item and the work of each look. */
export const MAX_WORKING_ORDERS = 200;

async function overnightEnabled(data: MarketData): Promise<boolean> {
  const sessions = await data.tradingSession();
  return sessions.some((m) => m.market === "US" && m.trade_sessions.some((s) => s.trade_session === "Overnight"));
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
async function matchOnArrival(ctx: AccountContext, order: PaperOrder, last: Dec, replaced = false): Promise<void> {
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

/**
 * The paper broker: LongPort's order types and account queries against the simulated (or any)
 * market, with its state in the table. Orders are matched when the account is looked at: every
 * call first matches working orders against the minutes completed since their last match.
 */
export const PaperBroker = {
  /**
   * Submits an order: its id, or the refusal (kept as a `RejectedStatus` order, its id in
   * `details.order_id`, once it reached the account). `sleeve`: the session whose capital the order
   * trades (its sleeve's cash and shares), else the account's free ones.
   */
  async submitOrder(deps: PaperBrokerDeps, accountId: string, options: SubmitOrderOptions, sleeve?: string): Promise<BrokerResult<SubmitOrderResponse>> {
    const symbol = normalizeSymbol(options.symbol);
    const market = tradableMarket(symbol);
    const ruleProblems: BrokerProblem[] = [...checkOrderRules(market, options), ...trailingProblems(options.order_type, options.trailing_percent)];
    if (ruleProblems.length) return refused(refusalOf(ruleProblems));
    const type = options.order_type;

    return orderOperation(deps, accountId, async (ctx) => {
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
      if (problems.length) return refused(refusalOf(problems));

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
      if (dateProblems.length) return refused(refusalOf(dateProblems));
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
      return accepted({ order_id: order.order_id });
    });
  },

  /** Replaces a working order's quantity and prices, or answers why not (nothing is written then). */
  async replaceOrder(deps: PaperBrokerDeps, accountId: string, options: ReplaceOrderOptions): Promise<BrokerResult<void>> {
    return orderOperation(deps, accountId, async (ctx) => {
      const { book, now, data } = ctx;
      const found = await findOrder(ctx, options.order_id);
      if (!found.ok) return found;
      const order = found.value;
      const spec = OrderTypeSpecs[order.order_type];
      if (!spec.replaceable) {
        return refused(
          refusal("ORDER_NOT_REPLACEABLE", `${order.order_type} orders cannot be replaced; cancel it and submit a new order`, { order_id: order.order_id }),
        );
      }
      if (order.phase === "done") {
        return refused(
          refusal("ORDER_NOT_REPLACEABLE", `order ${order.order_id} is ${order.status} and can no longer be replaced`, {
            order_id: order.order_id,
            status: order.status,
          }),
        );
      }

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
      if (problems.length) return refused(refusalOf(problems));

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
          return refused(
            refusal("INSUFFICIENT_POSITION", `the replaced order would sell ${remaining.toFixed()} more shares; ${free.toFixed()} are free`, {
              available_quantity: free.toFixed(),
            }),
          );
        }
      } else {
        const required = book.reservationOf(next).cash;
        const free = book.available(order.currency, order.sleeve).plus(order.frozen_cash);
        if (required.gt(free)) {
          return refused(
            refusal(
              "INSUFFICIENT_CASH",
              `the replaced order needs ${required.toFixed(2)} ${order.currency}; ${free.toFixed(2)} ${order.currency} is free counting what the order holds now`,
              { required: required.toFixed(2), available: free.toFixed(2), currency: order.currency },
            ),
          );
        }
      }
      book.replace(order, terms, now);
      await matchOnArrival(ctx, order, last, true);
      return accepted();
    });
  },

  /** Cancels a working order, or answers why not (nothing is written then). */
  async cancelOrder(deps: PaperBrokerDeps, accountId: string, orderId: string): Promise<BrokerResult<void>> {
    return orderOperation(deps, accountId, async (ctx) => {
      const found = await findOrder(ctx, orderId);
      if (!found.ok) return found;
      const order = found.value;
      if (order.phase === "done") {
        return refused(
          refusal("ORDER_NOT_CANCELLABLE", `order ${orderId} is ${order.status} and can no longer be cancelled`, {
            order_id: orderId,
            status: order.status,
          }),
        );
      }
      ctx.book.withdraw(order, "", ctx.now);
      return accepted();
    });
  },

  ...PaperAccountQueries,
};
