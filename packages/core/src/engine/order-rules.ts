import { Dec } from "../money/decimal";
import type { Market } from "../market/market";
import { HkEtpTicks, tickTableFor, type TickTable } from "../market/tick-size";

/**
 * The rules an order's own terms must meet at any venue, whoever places it: whole shares in
 * board lots, prices on the exchange's tick grid, a trailing percentage that is one. The engine's
 * pre-trade checks (denials) and the paper broker (refusals in its LongPort-shaped face) both ask
 * these, so a session's order and an `api-test/trade` order are judged alike; each answer names
 * the field, a stable code and the numbers behind it. docs/trading-engine.md and
 * docs/paper-broker.md list them.
 */
export interface TermProblem {
  field: string;
  code: string;
  message: string;
  values: Record<string, number | string>;
}

const plain = (value: number) => new Dec(String(value)).toFixed();
const NONE: readonly TermProblem[] = Object.freeze([]);

/**
 * Whole shares, more than zero (fractional shares are not offered), in multiples of the board lot;
 * an odd-lot order (`oddLot`) is instead for fewer shares than one lot. `quantity` is a number or
 * the decimal text an order carries.
 */
export function quantityProblems(quantity: number | string, lotSize: number, oddLot = false, field = "quantity"): readonly TermProblem[] {
  // The common case (an engine order in whole lots) decides without decimal arithmetic.
  if (typeof quantity === "number" && Number.isSafeInteger(quantity) && quantity > 0 && (oddLot ? quantity < lotSize : quantity % lotSize === 0)) return NONE;
  const value = new Dec(quantity);
  if (!value.isInteger() || value.lte(0)) {
    return [
      {
        field,
        code: "INVALID_QUANTITY",
        message: `${field}=${quantity} must be a whole number of shares greater than 0 (fractional shares are not offered)`,
        values: { quantity: value.toNumber() },
      },
    ];
  }
  if (oddLot) {
    return !value.gte(lotSize)
      ? NONE
      : [
          {
            field,
            code: "INVALID_ODD_LOT_QUANTITY",
            message: `an odd-lot order is for fewer shares than one board lot (${lotSize}); ${field}=${quantity} is not an odd lot`,
            values: { quantity: value.toNumber(), lot_size: lotSize },
          },
        ];
  }
  const odd = value.mod(lotSize);
  if (odd.isZero()) return NONE;
  return [
    {
      field,
      code: "INVALID_LOT_SIZE",
      message: `${field}=${quantity} is not a multiple of the board lot ${lotSize}`,
      values: { quantity: value.toNumber(), lot_size: lotSize, whole_lots: value.minus(odd).toNumber(), odd_shares: odd.toNumber() },
    },
  ];
}

/** Prices must lie on the tick grid for their price band (prices not given are skipped). */
export function tickProblems(table: TickTable, prices: { field: string; value: number | string | null | undefined }[]): TermProblem[] {
  const problems: TermProblem[] = [];
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
      values: { price, tick_size: table.tickAt(price), below, above },
    });
  }
  return problems;
}

/**
 * The tick rule where the instrument's kind is not known (the engine's sessions: static
 * information does not tell an HK exchange-traded product from a share): a price is refused only
 * when it lies on none of the market's grids that day, named by the equity grid; the venue holds
 * the rest to the instrument's own grid.
 */
export function marketTickProblems(market: Market, dayNumber: number, field: string, price: number): readonly TermProblem[] {
  if (market !== "US" && market !== "HK") return NONE;
  const equities = tickTableFor(market, { dayNumber });
  const problems = tickProblems(equities, [{ field, value: price }]);
  if (problems.length === 0 || (market === "HK" && HkEtpTicks.isValid(price))) return NONE;
  return problems;
}

/** A trailing percentage lies strictly between 0 and 100 (a percentage: 5 is 5%). */
export function trailingPercentProblems(trailingPercent: number | string | null | undefined, field = "trailing_percent"): readonly TermProblem[] {
  if (trailingPercent === null || trailingPercent === undefined) return NONE;
  const value = new Dec(trailingPercent);
  return value.gt(0) && value.lt(100)
    ? NONE
    : [
        {
          field,
          code: "INVALID_TRAILING_PERCENT",
          message: `${field}=${trailingPercent} must be between 0 and 100 (a percentage, 5 = 5%)`,
          values: { trailing_percent: value.toNumber() },
        },
      ];
}

/** A replacement of an order that has filled in part must be for more than what filled (`QUANTITY_BELOW_EXECUTED`); the rest is what is judged. */
export function replacementProblems(quantity: number | string, filled: number | string, field = "quantity"): readonly TermProblem[] {
  if (new Dec(quantity).gt(filled)) return NONE;
  return [
    {
      field,
      code: "QUANTITY_BELOW_EXECUTED",
      message: `quantity=${quantity} must exceed the ${filled} shares already filled`,
      values: { quantity: Number(quantity), filled: Number(filled) },
    },
  ];
}
