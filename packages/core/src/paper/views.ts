import { Dec, money } from "../money/decimal";
import type { AccountBalance, Execution, Order, OrderChargeDetail, OrderChargeFee, OrderDetail, StockPositionsResponse } from "../provider/order-gateway";
import { PaperCurrencies, type PaperAccount, type PaperCurrency, type PaperExecution, type PaperOrder } from "./types";

/** LongPort-shaped views of the paper broker's state. */

/** The channel name the paper broker reports positions under. */
export const PAPER_ACCOUNT_CHANNEL = "paper";

/** An order as today's and history queries list it. */
export function orderView(order: PaperOrder): Order {
  const executed = new Dec(order.executed_quantity);
  return {
    order_id: order.order_id,
    status: order.status,
    stock_name: order.stock_name,
    quantity: order.quantity,
    executed_quantity: order.executed_quantity,
    price: order.price,
    executed_price: executed.gt(0) ? new Dec(order.executed_amount).div(executed).toDecimalPlaces(4).toFixed() : null,
    submitted_at: order.submitted_at,
    side: order.side,
    symbol: order.symbol,
    order_type: order.order_type,
    last_done: order.last_done,
    trigger_price: order.trigger_price,
    msg: order.msg,
    tag: order.tag,
    time_in_force: order.time_in_force,
    expire_date: order.expire_date,
    updated_at: order.updated_at,
    trigger_at: order.trigger_at,
    trailing_amount: order.trailing_amount,
    trailing_percent: order.trailing_percent,
    limit_offset: order.limit_offset,
    trigger_status: order.trigger_status,
    currency: order.currency,
    outside_rth: order.outside_rth,
    remark: order.remark,
  };
}

// The fee calculator's breakdown, grouped as LongPort groups charges: the broker's own and pass-through ones.
const BROKER_FEES: [string, string][] = [
  ["commission", "Commission"],
  ["platform_fee", "Platform Fee"],
];
const THIRD_FEES: [string, string][] = [
  ["settlement_fee", "Settlement Fee"],
  ["cat_fee", "CAT Fee"],
  ["sec_fee", "SEC Fee"],
  ["finra_taf", "Trading Activity Fee"],
  ["stamp_duty", "Stamp Duty"],
  ["sfc_levy", "SFC Transaction Levy"],
  ["afrc_levy", "AFRC Transaction Levy"],
  ["exchange_trading_fee", "Trading Fee"],
];

/** Charges of an order so far: the fee calculator on its executed quantity at its average price. */
export function chargeDetail(order: PaperOrder): OrderChargeDetail {
  const details = order.fee_details as Record<string, unknown> | null;
  const fees = (names: [string, string][]): OrderChargeFee[] =>
    details
      ? names
          .filter(([code]) => typeof details[code] === "string")
          .map(([code, name]) => ({ code, name, amount: details[code] as string, currency: order.currency }))
      : [];
  return {
    total_amount: order.fees_charged,
    currency: order.currency,
    items: [
      { code: "BROKER_FEES", name: "Broker Fees", fees: fees(BROKER_FEES) },
      { code: "THIRD_FEES", name: "Third-party Fees", fees: fees(THIRD_FEES) },
    ],
  };
}

/** An order with its history and charges. */
export function orderDetailView(order: PaperOrder): OrderDetail {
  return {
    ...orderView(order),
    free_status: "None",
    free_amount: null,
    free_currency: null,
    deductions_status: "NONE",
    deductions_amount: null,
    deductions_currency: null,
    platform_deducted_status: "NONE",
    platform_deducted_amount: null,
    platform_deducted_currency: null,
    history: order.history,
    charge_detail: chargeDetail(order),
  };
}

/** A fill as LongPort lists it. */
export function executionView(execution: PaperExecution): Execution {
  return {
    order_id: execution.order_id,
    trade_id: execution.trade_id,
    symbol: execution.symbol,
    trade_done_at: execution.trade_done_at,
    quantity: execution.quantity,
    price: execution.price,
  };
}

/**
 * The balance of one currency. Cash is kept per currency and never converted, so `net_assets` is
 * that currency's cash plus the value of the holdings quoted in it (at `prices`). Without margin,
 * buying power is the free cash and every margin figure is zero.
 */
export function balanceView(
  account: PaperAccount,
  currency: PaperCurrency,
  prices: ReadonlyMap<string, string>,
  available: (currency: PaperCurrency) => Dec,
): AccountBalance {
  const line = account.cash[currency];
  let holdings = new Dec(0);
  for (const position of Object.values(account.positions)) {
    if (position.currency !== currency) continue;
    const price = prices.get(position.symbol);
    const perShare = price ?? (new Dec(position.quantity).gt(0) ? new Dec(position.cost_amount).div(position.quantity) : 0);
    holdings = holdings.plus(new Dec(position.quantity).times(perShare));
  }
  // Free: not held by working orders nor set aside for running sessions (docs/accounts.md); frozen is the rest.
  const free = (c: PaperCurrency) => money(available(c));
  return {
    total_cash: line.cash,
    max_finance_amount: "0.00",
    remaining_finance_amount: "0.00",
    risk_level: 0,
    margin_call: "0.00",
    currency,
    cash_infos: PaperCurrencies.map((c) => ({
      withdraw_cash: free(c),
      available_cash: free(c),
      frozen_cash: money(new Dec(account.cash[c].cash).minus(available(c))),
      settling_cash: "0.00",
      currency: c,
    })),
    net_assets: money(new Dec(line.cash).plus(holdings)),
    init_margin: "0.00",
    maintenance_margin: "0.00",
    buy_power: free(currency),
    frozen_transaction_fees: [{ currency, frozen_transaction_fee: line.frozen_fees }],
  };
}

/** Holdings as LongPort's `stockPositions()` answers, in one channel; optionally only some symbols. `available`: shares neither promised to working sells nor a running session's. */
export function positionsView(account: PaperAccount, available: (symbol: string) => Dec, symbols?: readonly string[]): StockPositionsResponse {
  const wanted = symbols?.length ? new Set(symbols) : null;
  const positions = Object.values(account.positions)
    .filter((p) => (!wanted || wanted.has(p.symbol)) && new Dec(p.quantity).gt(0))
    .sort((a, b) => (a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0))
    .map((p) => ({
      symbol: p.symbol,
      symbol_name: p.symbol_name,
      quantity: p.quantity,
      available_quantity: available(p.symbol).toFixed(),
      currency: p.currency,
      cost_price: new Dec(p.cost_amount).div(p.quantity).toDecimalPlaces(4).toFixed(),
      market: p.market,
      init_quantity: null,
    }));
  return { channels: [{ account_channel: PAPER_ACCOUNT_CHANNEL, positions }] };
}
