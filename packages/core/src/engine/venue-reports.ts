import { hold, release } from "./cash";
import { monitor } from "./days";
import { exitDue, oneCancelsOther, settleExits } from "./exits";
import { fill, type VenueCharge } from "./fills";
import type { EngineOrder } from "./events";
import { ENDED_KEPT, unfilled, type EngineCore } from "./runtime";

// A broker venue's reports of the engine's orders (docs/session-worker.md, "Orders at the broker"):
// taken, executed (in parts), ended there.

/** The broker took the order under `venueOrderId` (`order_routed`, stamped when the worker learnt it, never before the order); once only. */
export function orderRouted(engine: EngineCore, orderId: string, venueOrderId: string, at?: number): void {
  const order = engine.pending.find((candidate) => candidate.order_id === orderId);
  if (!order || order.venue_order_id !== undefined) return;
  engine.time = Math.max(engine.time, order.submitted_at, at ?? engine.time);
  order.venue_order_id = venueOrderId;
  engine.emit("order_routed", order.channel_id, { order_id: orderId, symbol: order.symbol, venue_order_id: venueOrderId });
}

/**
 * The broker executed `quantity` of the order at `price` (its trade `tradeId`, booked once,
 * whatever order the reports come in); the order is done when all of it has filled. An execution
 * the broker lists after the order ended (a late fill) is booked too; one beyond the order's
 * quantity (an overfill) is refused with a critical alert, as the books cannot explain it.
 */
export function venueFilled(engine: EngineCore, orderId: string, tradeId: string, quantity: number, price: number, at: number, charged?: VenueCharge): void {
  if (!(quantity > 0) || !(price > 0)) return;
  const order = engine.pending.find((candidate) => candidate.order_id === orderId);
  const over = order ? undefined : engine.ended.find((candidate) => candidate.order_id === orderId);
  const known = order ?? over;
  if (!known || known.venue_trades?.includes(tradeId)) return;
  engine.time = Math.max(engine.time, at);
  known.venue_trades = [...(known.venue_trades ?? []), tradeId];
  const fits = Math.min(quantity, unfilled(known));
  if (fits < quantity) overfilled(engine, known, tradeId, quantity, fits);
  if (fits <= 0) return;
  if (order) release(engine, order);
  fill(engine, known, price, fits, charged ?? true, over !== undefined);
  if (order) {
    if (unfilled(order) <= 0) {
      engine.pending = engine.pending.filter((candidate) => candidate !== order);
      keepEnded(engine, order);
    } else hold(engine, order);
  }
  if (known.exit_reason !== undefined) oneCancelsOther(engine, known);
  else {
    const channel = engine.channel(known.channel_id);
    const sleeve = engine.sleeveOf(channel, known.sleeve);
    if (over && sleeve.exits !== null) exitDue(engine, channel, sleeve, known.symbol);
    // A broker trails by itself: a new trailing stop starts from the entry price.
    settleExits(engine, at, NaN);
  }
  monitor(engine);
}

/** An execution beyond what the order asked for: the excess is not booked, and the session is told. */
function overfilled(engine: EngineCore, order: EngineOrder, tradeId: string, quantity: number, fits: number) {
  const values = {
    order_id: order.order_id,
    venue_order_id: order.venue_order_id ?? null,
    trade_id: tradeId,
    quantity: order.quantity,
    executed: quantity,
    booked: fits,
  };
  const message = `OVERFILL: the broker reports ${quantity} more of ${order.symbol} on order ${order.order_id} (trade ${tradeId}) than the ${unfilled(order)} it still had; ${quantity - fits} not booked`;
  engine.emit("alert", order.channel_id, { level: "critical", type: "venue", reason: "OVERFILL", message, values });
}

/** An order over at the broker, kept for the executions it may still list (`EngineCore.ended`). */
function keepEnded(engine: EngineCore, order: EngineOrder) {
  engine.ended.push(order);
  if (engine.ended.length > ENDED_KEPT) engine.ended.splice(0, engine.ended.length - ENDED_KEPT);
}

/**
 * The broker answered a replacement the worker sent: done (the order's new terms stand), or
 * refused (the order goes back to the terms the broker still has, `order_replaced` with the
 * broker's reason and a warning in the log).
 */
export function venueReplaced(engine: EngineCore, orderId: string, refusal: { message: string; code?: string | number } | null, at: number): void {
  const order = engine.pending.find((candidate) => candidate.order_id === orderId);
  const before = order?.venue_replace;
  if (!order || !before) return;
  delete order.venue_replace;
  if (refusal === null) return;
  engine.time = Math.max(engine.time, at);
  const previous = { quantity: order.quantity, price: order.limit_price ?? order.stop_price };
  release(engine, order);
  order.quantity = before.quantity;
  order.limit_price = before.limit_price;
  order.stop_price = before.stop_price;
  hold(engine, order);
  const reason = `VENUE_REFUSED: ${refusal.message}`;
  engine.emit("order_replaced", order.channel_id, {
    order_id: orderId,
    symbol: order.symbol,
    quantity: order.quantity,
    limit_price: order.limit_price,
    stop_price: order.stop_price,
    previous_quantity: previous.quantity,
    previous_price: previous.price,
    reason,
    ...(refusal.code !== undefined ? { venue_code: refusal.code } : {}),
  });
  engine.emit("log", order.channel_id, {
    level: "warning",
    message: `The broker refused the replacement of order ${orderId}: ${refusal.message}`,
    order_id: orderId,
  });
}

/** How an order ended at the broker: cancelled (also the rest of a part-filled order), rejected (with the broker's code) or expired. */
export interface VenueEnd {
  status: "cancelled" | "rejected" | "expired";
  message: string;
  /** The broker's own code for a refusal (LongPort's API error code). */
  code?: string | number;
}

/** The order is over at the broker. */
export function venueOrderEnded(engine: EngineCore, orderId: string, end: VenueEnd, at: number): void {
  const order = engine.pending.find((candidate) => candidate.order_id === orderId);
  if (!order) return;
  engine.time = Math.max(engine.time, at);
  engine.pending = engine.pending.filter((candidate) => candidate !== order);
  release(engine, order);
  keepEnded(engine, order);
  // An order that ended without selling all it made way for: the position's protective orders are placed again (`exits.ts`).
  const channel = engine.channel(order.channel_id);
  const sleeve = engine.sleeveOf(channel, order.sleeve);
  if (sleeve.exits !== null && order.exit_reason === undefined) exitDue(engine, channel, sleeve, order.symbol);
  if (end.status === "rejected") {
    engine.emit("order_rejected", order.channel_id, {
      order_id: orderId,
      symbol: order.symbol,
      side: order.side,
      quantity: order.quantity,
      reason: "VENUE_REJECTED",
      message: end.message,
      values: end.code !== undefined ? { venue_code: end.code } : {},
    });
  } else {
    engine.emit("order_cancelled", order.channel_id, {
      order_id: orderId,
      symbol: order.symbol,
      reason: end.message,
      ...(end.status === "expired" ? { expired: true } : {}),
    });
  }
  settleExits(engine, at, NaN);
}
