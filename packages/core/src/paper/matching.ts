import { Dec } from "../money/decimal";
import type { TickTable } from "../market/tick-size";
import type { OrderSide } from "../provider/order-types";
import type { Depth } from "../provider/quote-types";
import { AT_LEVEL, AT_OPEN, limitReach, marketable, touchReach, type Reach } from "../engine/matching";
import type { MinuteBar } from "./types";

/**
 * Matching rules of the paper broker, as pure functions of an order's terms and the market's
 * minute bars or displayed book. The price rules are the engine's (`engine/matching.ts`), shared
 * with the bar-simulated venue; this file adds what only a LongPort-shaped book has. The broker applies them in `book.ts`; docs/paper-broker.md
 * states them in words.
 */

const min = (a: Dec, b: Dec) => (a.lte(b) ? a : b);
const max = (a: Dec, b: Dec) => (a.gte(b) ? a : b);

/** The decimal price a `Reach` names: the bar's open or the order's own level. */
const priced = (reach: Reach, open: string, level: Dec): Dec | null => (reach === AT_OPEN ? new Dec(open) : reach === AT_LEVEL ? level : null);

/** The price a resting limit order trades at in a minute bar, or null (the engine's `limitReach` rule). */
export function limitFillPrice(side: OrderSide, limit: Dec, bar: MinuteBar): Dec | null {
  return priced(limitReach(side === "Buy", limit.toNumber(), Number(bar.open), Number(bar.high), Number(bar.low)), bar.open, limit);
}

/** Whether a price is marketable for a limit (the engine's `marketable` rule). */
export function withinLimit(side: OrderSide, price: Dec, limit: Dec): boolean {
  return marketable(side === "Buy", price.toNumber(), limit.toNumber());
}

/** Where the market touches a trigger in a minute bar, or null (the engine's `touchReach` rule). */
export function touchPrice(touch: "up" | "down", trigger: Dec, bar: MinuteBar): Dec | null {
  return priced(touchReach(touch === "up", trigger.toNumber(), Number(bar.open), Number(bar.high), Number(bar.low)), bar.open, trigger);
}

/** One level taken from the displayed book. */
export interface BookFill {
  price: Dec;
  quantity: Dec;
}

/**
 * Takes displayed levels best first: at most `maxLevels`, only those within `limit` (when given),
 * each up to its displayed size, until `quantity` is met.
 */
export function sweepLevels(side: OrderSide, levels: readonly Depth[], quantity: Dec, limit: Dec | null, maxLevels: number): BookFill[] {
  const fills: BookFill[] = [];
  let remaining = quantity;
  for (const level of levels.slice(0, maxLevels)) {
    if (remaining.lte(0) || level.price === null || level.volume <= 0) break;
    const price = new Dec(level.price);
    if (limit !== null && !withinLimit(side, price, limit)) break;
    const take = min(remaining, new Dec(level.volume));
    fills.push({ price, quantity: take });
    remaining = remaining.minus(take);
  }
  return fills;
}

/** A price rounded onto the tick grid, down or up (never below the smallest tick). */
export function onTick(table: TickTable, price: Dec, direction: "down" | "up"): Dec {
  const value = price.toNumber();
  let rounded = table.round(value);
  if (direction === "down" && rounded > value) rounded = table.down(rounded);
  if (direction === "up" && rounded < value) rounded = table.up(rounded);
  return new Dec(String(rounded));
}

/** Terms of a trailing order. */
export interface TrailingTerms {
  side: OrderSide;
  trailing_amount: string | null;
  trailing_percent: string | null;
}

/**
 * The trigger of a trailing order from its reference (the highest price since submission for a
 * sell, the lowest for a buy): that far below (sell) or above (buy), on the tick grid on the
 * side away from the market.
 */
export function trailingTrigger(terms: TrailingTerms, reference: Dec, table: TickTable): Dec {
  const distance = terms.trailing_amount !== null ? new Dec(terms.trailing_amount) : reference.times(terms.trailing_percent!).div(100);
  return terms.side === "Sell" ? onTick(table, reference.minus(distance), "down") : onTick(table, reference.plus(distance), "up");
}

/** The limit a triggered trailing order rests at: `limit_offset` beyond its trigger, on the tick grid. */
export function trailingLimit(side: OrderSide, trigger: Dec, limitOffset: string, table: TickTable): Dec {
  return side === "Sell" ? onTick(table, trigger.minus(limitOffset), "down") : onTick(table, trigger.plus(limitOffset), "up");
}

/** The new reference after a bar: the higher high for sells, the lower low for buys. */
export function nextTrailingReference(side: OrderSide, reference: Dec, bar: MinuteBar): Dec {
  return side === "Sell" ? max(reference, new Dec(bar.high)) : min(reference, new Dec(bar.low));
}
