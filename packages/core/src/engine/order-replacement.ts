import { hold, referencePrice, release } from "./cash";
import { preTradeDenials } from "./checks";
import type { Denial, EngineOrder } from "./events";
import { replacementProblems } from "./order-rules";
import { deny, type EngineCore, type OrderRequest } from "./runtime";

/**
 * Changes a pending order's quantity and, for a limit or stop order, its price (`order_replaced`).
 * The changed order goes through the pre-trade checks as if placed now, except the daily count
 * (a replacement is not a new order) and with its own cash promise released; denied, it stays as
 * it was and a warning is logged. At a broker the order is changed at once and the change sent
 * (`venue_replace`: the worker sends it; the venue may still refuse it, `venue-reports.ts`); an
 * order being cancelled there is not changed. `null` when no pending order has that id.
 */
export function replaceOrder(
  engine: EngineCore,
  orderId: string,
  change: { quantity?: number; price?: number | null },
  at: number,
): { order: EngineOrder; denials: Denial[] } | null {
  const index = engine.pending.findIndex((order) => order.order_id === orderId);
  if (index < 0) return null;
  const order = engine.pending[index];
  const channel = engine.channel(order.channel_id);
  engine.time = Math.max(engine.time, at);
  if (order.cancel_requested) {
    const denial = {
      reason: "ORDER_CANCELLING",
      message: "the order is being cancelled at the broker: it is not changed",
      values: { order_id: orderId },
    };
    engine.emit("log", order.channel_id, {
      level: "warning",
      message: `Replace of order ${orderId} denied: ${denial.message}`,
      order_id: orderId,
      denials: [denial],
    });
    return { order, denials: [denial] };
  }
  const quantity = change.quantity ?? order.quantity;
  const filled = order.filled ?? 0;
  const price = order.order_type === "market" ? null : (change.price ?? order.limit_price ?? order.stop_price);
  // What is left to fill is what the checks judge (a part already filled is booked).
  const request: OrderRequest = {
    channel_id: order.channel_id,
    symbol: order.symbol,
    side: order.side,
    quantity: quantity - filled,
    order_type: order.order_type,
    price,
  };
  engine.pending.splice(index, 1);
  release(engine, order);
  const denials =
    quantity > filled
      ? preTradeDenials(engine, channel, engine.sleeveOf(channel, order.sleeve), request, referencePrice(engine, request)).filter(
          (denial) => denial.reason !== "MAX_DAILY_TRADES_EXCEEDED",
        )
      : [];
  for (const problem of replacementProblems(quantity, filled)) deny(denials, problem.code, problem.message, problem.values);
  if (denials.length > 0) {
    engine.pending.splice(index, 0, order);
    hold(engine, order);
    engine.emit("log", order.channel_id, {
      level: "warning",
      message: `Replace of order ${orderId} denied: ${denials[0].message}`,
      order_id: orderId,
      denials,
    });
    return { order, denials };
  }
  const previous = { quantity: order.quantity, price: order.limit_price ?? order.stop_price };
  const replaced: EngineOrder = {
    ...order,
    quantity,
    limit_price: order.order_type === "limit" ? price : null,
    stop_price: order.order_type === "stop" || order.order_type === "trailing_stop" ? price : null,
  };
  // An order the broker holds is changed there too; what it holds until it confirms is kept (the first terms, if changes follow each other).
  if (!engine.barFills && order.venue_order_id !== undefined)
    replaced.venue_replace = order.venue_replace ?? { quantity: order.quantity, limit_price: order.limit_price, stop_price: order.stop_price };
  engine.pending.splice(index, 0, replaced);
  hold(engine, replaced);
  engine.emit("order_replaced", order.channel_id, {
    order_id: orderId,
    symbol: order.symbol,
    quantity,
    limit_price: replaced.limit_price,
    stop_price: replaced.stop_price,
    previous_quantity: previous.quantity,
    previous_price: previous.price,
  });
  return { order: replaced, denials: [] };
}
