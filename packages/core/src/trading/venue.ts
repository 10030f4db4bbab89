import { DomainError } from "../errors";
import { Dec } from "../fees/money";
import type { TradingEngine, VenueEnd } from "../engine/engine";
import type { EngineOrder } from "../engine/events";
import type { OrderDetail, OrderGateway, SubmitOrderOptions } from "../provider/order-gateway";

/**
 * Orders of sessions whose venue is their broker (`execution.venue: "broker"`, ENGINE.md §3): a
 * simulation session's paper account, a live session's LongPort account. The engine places the
 * order and keeps it pending; the session worker sends it to the venue, then reads back what the
 * venue did and hands it to the engine as fills and ends. Every step can be repeated:
 *
 * - the venue order carries the engine's order id as its client order id (`remark`), and the
 *   worker looks for it before submitting, so an order sent just before a crash is found, never
 *   sent twice;
 * - each execution is applied once, by its trade id;
 * - a cancel asked for is sent until the venue reports the order ended.
 */

/** What the venue said about one pending order since the engine last heard. */
export interface VenueReport {
  order_id: string;
  /** The venue's order id, when the engine does not know it yet. */
  routed?: string;
  /**
   * New executions, oldest first. `commission`: what the venue charged for it, when the venue keeps
   * the session's books (the paper broker): its fees on the order so far less what the engine has
   * booked, carried by the last new execution (docs/accounts.md "Fees and the cash of a fill").
   */
  executions: { trade_id: string; quantity: number; price: number; at: number; commission?: string }[];
  /** The order is over at the venue (after the executions above). */
  ended?: VenueEnd & { at: number };
}

/**
 * The engine order's type as the venue's: a stop order is a market-if-touched order triggered at
 * its price. A protective order stays until its position closes (good till cancelled); the others
 * are day orders.
 */
function submitOptions(order: EngineOrder): SubmitOrderOptions {
  const base = {
    symbol: order.symbol,
    side: order.side === "buy" ? ("Buy" as const) : ("Sell" as const),
    submitted_quantity: String(order.quantity),
    time_in_force: order.exit_reason !== undefined ? ("GTC" as const) : ("Day" as const),
    remark: order.order_id,
  };
  if (order.order_type === "limit") return { ...base, order_type: "LO", submitted_price: String(order.limit_price) };
  if (order.order_type === "stop" || order.order_type === "trailing_stop") return { ...base, order_type: "MIT", trigger_price: String(order.stop_price) };
  return { ...base, order_type: "MO" };
}

/**
 * Whether `order` waits before it is sent: the venue holds a position's shares for one selling
 * order at a time, so a protective order, or an order that takes the place of one, is sent once
 * the other order of its position on that side has ended there (its cancel confirmed, docs/trading-engine.md "Protective exits").
 */
const waitsAtVenue = (order: EngineOrder, pending: readonly EngineOrder[]): boolean =>
  pending.some(
    (other) =>
      other !== order &&
      other.venue_order_id !== undefined &&
      other.sleeve === order.sleeve &&
      other.symbol === order.symbol &&
      other.side === order.side &&
      (other.exit_reason !== undefined || order.exit_reason !== undefined),
  );

const ENDED: Partial<Record<OrderDetail["status"], "cancelled" | "rejected" | "expired">> = {
  CanceledStatus: "cancelled",
  PartialWithdrawal: "cancelled",
  RejectedStatus: "rejected",
  ExpiredStatus: "expired",
};

/** The venue's order carrying this engine order's id, if it was sent already. */
async function sentBefore(gateway: OrderGateway, order: EngineOrder): Promise<string | null> {
  const orders = await gateway.todayOrders({ symbol: order.symbol });
  return orders.find((candidate) => candidate.remark === order.order_id)?.order_id ?? null;
}

/** Asks the venue to cancel; a venue that says the order is over already has answered. */
async function cancelAt(gateway: OrderGateway, venueOrderId: string): Promise<void> {
  try {
    await gateway.cancelOrder(venueOrderId);
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
  }
}

/**
 * Sends the engine's unsent orders, forwards asked-for cancels, and reads back each order's
 * executions and end. `now` stamps a refusal on submission (the venue's own times stamp the rest).
 */
export async function exchange(
  gateway: OrderGateway,
  pending: readonly EngineOrder[],
  now: number,
  options: { bookVenueFees?: boolean; marketClosed?: boolean } = {},
): Promise<VenueReport[]> {
  const reports: VenueReport[] = [];
  for (const order of pending) {
    const report: VenueReport = { order_id: order.order_id, executions: [] };
    let venueId = order.venue_order_id ?? null;
    // A protective order the engine watches is not at the venue: asked to cancel, it just ends.
    if (order.watch) {
      if (order.cancel_requested) reports.push({ ...report, ended: { status: "cancelled", message: "cancelled before it reached the venue", at: now } });
      continue;
    }
    if (venueId === null && waitsAtVenue(order, pending)) continue;
    if (venueId === null) {
      venueId = await sentBefore(gateway, order);
      if (venueId === null && order.cancel_requested) {
        reports.push({ ...report, ended: { status: "cancelled", message: "cancelled before it reached the venue", at: now } });
        continue;
      }
      // The close overtook it (a signal on the day's last bar): it is not sent to a closed market; the day rollover expires it.
      if (venueId === null && options.marketClosed) continue;
      if (venueId === null) {
        try {
          venueId = (await gateway.submitOrder(submitOptions(order))).order_id;
        } catch (error) {
          // A fault, or a busy or throttled venue (409, 429, 5xx): nothing was decided; the next step asks again.
          if (!(error instanceof DomainError) || error.status === 409 || error.status === 429 || error.status >= 500) throw error;
          // A refusal the venue kept as a rejected order is read back below; one it did not keep ends here.
          venueId = typeof error.extra.order_id === "string" ? error.extra.order_id : null;
          if (venueId === null) {
            reports.push({ ...report, ended: { status: "rejected", message: `${error.code}: ${error.message}`, at: now } });
            continue;
          }
        }
      }
      report.routed = venueId;
    }
    if (order.cancel_requested) await cancelAt(gateway, venueId);
    // The status first, then the executions: an order over by then has no fill the list lacks.
    const detail = await gateway.orderDetail(venueId);
    const applied = new Set(order.venue_trades ?? []);
    for (const execution of await gateway.todayExecutions({ order_id: venueId })) {
      if (applied.has(execution.trade_id)) continue;
      report.executions.push({
        trade_id: execution.trade_id,
        quantity: Number(execution.quantity),
        price: Number(execution.price),
        at: Date.parse(execution.trade_done_at),
      });
    }
    if (options.bookVenueFees && report.executions.length > 0) {
      const booked = new Dec(order.filled_commission ?? "0");
      for (const execution of report.executions) execution.commission = "0";
      report.executions[report.executions.length - 1]!.commission = Dec.max(new Dec(detail.charge_detail.total_amount).minus(booked), 0).toFixed();
    }
    const ended = ENDED[detail.status];
    if (ended) report.ended = { status: ended, message: detail.msg || detail.status, at: Date.parse(detail.updated_at ?? detail.submitted_at) };
    if (report.routed || report.executions.length > 0 || report.ended) reports.push(report);
  }
  return reports;
}

/** Hands the venue's reports to the engine: routing, then each new execution, then the end. */
export function applyReports(engine: TradingEngine, reports: readonly VenueReport[]): void {
  for (const report of reports) {
    if (report.routed) engine.routed(report.order_id, report.routed);
    for (const execution of report.executions) {
      const charged = execution.commission !== undefined ? { commission: execution.commission } : undefined;
      engine.venueFill(report.order_id, execution.trade_id, execution.quantity, execution.price, execution.at, charged);
    }
    if (report.ended) engine.venueEnded(report.order_id, report.ended, report.ended.at);
  }
}
