import { hold, release } from "./cash";
import { monitor } from "./days";
import { exitDue, oneCancelsOther, settleExits } from "./exits";
import { fill, type VenueCharge } from "./fills";
import { unfilled, type EngineCore } from "./runtime";

// A broker venue's reports of the engine's orders (docs/session-worker.md, "Orders at the broker"):
// taken, executed (in parts), ended there.

/** The broker took the order under `venueOrderId` (`order_routed`); once only. */
export function orderRouted(engine: EngineCore, orderId: string, venueOrderId: string): void {
  const order = engine.pending.find((candidate) => candidate.order_id === orderId);
  if (!order || order.venue_order_id !== undefined) return;
  order.venue_order_id = venueOrderId;
  engine.emit("order_routed", order.channel_id, { order_id: orderId, symbol: order.symbol, venue_order_id: venueOrderId });
}

/** The broker executed `quantity` of the order at `price` (its trade `tradeId`, booked once); the order is done when all of it has filled. */
export function venueFilled(engine: EngineCore, orderId: string, tradeId: string, quantity: number, price: number, at: number, charged?: VenueCharge): void {
  const order = engine.pending.find((candidate) => candidate.order_id === orderId);
  if (!order || order.venue_trades?.includes(tradeId) || !(quantity > 0) || !(price > 0)) return;
  engine.time = Math.max(engine.time, at);
  order.venue_trades = [...(order.venue_trades ?? []), tradeId];
  release(engine, order);
  fill(engine, order, price, Math.min(quantity, unfilled(order)), charged ?? true);
  if (unfilled(order) <= 0) engine.pending = engine.pending.filter((candidate) => candidate !== order);
  else hold(engine, order);
  if (order.exit_reason !== undefined) oneCancelsOther(engine, order);
  // A broker trails by itself: a new trailing stop starts from the entry price.
  else settleExits(engine, at, NaN);
  monitor(engine);
}

/** The order is over at the broker: cancelled (also the rest of a part-filled order), rejected or expired. */
export function venueOrderEnded(engine: EngineCore, orderId: string, status: "cancelled" | "rejected" | "expired", message: string, at: number): void {
  const order = engine.pending.find((candidate) => candidate.order_id === orderId);
  if (!order) return;
  engine.time = Math.max(engine.time, at);
  engine.pending = engine.pending.filter((candidate) => candidate !== order);
  release(engine, order);
  // An order that ended without selling all it made way for: the position's protective orders are placed again (`exits.ts`).
  const channel = engine.channel(order.channel_id);
  const sleeve = engine.sleeveOf(channel, order.sleeve);
  if (sleeve.exits !== null && order.exit_reason === undefined) exitDue(engine, channel, sleeve, order.symbol);
  if (status === "rejected") {
    engine.emit("order_rejected", order.channel_id, {
      order_id: orderId,
      symbol: order.symbol,
      side: order.side,
      quantity: order.quantity,
      reason: "VENUE_REJECTED",
      message,
      values: {},
    });
  } else {
    engine.emit("order_cancelled", order.channel_id, {
      order_id: orderId,
      symbol: order.symbol,
      reason: message,
      ...(status === "expired" ? { expired: true } : {}),
    });
  }
  settleExits(engine, at, NaN);
}
