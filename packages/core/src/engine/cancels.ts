import type { EngineOrder } from "./events";
import { release } from "./cash";
import type { EngineCore } from "./runtime";

/** Withdraws pending orders; a broker's orders are asked to cancel (`order_cancel_requested`) and end when it reports so. */
export function cancelPending(e: EngineCore, which: (order: EngineOrder) => boolean, reason: string, extra: Record<string, unknown> = {}) {
  if (!e.barFills) {
    for (const order of e.pending) {
      if (!which(order) || order.cancel_requested) continue;
      order.cancel_requested = true;
      e.emit("order_cancel_requested", order.channel_id, { order_id: order.order_id, symbol: order.symbol, reason, ...extra });
    }
    return;
  }
  const kept: EngineOrder[] = [];
  for (const order of e.pending) {
    if (which(order)) {
      release(e, order);
      e.emit("order_cancelled", order.channel_id, { order_id: order.order_id, symbol: order.symbol, reason, ...extra });
    } else kept.push(order);
  }
  e.pending = kept;
}
