import { Dec } from "../money/decimal";
import { Money } from "../money/money";

/**
 * Booked money of one sleeve position, exact: cost basis and realised P&L as `Money` (decimal.js's values),
 * quantities in whole shares (signed: negative is short). `cost` is what the open quantity
 * cost, fees included (negative for a short: the proceeds received).
 */
export interface Position {
  symbol: string;
  quantity: number;
  cost: Money;
  /** Realised P&L of the round trip so far (partial exits), fees included. */
  realized: Money;
  /** Fees paid in the round trip so far. */
  fees: Money;
  opened_at: number;
  /** Average entry price of the round trip (float, for display). */
  entry_price: number;
}

/** What a fill changed: the realised P&L it booked and, when the position closed, the round trip. */
export interface Booking {
  realized: Money;
  closed: { quantity: number; entry_price: number; exit_price: number; opened_at: number; pnl: Money; fees: Money } | null;
}

const ZERO = Money.ZERO;

/**
 * Applies a fill to a position: `cashFlow` is the signed cash the fill moved (a buy pays
 * notional + commission, a sell receives notional − commission). Opening or adding grows the
 * cost basis; reducing releases the proportional share of it and books the difference.
 */
export function book(position: Position, signedQuantity: number, price: number, cashFlow: Money, commission: Money, time: number): Booking {
  const before = position.quantity;
  const after = before + signedQuantity;
  position.fees = position.fees.plus(commission);
  if (before === 0 || Math.sign(before) === Math.sign(signedQuantity)) {
    const held = Math.abs(before);
    const added = Math.abs(signedQuantity);
    position.entry_price = (position.entry_price * held + price * added) / (held + added);
    if (before === 0) position.opened_at = time;
    position.cost = position.cost.minus(cashFlow);
    position.quantity = after;
    return { realized: ZERO, closed: null };
  }
  // Reducing (flips are sent as two orders, so `after` never changes sign).
  // A whole exit releases the whole cost (decimal.js's cost × 1); a part, the share decimal.js computes.
  const released =
    Math.abs(signedQuantity) === Math.abs(before)
      ? position.cost
      : Money.fromDec(position.cost.toDec().times(new Dec(Math.abs(signedQuantity)).div(Math.abs(before))));
  const realized = cashFlow.minus(released);
  position.cost = position.cost.minus(released);
  position.realized = position.realized.plus(realized);
  position.quantity = after;
  if (after !== 0) return { realized, closed: null };
  const closed = {
    quantity: Math.abs(before),
    entry_price: position.entry_price,
    exit_price: price,
    opened_at: position.opened_at,
    pnl: position.realized,
    fees: position.fees,
  };
  position.cost = ZERO;
  position.realized = ZERO;
  position.fees = ZERO;
  position.entry_price = 0;
  return { realized, closed };
}

export const emptyPosition = (symbol: string): Position => ({
  symbol,
  quantity: 0,
  cost: ZERO,
  realized: ZERO,
  fees: ZERO,
  opened_at: 0,
  entry_price: 0,
});

export interface SavedPosition {
  symbol: string;
  quantity: number;
  cost: string;
  realized: string;
  fees: string;
  opened_at: number;
  entry_price: number;
}

export const savePosition = (p: Position): SavedPosition => ({
  symbol: p.symbol,
  quantity: p.quantity,
  cost: p.cost.toString(),
  realized: p.realized.toString(),
  fees: p.fees.toString(),
  opened_at: p.opened_at,
  entry_price: p.entry_price,
});

export const restorePosition = (p: SavedPosition): Position => ({
  ...p,
  cost: Money.of(p.cost),
  realized: Money.of(p.realized),
  fees: Money.of(p.fees),
});
