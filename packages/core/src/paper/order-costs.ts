import { Fees, type FeeConfig, type TradingFee } from "../fees/index";
import { Dec, money } from "../money/decimal";
import { Money } from "../money/money";
import { freeCash } from "./account-rules";
import type { PaperAccount, PaperOrder } from "./types";

/**
 * What a paper order's fills cost and hold: the fee of an order executed so far, the cash a buy
 * holds for its remaining shares with the fees they would add, and the most a buy can fill without
 * the account's free cash going below zero. How a fee is charged is the fee domain's
 * (`fees/charge.ts`: the one rule for orders filled in parts, a value settled to the cent, the
 * engine's too); this file gives it the paper order's figures and the trade date by the broker's
 * clock. Pure over the account and the fee schedule; the paper book (`book.ts`) calls them.
 */

const ZERO = new Dec(0);

/** Cash reserved for a buy order's remaining quantity, estimated fees included. */
export interface Reservation {
  cash: Dec;
  fees: Dec;
}

/** What an order that has executed `quantity` shares worth `value` in all is charged at `at` (`Fees.feeSoFar`: the one rule for orders filled in parts). */
export function feeOf(
  fees: FeeConfig,
  order: Pick<PaperOrder, "side" | "market">,
  quantity: Dec,
  value: Dec,
  at: number,
): { total: Dec; details: TradingFee | null } {
  const charged = feeSoFar(fees, order, quantity, value, at);
  return { total: charged.total.toDec(), details: charged.details };
}

const feeSoFar = (fees: FeeConfig, order: Pick<PaperOrder, "side" | "market">, quantity: Dec, value: Dec, at: number) =>
  Fees.feeSoFar(
    fees,
    order.market,
    order.side === "Buy" ? "buy" : "sell",
    Money.fromDec(quantity),
    Money.fromDec(value),
    Fees.tradeDateOf(order.market, new Date(at)),
  );

/**
 * Cash a buy order must hold: its remaining shares at its reservation price, plus the fees the
 * whole order would cost at that price (as of `now`) beyond those already charged. Sells and finished orders hold none.
 */
export function reservationOf(fees: FeeConfig, now: number, order: PaperOrder): Reservation {
  if (order.side !== "Buy" || order.phase === "done" || order.reserve_price === null) return { cash: ZERO, fees: ZERO };
  const quantity = new Dec(order.quantity);
  const remaining = quantity.minus(order.executed_quantity);
  if (remaining.lte(0)) return { cash: ZERO, fees: ZERO };
  const remainingValue = remaining.times(order.reserve_price);
  // The fees the whole order would cost beyond those charged: what its remaining part would be charged (`Fees.beyondCharged`, as the engine holds).
  const total = feeSoFar(fees, order, quantity, new Dec(order.executed_amount).plus(remainingValue), now).total;
  const extra = Fees.beyondCharged(total, Money.of(order.fees_charged)).toDec();
  return { cash: Fees.settledValue(Money.fromDec(remainingValue), true).toDec().plus(extra), fees: extra };
}

/** The most of `wanted` (in whole lots) a buy can fill at `price` without the account's free cash going below zero. */
export function affordable(fees: FeeConfig, now: number, account: PaperAccount, order: PaperOrder, wanted: Dec, price: Dec, at: number): Dec {
  const fits = (quantity: Dec) => availableAfterFill(fees, now, account, order, quantity, price, at).gte(0);
  if (fits(wanted)) return wanted;
  const unit = order.order_type === "ODD" || order.market === "US" ? 1 : order.lot_size;
  let low = 0;
  let high = wanted.div(unit).floor().toNumber() - 1;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (fits(new Dec(middle * unit))) low = middle;
    else high = middle - 1;
  }
  return new Dec(low * unit);
}

function availableAfterFill(fees: FeeConfig, now: number, account: PaperAccount, order: PaperOrder, quantity: Dec, price: Dec, at: number): Dec {
  const executed = new Dec(order.executed_quantity).plus(quantity);
  const executedAmount = new Dec(order.executed_amount).plus(quantity.times(price));
  const feeTotal = feeOf(fees, order, executed, executedAmount, at).total;
  const cost = Fees.settledValue(Money.fromDec(quantity.times(price)), true)
    .toDec()
    .plus(feeTotal.minus(order.fees_charged));
  const next = reservationOf(fees, now, {
    ...order,
    executed_quantity: executed.toFixed(),
    executed_amount: executedAmount.toFixed(),
    fees_charged: money(feeTotal),
    phase: executed.gte(order.quantity) ? "done" : order.phase,
  });
  return freeCash(account, order.currency, order.sleeve).minus(cost).plus(order.frozen_cash).minus(next.cash);
}
