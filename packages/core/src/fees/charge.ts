import { Round } from "../money/decimal";
import { Money } from "../money/money";
import { chargesOn, type TradingFee, totalFee } from "./calculate";
import type { FeeConfig } from "./config";

/**
 * How a fee is charged (docs/fees.md "How a fee is charged"), the one place for the trading
 * engine and the paper broker: the percent model or the broker's schedule, the charge of an order
 * filled in parts, and the cash a trade's value moves. Pure over what the caller gives it (the
 * model's rate or schedule, the trade date by its clock, the memo of the last fee); nothing here
 * is allocated but the amounts it answers.
 */

const ZERO = Money.ZERO;

/**
 * How a trade in a market is charged: `percent` of its notional (a rate is set: the reference
 * engine's model), by the broker's `schedule` (US and HK, the markets a schedule prices), or
 * `none` (a schedule elsewhere, or no schedule).
 */
export type FeeModel = "percent" | "schedule" | "none";

export const feeModel = (rate: Money | null, schedule: FeeConfig | null, market: string): FeeModel =>
  rate !== null ? "percent" : schedulePrices(schedule, market) ? "schedule" : "none";

/** Whether the broker's schedule prices a trade in `market`: there is one, and the market is one it prices (US, HK). */
const schedulePrices = (schedule: FeeConfig | null, market: string): schedule is FeeConfig => schedule !== null && (market === "US" || market === "HK");

/**
 * Whether a trade's value settles to the cent: at a broker (its schedule, or a venue that keeps
 * its own books, `venueBooked`; brokers settle in cents), not under the percent model (exact: the
 * reference engine's rule).
 */
export const settlesInCents = (rate: Money | null, venueBooked: boolean): boolean => venueBooked || rate === null;

/** The cash a trade of `value` moves before its fee: to the cent (half up) when it settles in cents, else exact. */
export const settledValue = (value: Money, inCents: boolean): Money => (inCents ? Money.fromDec(Round.nearestCent(value.toDec())) : value);

/** The cash a fill moves: a buy pays its settled `value` and its `fee`, a sale receives its value less the fee. */
export const cashMoved = (side: "buy" | "sell", value: Money, fee: Money): Money => (side === "buy" ? value.plus(fee).negated() : value.minus(fee));

/**
 * Whether `quantity` of an order of `orderQuantity` is charged as a part of it (`partFee`) rather
 * than as a whole order (`orderFee`): under a schedule, when it is less than the order or the
 * order filled before (`filledBefore`). The percent model is linear: any part is charged its rate.
 */
export const chargedAsPart = (rate: Money | null, quantity: number, orderQuantity: number, filledBefore: boolean): boolean =>
  rate === null && (quantity < orderQuantity || filledBefore);

/** The last fee a schedule gave for a whole order, and what it was asked: a plain object the caller keeps (one per engine). */
export interface FeeMemo {
  market: string;
  side: string;
  quantity: number;
  price: number;
  day: number;
  fee: Money;
}

/**
 * The fee of a whole order of `quantity` at `price` (`exactPrice` is `Money.of(price)` when the
 * caller has it already): the percent model's `rate` of its notional, else the broker's schedule
 * on `tradeDate` (exchange day `day`, the memo's key), else nothing. The schedule is a pure
 * function of these, and a buy's pre-trade check and its fill at the same close ask twice: the
 * memo answers the second.
 */
export function orderFee(
  rate: Money | null,
  schedule: FeeConfig | null,
  market: string,
  side: "buy" | "sell",
  quantity: number,
  price: number,
  exactPrice: Money | undefined,
  day: number,
  tradeDate: string,
  memo: FeeMemo,
): Money {
  if (rate !== null) return rate.times(exactPrice ?? Money.of(price)).times(Money.of(quantity));
  if (!schedulePrices(schedule, market) || quantity <= 0) return ZERO;
  if (memo.market === market && memo.side === side && memo.quantity === quantity && memo.price === price && memo.day === day) return memo.fee;
  const fee = totalFee(schedule, market as "US" | "HK", side, Money.of(quantity), exactPrice ?? Money.of(price), tradeDate);
  memo.market = market;
  memo.side = side;
  memo.quantity = quantity;
  memo.price = price;
  memo.day = day;
  memo.fee = fee;
  return fee;
}

/**
 * The charges of an order that has executed `executed` shares worth `value` in all, under the
 * broker's `schedule` on `tradeDate` (`chargesOn`, the one rule for orders filled in parts);
 * nothing executed is charged nothing (no details).
 */
export function feeSoFar(
  schedule: FeeConfig,
  market: "US" | "HK",
  side: "buy" | "sell",
  executed: Money,
  value: Money,
  tradeDate: string,
): { total: Money; details: TradingFee | null } {
  if (!executed.isAboveZero() || !value.isAboveZero()) return { total: ZERO, details: null };
  return chargesOn(schedule, market, side, executed, value, tradeDate);
}

/** What a part adds to its order's fee: the fee of the order so far with it (`total`) less what the order was charged before, never below zero. */
export const beyondCharged = (total: Money, charged: Money): Money => Money.max(total.minus(charged), ZERO);

/**
 * The one rule for an order filled in parts, under the broker's schedule: a part is charged the
 * schedule on the order so far (`executed` shares worth `value` in all, this part included) less
 * what the order was charged before (`charged`), so a per-order minimum is paid once. Nothing
 * where no schedule prices (`feeModel`).
 */
export function partFee(
  schedule: FeeConfig | null,
  market: string,
  side: "buy" | "sell",
  executed: Money,
  value: Money,
  charged: Money,
  tradeDate: string,
): Money {
  if (!schedulePrices(schedule, market)) return ZERO;
  return beyondCharged(chargesOn(schedule, market as "US" | "HK", side, executed, value, tradeDate).total, charged);
}
