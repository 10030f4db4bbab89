import { type FakeAccount, type FakeExecution, type FakeOrder, isEnded } from "./account";
import { type FakeMarket, dec } from "./market";

/**
 * The JSON LongPort's trade and asset endpoints answer, field by field as the SDK deserializes it
 * (rust/src/trade/types.rs): decimals and times are strings (times in Unix seconds), an absent
 * decimal is "" and an absent time "0".
 */

const seconds = (ms: number) => String(Math.floor(ms / 1000));
const optionalDecimal = (n: number | undefined) => (n === undefined ? "" : dec(n));
const averagePrice = (o: FakeOrder) => (o.executedQuantity > 0 ? dec(o.executedValue / o.executedQuantity) : "0");

/** One order as today/history orders list it (`Order`). */
export function orderJson(o: FakeOrder, market: FakeMarket): Record<string, unknown> {
  return {
    order_id: o.orderId,
    status: o.status,
    stock_name: market.spec(o.symbol).nameEn,
    quantity: String(o.quantity),
    executed_quantity: String(o.executedQuantity),
    price: optionalDecimal(o.price),
    executed_price: averagePrice(o),
    submitted_at: seconds(o.submittedAt),
    side: o.side,
    symbol: o.symbol,
    order_type: o.orderType,
    last_done: o.lastFill ? dec(o.lastFill.price) : "",
    trigger_price: optionalDecimal(o.triggerPrice),
    msg: o.msg,
    tag: o.tag,
    time_in_force: o.timeInForce,
    expire_date: o.expireDate ?? "",
    updated_at: seconds(o.updatedAt),
    trigger_at: "0",
    trailing_amount: "",
    trailing_percent: "",
    limit_offset: "",
    trigger_status: "NOT_USED",
    currency: o.currency,
    outside_rth: o.outsideRth ?? "UnknownOutsideRth",
    limit_depth_level: 0,
    trigger_count: 0,
    monitor_price: "",
    remark: o.remark,
  };
}

/** One order with its history and charges (`OrderDetail`, GET /v1/trade/order). */
export function orderDetailJson(o: FakeOrder, market: FakeMarket): Record<string, unknown> {
  return {
    ...orderJson(o, market),
    free_status: "None",
    free_amount: "",
    free_currency: "",
    deductions_status: "NONE",
    deductions_amount: "",
    deductions_currency: "",
    platform_deducted_status: "NONE",
    platform_deducted_amount: "",
    platform_deducted_currency: "",
    // LongPort lists the newest step first.
    history: [...o.history].reverse().map((h) => ({ price: dec(h.price), quantity: String(h.quantity), status: h.status, msg: h.msg, time: seconds(h.at) })),
    charge_detail: {
      total_amount: "0",
      currency: o.currency,
      items: [
        { code: "BROKER_FEES", name: "Broker Fees", fees: [] },
        { code: "THIRD_FEES", name: "Third-party Fees", fees: [] },
      ],
    },
  };
}

export function executionJson(e: FakeExecution): Record<string, unknown> {
  return { order_id: e.orderId, trade_id: e.tradeId, symbol: e.symbol, trade_done_at: seconds(e.at), quantity: String(e.quantity), price: dec(e.price) };
}

/** The `data` of the order-changed notification (`{"event":"order_changed_lb","data":{...}}` on the private topic). */
export function orderChangedJson(o: FakeOrder, account: FakeAccount, market: FakeMarket): Record<string, unknown> {
  const filled = o.status === "FilledStatus" || o.status === "PartialFilledStatus";
  return {
    side: o.side,
    stock_name: market.spec(o.symbol).nameEn,
    submitted_quantity: String(o.quantity),
    symbol: o.symbol,
    order_type: o.orderType,
    submitted_price: o.price === undefined ? "0" : dec(o.price),
    executed_quantity: String(o.executedQuantity),
    executed_price: averagePrice(o),
    order_id: o.orderId,
    currency: o.currency,
    status: o.status,
    submitted_at: seconds(o.submittedAt),
    updated_at: seconds(o.updatedAt),
    trigger_price: optionalDecimal(o.triggerPrice),
    msg: o.msg,
    tag: o.tag,
    trigger_status: "NOT_USED",
    trigger_at: "0",
    trailing_amount: "",
    trailing_percent: "",
    limit_offset: "",
    account_no: account.accountNo,
    last_share: filled && o.lastFill ? String(o.lastFill.quantity) : "",
    last_price: filled && o.lastFill ? dec(o.lastFill.price) : "",
    remark: o.remark,
  };
}

/** One `AccountBalance` per currency asked for (or per currency held), each listing every currency's cash. */
export function balancesJson(account: FakeAccount, currency: string | undefined): Record<string, unknown>[] {
  const currencies = [...account.cash.keys()];
  const cashInfos = currencies.map((c) => {
    const cash = account.cash.get(c) ?? 0;
    const available = cash - account.frozenCash(c);
    return {
      withdraw_cash: dec(Math.max(available, 0), 2),
      available_cash: dec(available, 2),
      frozen_cash: dec(account.frozenCash(c), 2),
      settling_cash: "0",
      currency: c,
    };
  });
  return (currency ? [currency] : currencies).map((c) => {
    const cash = account.cash.get(c) ?? 0;
    const buyPower = Math.max(cash - account.frozenCash(c), 0);
    return {
      total_cash: dec(cash, 2),
      max_finance_amount: "0",
      remaining_finance_amount: "0",
      risk_level: "1",
      margin_call: "0",
      currency: c,
      cash_infos: cashInfos,
      net_assets: dec(cash + account.marketValue(c), 2),
      init_margin: "0",
      maintenance_margin: "0",
      buy_power: dec(buyPower, 2),
      frozen_transaction_fees: [],
    };
  });
}

/** `StockPositionsResponse`: one channel ("lb") holding the positions (all, or those of `symbols`). */
export function positionsJson(account: FakeAccount, market: FakeMarket, symbols: string[]): Record<string, unknown> {
  const stockInfo = [...account.positions.entries()]
    .filter(([symbol]) => symbols.length === 0 || symbols.includes(symbol))
    .map(([symbol, p]) => ({
      symbol,
      symbol_name: market.spec(symbol).nameEn,
      quantity: String(p.quantity),
      available_quantity: String(account.availableQuantity(symbol)),
      currency: market.spec(symbol).currency,
      cost_price: dec(p.cost),
      market: symbol.slice(symbol.lastIndexOf(".") + 1),
      init_quantity: String(p.quantity),
    }));
  return { list: [{ account_channel: "lb", stock_info: stockInfo }] };
}

/** GET /v1/trade/estimate/buy_limit: whole lots the available cash (or the position, to sell) covers. */
export function maxPurchaseJson(account: FakeAccount, market: FakeMarket, q: { symbol: string; side: string; price?: number }): Record<string, unknown> {
  const spec = market.spec(q.symbol);
  const lots = (n: number) => String(Math.max(Math.floor(n / spec.lotSize) * spec.lotSize, 0));
  if (q.side === "Sell") {
    const available = lots(account.availableQuantity(q.symbol));
    return { cash_max_qty: available, margin_max_qty: available };
  }
  const price = q.price && q.price > 0 ? q.price : market.lastPrice(q.symbol);
  const cash = (account.cash.get(spec.currency) ?? 0) - account.frozenCash(spec.currency);
  const quantity = lots(cash / price);
  return { cash_max_qty: quantity, margin_max_qty: quantity };
}

/** Orders the listing endpoints filter: by symbol, side, status (any of), order id. */
export function matchesOrder(o: FakeOrder, q: URLSearchParams): boolean {
  const statuses = q.getAll("status");
  if (q.get("symbol") && q.get("symbol") !== o.symbol) return false;
  if (q.get("side") && q.get("side") !== o.side) return false;
  if (q.get("order_id") && q.get("order_id") !== o.orderId) return false;
  if (q.get("market") && !o.symbol.endsWith(`.${q.get("market")}`)) return false;
  return statuses.length === 0 || statuses.includes(o.status);
}

export const isOpen = (o: FakeOrder) => !isEnded(o.status);
