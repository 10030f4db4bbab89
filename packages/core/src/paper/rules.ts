import { DomainError } from "../errors";
import { Dec } from "../fees/money";
import type { TickTable } from "../market/tick-size";
import type { OrderType, TimeInForce } from "../provider/order-types";
import { tradingDayOnOrBefore } from "./sessions";
import type { PaperMarket } from "./types";

/**
 * The paper broker's own checks on top of LongPort's order-type table (`checkOrderRules`):
 * whole shares, HK board lots and odd lots, prices on the tick grid, trailing percentages and
 * `GTD` dates. Each returns every problem it finds; an empty list means acceptable.
 */

/** A reason the broker refuses a request, with a stable code. */
export interface BrokerProblem {
  field: string | null;
  code: string;
  message: string;
}

/** A broker refusal: answered as data (`success: false`) by the pass-through endpoints, never as a fault. */
export function refusal(code: string, message: string, extra: Record<string, unknown> = {}, status = 400): DomainError {
  return new DomainError(status, code, message, extra);
}

/** One refusal for a list of problems: the first problem's code, every message, and the list itself. */
export function refusalOf(problems: BrokerProblem[]): DomainError {
  return refusal(problems[0].code, problems.map((p) => p.message).join("; "), { problems });
}

const plain = (value: number) => new Dec(String(value)).toFixed();

/**
 * Quantity rules: whole shares (fractional shares are not offered); in HK a multiple of the board
 * lot, except `ODD` orders, which are for fewer shares than one lot.
 */
export function quantityProblems(market: PaperMarket, orderType: OrderType, quantity: string, lotSize: number, field = "submitted_quantity"): BrokerProblem[] {
  const value = new Dec(quantity);
  if (!value.isInteger() || value.lte(0)) {
    return [{ field, code: "INVALID_QUANTITY", message: `${field}=${quantity} must be a whole number of shares greater than 0 (fractional shares are not offered)` }];
  }
  if (market !== "HK") return [];
  if (orderType === "ODD") {
    return value.gte(lotSize)
      ? [{ field, code: "INVALID_ODD_LOT_QUANTITY", message: `an ODD order is for fewer shares than one board lot (${lotSize}); ${field}=${quantity} is not an odd lot: send whole lots as LO` }]
      : [];
  }
  if (!value.mod(lotSize).isZero()) {
    const odd = value.mod(lotSize);
    return [{
      field,
      code: "INVALID_LOT_SIZE",
      message: `${field}=${quantity} is not a multiple of the board lot ${lotSize}; send ${value.minus(odd).toFixed()} as ${orderType} and the ${odd.toFixed()} odd shares as an ODD order`,
    }];
  }
  return [];
}

/** Prices must lie on the exchange's tick grid for their price band. */
export function tickProblems(table: TickTable, prices: { field: string; value: string | null | undefined }[]): BrokerProblem[] {
  const problems: BrokerProblem[] = [];
  for (const { field, value } of prices) {
    if (value === null || value === undefined) continue;
    const price = Number(value);
    if (table.isValid(price)) continue;
    const nearest = table.round(price);
    const below = nearest <= price ? nearest : table.down(nearest);
    const above = table.up(below);
    problems.push({
      field,
      code: "INVALID_TICK_SIZE",
      message: `${field}=${value} is not on the tick grid: the tick size at this price is ${plain(table.tickAt(price))} (nearest valid prices ${plain(below)} and ${plain(above)})`,
    });
  }
  return problems;
}

/** `TSLPPCT` trails by a percentage strictly between 0 and 100. */
export function trailingProblems(orderType: OrderType, trailingPercent: string | null | undefined): BrokerProblem[] {
  if (orderType !== "TSLPPCT" || trailingPercent === null || trailingPercent === undefined) return [];
  const value = new Dec(trailingPercent);
  return value.gt(0) && value.lt(100)
    ? []
    : [{ field: "trailing_percent", code: "INVALID_TRAILING_PERCENT", message: `trailing_percent=${trailingPercent} must be between 0 and 100 (a percentage, 5 = 5%)` }];
}

/** A `GTD` order's `expire_date` must be a trading date at or after the date the order is accepted for. */
export function expireDateProblems(market: PaperMarket, timeInForce: TimeInForce, expireDate: string | null | undefined, tradingDate: string): BrokerProblem[] {
  if (timeInForce !== "GTD" || !expireDate) return [];
  let lastDay: string | null;
  try {
    lastDay = tradingDayOnOrBefore(market, expireDate);
  } catch (error) {
    if (error instanceof DomainError) return [{ field: "expire_date", code: "EXPIRE_DATE_INVALID", message: `expire_date: ${error.message}` }];
    throw error;
  }
  if (!lastDay || lastDay < tradingDate) {
    return [{ field: "expire_date", code: "EXPIRE_DATE_INVALID", message: `expire_date=${expireDate} leaves no trading day from ${tradingDate} for the order to work` }];
  }
  return [];
}
