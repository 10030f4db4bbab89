import { Dec } from "../fees/money";

/**
 * Booked money of one sleeve position, exact: cost basis and realised P&L in decimal.js,
 * quantities in whole shares (signed: negative is short). `cost` is what the open quantity
 * cost, fees included (negative for a short: the proceeds received).
 */
export interface Position {
  symbol: string;
  quantity: number;
  cost: Dec;
  /** Realised P&L of the round trip so far (partial exits), fees included. */
  realized: Dec;
  /** Fees paid in the round trip so far. */
  fees: Dec;
  opened_at: number;
  /** Average entry price of the round trip (float, for display). */
  entry_price: number;
}

/** What a fill changed: the realised P&L it booked and, when the position closed, the round trip. */
export interface Booking {
  realized: Dec;
  closed: { quantity: number; entry_price: number; exit_price: number; opened_at: number; pnl: Dec; fees: Dec } | null;
}

const ZERO = new Dec(0);

/**
 * Applies a fill to a position: `cashFlow` is the signed cash the fill moved (a buy pays
 * notional + commission, a sell receives notional − commission). Opening or adding grows the
 * cost basis; reducing releases the proportional share of it and books the difference.
 */
export function book(position: Position, signedQuantity: number, price: number, cashFlow: Dec, commission: Dec, time: number): Booking {
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
  const share = new Dec(Math.abs(signedQuantity)).div(Math.abs(before));
  const released = position.cost.times(share);
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
  cost: new Dec(p.cost),
  realized: new Dec(p.realized),
  fees: new Dec(p.fees),
});
