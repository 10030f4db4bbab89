import { fillableShares } from "../engine/matching";
import { Dec } from "../money/decimal";
import type { TickTable } from "../market/tick-size";
import type { OrderStatus } from "../provider/order-types";
import { limitFillPrice, nextTrailingReference, touchPrice, trailingLimit, trailingTrigger, withinLimit } from "./matching";
import { isDone, type MinuteBar, type PaperOrder } from "./types";

// How a working order trades in a completed minute of its market: the opening auction, touch and
// trailing triggers, limits and market remainders (docs/paper-broker.md). The book (`book.ts`)
// does the fills and keeps the cash and holdings.

/** What matching a minute does to the book. */
export interface MinuteMatchingBook {
  fill(order: PaperOrder, wanted: Dec, price: Dec, at: number): Dec;
  withdraw(order: PaperOrder, msg: string, at: number, unfilled?: OrderStatus): void;
  release(order: PaperOrder, at: number): void;
  expire(order: PaperOrder): void;
  touch(order: PaperOrder): void;
  tickTable(order: PaperOrder, at: number): TickTable;
}

/** Shares a minute lets an order take: up to the minute's volume in whole lots; an odd lot whole or not at all (the engine's rule). */
const fillable = (order: PaperOrder, bar: MinuteBar): Dec =>
  new Dec(fillableShares(new Dec(order.quantity).minus(order.executed_quantity).toNumber(), bar.volume, order.lot_size));

/** Matches a working order against one completed minute of its market: expired at its expiry, matched in its sessions. */
export function matchMinute(book: MinuteMatchingBook, order: PaperOrder, bar: MinuteBar): void {
  if (order.phase === "done" || bar.end <= order.matched_until) return;
  if (order.expires_at !== null && bar.start >= order.expires_at) {
    book.expire(order);
    return;
  }
  if (order.sessions.includes(bar.session)) matchInSession(book, order, bar);
  if (!isDone(order)) order.matched_until = bar.end;
}

function matchInSession(book: MinuteMatchingBook, order: PaperOrder, bar: MinuteBar): void {
  const at = bar.end;
  const cap = () => fillable(order, bar);
  switch (order.phase) {
    case "auction": {
      if (bar.session !== "Intraday" || bar.start < (order.auction_at ?? 0)) return;
      const open = new Dec(bar.open);
      if (order.order_type === "AO" || withinLimit(order.side, open, new Dec(order.price!))) book.fill(order, cap(), open, at);
      if (isDone(order)) return;
      if (order.order_type === "AO") {
        book.withdraw(order, "not matched in the opening auction: an AO order's remainder is cancelled", at);
      } else {
        // The auction used this minute's volume; the ALO remainder joins continuous trading from the next minute.
        order.phase = "limit";
        book.touch(order);
      }
      return;
    }
    case "trigger":
      matchTrigger(book, order, bar);
      return;
    case "limit": {
      const price = limitFillPrice(order.side, new Dec(order.price!), bar);
      if (price) book.fill(order, cap(), price, at);
      return;
    }
    case "market":
      book.fill(order, cap(), new Dec(bar.open), at);
      return;
    case "done":
      return;
  }
}

function matchTrigger(book: MinuteMatchingBook, order: PaperOrder, bar: MinuteBar): void {
  const at = bar.end;
  const cap = () => fillable(order, bar);
  if (order.order_type === "LIT" || order.order_type === "MIT") {
    const touched = touchPrice(order.touch!, new Dec(order.trigger_price!), bar);
    if (!touched) return;
    book.release(order, at);
    if (order.order_type === "MIT") {
      order.phase = "market";
      book.fill(order, cap(), touched, at);
    } else {
      order.phase = "limit";
      if (withinLimit(order.side, touched, new Dec(order.price!))) book.fill(order, cap(), touched, at);
    }
    return;
  }
  const table = book.tickTable(order, at);
  const reference = new Dec(order.trailing_reference!);
  const trigger = trailingTrigger(order, reference, table);
  const touched = touchPrice(order.side === "Sell" ? "down" : "up", trigger, bar);
  if (touched) {
    const limit = trailingLimit(order.side, trigger, order.limit_offset ?? "0", table);
    order.trigger_price = trigger.toFixed();
    order.price = limit.toFixed();
    order.phase = "limit";
    book.release(order, at);
    if (withinLimit(order.side, touched, limit)) book.fill(order, cap(), touched, at);
    return;
  }
  const next = nextTrailingReference(order.side, reference, bar);
  if (!next.eq(reference)) {
    order.trailing_reference = next.toFixed();
    order.trigger_price = trailingTrigger(order, next, table).toFixed();
    book.touch(order);
  }
}
