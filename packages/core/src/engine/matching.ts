/**
 * The matching rules of every venue that matches orders against bars: the engine's bar-simulated
 * venue (backtests, replays) and the paper broker (simulation sessions, `api-test/trade`). Each
 * rule answers *which* price an order trades at, never a computed one, so the same rule serves
 * the engine's float64 bars and the paper book's decimal strings exactly, without allocating.
 * docs/trading-engine.md and docs/paper-broker.md state them in words.
 */

/** Where an order trades in a bar: not at all, at the bar's open (it opened through), or at the order's own level. */
export type Reach = typeof NOT_REACHED | typeof AT_OPEN | typeof AT_LEVEL;
export const NOT_REACHED = 0;
export const AT_OPEN = 1;
export const AT_LEVEL = 2;

/**
 * A resting limit order: a buy fills once the bar's low is at or below the limit, at the limit,
 * or at the open when the bar opened below it; sells mirror that with the high.
 */
export function limitReach(buying: boolean, limit: number, open: number, high: number, low: number): Reach {
  if (buying) return low <= limit ? (open < limit ? AT_OPEN : AT_LEVEL) : NOT_REACHED;
  return high >= limit ? (open > limit ? AT_OPEN : AT_LEVEL) : NOT_REACHED;
}

/**
 * A trigger (stop, market- or limit-if-touched, trailing): falling (`rising` false) when the low
 * reaches it, rising when the high does; a bar that opens beyond the trigger touches at its open.
 */
export function touchReach(rising: boolean, trigger: number, open: number, high: number, low: number): Reach {
  if (rising) return high >= trigger ? (open > trigger ? AT_OPEN : AT_LEVEL) : NOT_REACHED;
  return low <= trigger ? (open < trigger ? AT_OPEN : AT_LEVEL) : NOT_REACHED;
}

/** Whether a price is marketable for a limit: at or below it for buys, at or above for sells. */
export function marketable(buying: boolean, price: number, limit: number): boolean {
  return buying ? price <= limit : price >= limit;
}

/**
 * Shares one bar lets an order take when `available` shares of it may trade (the bar's volume, or
 * the order's share of it): all that remains when that covers it, else whole lots of it. An order
 * for fewer shares than a lot (an odd lot, or the last odd shares of a holding) fills whole or not at all.
 */
export function fillableShares(remaining: number, available: number, lot: number): number {
  if (remaining <= available) return remaining;
  return Math.floor(available / lot) * lot;
}
