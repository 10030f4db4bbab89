import { Dec } from "../../money/decimal";
import type { EngineOrder } from "../../engine/events";
import type { Order, StockPositionsResponse } from "../../provider/order-gateway";
import type { OrderStatus } from "../../provider/order-types";

/**
 * Reconciliation of a broker account with the books of the sessions trading it (docs/live-trading.md
 * "Reconciliation"; after NautilusTrader's live execution engine): what the account shows that the
 * books cannot explain. Missed fills are not found here: the exchange books every execution of a
 * session's orders, ended ones included (`venue.ts`); this names what no session owns.
 */

/** The statuses of an order that is over at the broker. */
const OVER: ReadonlySet<OrderStatus> = new Set<OrderStatus>(["FilledStatus", "CanceledStatus", "PartialWithdrawal", "RejectedStatus", "ExpiredStatus"]);

/** One session's books as reconciliation reads them: its orders (pending and ended) and what it holds by symbol. */
export interface SessionBooks {
  session_id: string;
  orders: readonly EngineOrder[];
  /** Shares held per symbol (a short is negative). */
  positions: Record<string, number>;
}

/** What the account shows that the sessions' books do not explain. */
export interface VenueMismatch {
  /** Orders working at the broker that no session placed (no session order has their id or carries their remark). */
  foreign_orders: { order_id: string; symbol: string; side: string; quantity: string; status: OrderStatus; remark: string }[];
  /** Symbols whose holding at the broker is less than what the sessions' books hold together. */
  positions: { symbol: string; account: string; sessions: string }[];
}

/** The mismatches between an account's working orders and holdings and the books of the sessions trading it; empty lists when they agree. */
export function venueMismatches(orders: readonly Order[], holdings: StockPositionsResponse, books: readonly SessionBooks[]): VenueMismatch {
  const ours = new Set<string>();
  for (const session of books) {
    for (const order of session.orders) {
      ours.add(order.order_id);
      if (order.venue_order_id !== undefined) ours.add(order.venue_order_id);
    }
  }
  const foreign_orders = orders
    .filter((order) => !OVER.has(order.status) && !ours.has(order.order_id) && !ours.has(order.remark))
    .map((order) => ({
      order_id: order.order_id,
      symbol: order.symbol,
      side: order.side,
      quantity: order.quantity,
      status: order.status,
      remark: order.remark,
    }));
  const held = new Map<string, Dec>();
  for (const channel of holdings.channels) {
    for (const position of channel.positions) held.set(position.symbol, (held.get(position.symbol) ?? new Dec(0)).plus(position.quantity));
  }
  const booked = new Map<string, number>();
  for (const session of books) for (const [symbol, quantity] of Object.entries(session.positions)) booked.set(symbol, (booked.get(symbol) ?? 0) + quantity);
  // Shares beyond the sessions' are the account owner's own: only books the account cannot cover are a mismatch.
  const positions = [...booked]
    .filter(([symbol, quantity]) => quantity > 0 && (held.get(symbol) ?? new Dec(0)).lt(quantity))
    .map(([symbol, quantity]) => ({ symbol, account: (held.get(symbol) ?? new Dec(0)).toFixed(), sessions: String(quantity) }));
  return { foreign_orders, positions };
}

/** The mismatch as one line a trader reads (empty when there is none). */
export function mismatchText(mismatch: VenueMismatch): string {
  const parts = [
    ...mismatch.foreign_orders.map((o) => `order ${o.order_id} (${o.side} ${o.quantity} ${o.symbol}, ${o.status}) was placed by no session`),
    ...mismatch.positions.map((p) => `${p.symbol}: the account holds ${p.account}, the sessions' books ${p.sessions}`),
  ];
  return parts.join("; ");
}
