import { DomainError } from "../../errors";
import { Dec } from "../../money/decimal";
import type { TradingEngine, VenueEnd } from "../../engine/engine";
import type { EngineOrder } from "../../engine/events";
import type { Execution, Order, OrderDetail, OrderGateway, ReplaceOrderOptions, SubmitOrderOptions } from "../../provider/order-gateway";

/**
 * Orders of sessions whose venue is their broker (`execution.venue: "broker"`, ENGINE.md §3): a
 * simulation session's paper account, a live session's LongPort account. The engine places the
 * order and keeps it pending; the session worker sends it to the venue, then reads back what the
 * venue did and hands it to the engine as fills and ends. Every step can be repeated:
 *
 * - the venue order carries the engine's order id as its client order id (`remark`), and the
 *   worker looks for it in the account's orders before submitting, so an order sent just before a
 *   crash, or whose send timed out, is found, never sent twice;
 * - each execution is applied once, by its trade id;
 * - a cancel asked for is sent until the venue reports the order ended.
 */

/** What the venue said about one pending order since the engine last heard. */
export interface VenueReport {
  order_id: string;
  /** The venue's order id, when the engine does not know it yet, and when the worker learnt it. */
  routed?: string;
  routed_at?: number;
  /**
   * New executions, oldest first. `commission`: what the venue charged for it, when the venue keeps
   * the session's books (the paper broker): its fees on the order so far less what the engine has
   * booked, carried by the last new execution (docs/accounts.md "Fees and the cash of a fill").
   */
  executions: { trade_id: string; quantity: number; price: number; at: number; commission?: string }[];
  /** The order is over at the venue (after the executions above). */
  ended?: VenueEnd & { at: number };
  /** A replacement sent: taken (`refused` absent) or refused with the venue's reason. */
  replaced?: { refused?: { message: string; code?: string | number }; at: number };
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

/** A replacement of the engine order's terms at the venue (its new quantity, and its limit or trigger). */
function replaceOptions(order: EngineOrder, venueId: string): ReplaceOrderOptions {
  const base = { order_id: venueId, quantity: String(order.quantity) };
  if (order.order_type === "limit") return { ...base, price: String(order.limit_price) };
  if (order.order_type === "stop" || order.order_type === "trailing_stop") return { ...base, trigger_price: String(order.stop_price) };
  return base;
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

/**
 * One step's reads of a broker account, shared by every session trading it: today's orders and
 * today's executions, each read at most once (two trade calls, whatever the number of orders,
 * docs/live-trading.md "Trade calls"), read again after a submit or a cancel changed them.
 */
export class VenueReads {
  private orders?: Promise<Order[]>;
  private executions?: Promise<Execution[]>;
  /**
   * Whether this step's periodic read of the account is due (the worker's `LIVE_POLL_MS`), decided
   * once for every session trading the account; undefined until the first session asks.
   */
  pollDue?: boolean;

  constructor(readonly gateway: OrderGateway) {}

  todayOrders(): Promise<Order[]> {
    this.orders ??= this.gateway.todayOrders();
    this.orders.catch(() => (this.orders = undefined));
    return this.orders;
  }

  todayExecutions(): Promise<Execution[]> {
    this.executions ??= this.gateway.todayExecutions();
    this.executions.catch(() => (this.executions = undefined));
    return this.executions;
  }

  /** A submit or cancel changed the account: the next read is a new one. */
  changed(): void {
    this.orders = undefined;
    this.executions = undefined;
  }
}

/**
 * The longest an exchange lets a trade call wait for the account's rate limit (`OrderGateway.backlogMs`):
 * beyond it, what is left to send or read waits for a later step, so a worker step never waits out
 * LongPort's 30-second window (docs/live-trading.md "Trade calls").
 */
export const VENUE_WAIT_MS = 1_000;

/** What an exchange did: the reports for the engine, and how long to wait before sending again when the venue was busy or its answer unknown. */
export interface Exchanged {
  reports: VenueReport[];
  /** The account's rate limit was too busy (`VENUE_WAIT_MS`): some orders were not sent, or the asked-for read was not made; a later step does them. */
  deferred?: boolean;
  /** Set when a send's outcome is unknown (a timeout, a dropped connection) or the venue asked to wait (a rate limit): ms. */
  retryAfterMs?: number;
  /** The cancels sent this step: `error` null when the venue took it (or said the order is over), else why it failed (busy, throttled, unreachable, its own failure). */
  cancels?: { order_id: string; venue_order_id: string; error: string | null }[];
}

/** How long to wait before sending again after a failure that decided nothing, by what the venue said. */
const waitAfter = (error: unknown): number =>
  error instanceof DomainError && typeof error.extra.retry_after === "number" ? error.extra.retry_after * 1000 : 1000;

/** Whether a failed send was the venue saying no (the order is over), rather than a busy, throttled or unreachable venue (nothing was decided). */
const refused = (error: unknown): error is DomainError => error instanceof DomainError && error.status < 500 && error.status !== 409 && error.status !== 429;

/**
 * Sends the engine's unsent orders and forwards asked-for cancels; then, when `read` (a push
 * said an order changed, the fallback poll is due) or when it sent anything, reads back each
 * order's executions and end from the account's lists (`VenueReads`), and the executions of
 * orders that ended already (`ended`: a late fill). A refusal ends its order as rejected with the
 * venue's code and message, and the other orders go on; a send whose outcome is unknown is looked
 * up by its `remark` before it is sent again (`retryAfterMs` says when). `now` stamps what the
 * venue does not.
 */
export async function exchange(
  reads: VenueReads,
  pending: readonly EngineOrder[],
  now: number,
  options: {
    read?: boolean;
    ended?: readonly EngineOrder[];
    bookVenueFees?: boolean;
    marketClosed?: boolean;
    /** Whether an order's cancel may be sent now (false: it failed lately and waits out its backoff). */
    cancelDue?: (orderId: string) => boolean;
  } = {},
): Promise<Exchanged> {
  const gateway = reads.gateway;
  const reports = new Map<string, VenueReport>();
  const reportOf = (order: EngineOrder) =>
    reports.get(order.order_id) ?? (reports.set(order.order_id, { order_id: order.order_id, executions: [] }), reports.get(order.order_id)!);
  const atVenue = new Map<string, EngineOrder>();
  let retryAfterMs: number | undefined;
  const cancels: NonNullable<Exchanged["cancels"]> = [];
  let sent = false;
  let deferred = false;
  /** Whether a trade call asked for now would wait too long (nothing is sent or read then: `deferred`). */
  const busy = () => (gateway.backlogMs?.() ?? 0) > VENUE_WAIT_MS && (deferred = true);
  for (const order of pending) {
    // A protective order the engine watches is not at the venue: asked to cancel, it just ends.
    if (order.watch) {
      if (order.cancel_requested) reportOf(order).ended = { status: "cancelled", message: "cancelled before it reached the venue", at: now };
      continue;
    }
    let venueId = order.venue_order_id ?? null;
    if (venueId === null) {
      if (waitsAtVenue(order, pending)) continue;
      // The account's rate limit is too busy to look it up or send it now: a later step does.
      if (busy()) continue;
      // Sent before a crash or an unknown outcome: found by its remark, never sent twice.
      venueId = (await reads.todayOrders()).find((candidate) => candidate.remark === order.order_id)?.order_id ?? null;
      if (venueId === null && order.cancel_requested) {
        reportOf(order).ended = { status: "cancelled", message: "cancelled before it reached the venue", at: now };
        continue;
      }
      // The close overtook it (a signal on the day's last bar): it is not sent to a closed market; the day rollover expires it.
      if (venueId === null && options.marketClosed) continue;
      if (venueId === null) {
        try {
          venueId = (await gateway.submitOrder(submitOptions(order))).order_id;
          sent = true;
        } catch (error) {
          if (!refused(error)) {
            retryAfterMs = Math.max(retryAfterMs ?? 0, waitAfter(error));
            continue;
          }
          sent = true;
          // A refusal the venue kept as a rejected order is read back below; one it did not keep ends here.
          venueId = typeof error.extra.order_id === "string" ? error.extra.order_id : null;
          if (venueId === null) {
            const code = error.extra.provider_code;
            reportOf(order).ended = {
              status: "rejected",
              message: `${error.code}: ${error.message}`,
              ...(typeof code === "string" || typeof code === "number" ? { code } : {}),
              at: now,
            };
            continue;
          }
        }
      }
      reportOf(order).routed = venueId;
      reportOf(order).routed_at = now;
    }
    if ((order.cancel_requested || order.venue_replace) && busy()) {
      // Its cancel or change waits for a later step; its fills are still read below.
    } else if (order.cancel_requested) {
      if (options.cancelDue?.(order.order_id) ?? true) {
        cancels.push({ order_id: order.order_id, venue_order_id: venueId, error: await cancelAt(gateway, venueId) });
        sent = true;
      }
    } else if (order.venue_replace) {
      try {
        await gateway.replaceOrder(replaceOptions(order, venueId));
        reportOf(order).replaced = { at: now };
        sent = true;
      } catch (error) {
        if (!refused(error)) retryAfterMs = Math.max(retryAfterMs ?? 0, waitAfter(error));
        else {
          const code = error.extra.provider_code;
          reportOf(order).replaced = {
            refused: { message: `${error.code}: ${error.message}`, ...(typeof code === "string" || typeof code === "number" ? { code } : {}) },
            at: now,
          };
        }
      }
    }
    atVenue.set(venueId, order);
  }
  if (sent) reads.changed();
  const lateFor = (options.ended ?? []).filter((order) => order.venue_order_id !== undefined);
  if ((options.read || sent) && (atVenue.size > 0 || lateFor.length > 0) && (sent || !busy())) {
    // The orders first, then the executions: an order over by then has no fill the list lacks (one listed later still is booked, as a late fill).
    const orders = await reads.todayOrders();
    const executions = await reads.todayExecutions();
    const listed = new Map(orders.map((order) => [order.order_id, order]));
    const executionsOf = new Map<string, Execution[]>();
    for (const execution of executions) executionsOf.set(execution.order_id, [...(executionsOf.get(execution.order_id) ?? []), execution]);
    for (const [venueId, order] of atVenue) {
      const report = reportOf(order);
      // An order the day's list lacks (a good-till-cancelled order from an earlier day) is read on its own.
      const status = listed.get(venueId) ?? (await gateway.orderDetail(venueId));
      report.executions.push(...newExecutions(order, executionsOf.get(venueId)));
      if (options.bookVenueFees && report.executions.length > 0) {
        const detail = status as Partial<OrderDetail>;
        const charged = detail.charge_detail ?? (await gateway.orderDetail(venueId)).charge_detail;
        const booked = new Dec(order.filled_commission ?? "0");
        for (const execution of report.executions) execution.commission = "0";
        report.executions[report.executions.length - 1]!.commission = Dec.max(new Dec(charged.total_amount).minus(booked), 0).toFixed();
      }
      const ended = ENDED[status.status];
      if (ended) report.ended = { status: ended, message: status.msg || status.status, at: Date.parse(status.updated_at ?? status.submitted_at) };
    }
    for (const order of lateFor) {
      const late = newExecutions(order, executionsOf.get(order.venue_order_id!));
      if (late.length > 0) reportOf(order).executions.push(...late);
    }
  }
  return {
    reports: [...reports.values()].filter((report) => report.routed || report.replaced || report.executions.length > 0 || report.ended),
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    ...(deferred ? { deferred } : {}),
    ...(cancels.length > 0 ? { cancels } : {}),
  };
}

/** An order's executions the engine has not booked, oldest first. */
function newExecutions(order: EngineOrder, executions: readonly Execution[] | undefined): VenueReport["executions"] {
  if (!executions) return [];
  const applied = new Set(order.venue_trades ?? []);
  return executions
    .filter((execution) => !applied.has(execution.trade_id))
    .map((execution) => ({
      trade_id: execution.trade_id,
      quantity: Number(execution.quantity),
      price: Number(execution.price),
      at: Date.parse(execution.trade_done_at),
    }))
    .sort((a, b) => a.at - b.at);
}

/**
 * Asks the venue to cancel; null when it took the cancel, or refused it because the order is over
 * already (an answer). A busy, throttled or unreachable venue, or its own failure, is the error's
 * text: the cancel is asked again later (the worker backs off and reports it, docs/security.md "Kill switch").
 */
async function cancelAt(gateway: OrderGateway, venueOrderId: string): Promise<string | null> {
  try {
    await gateway.cancelOrder(venueOrderId);
    return null;
  } catch (error) {
    if (refused(error)) return null;
    return error instanceof DomainError ? `${error.code}: ${error.message}` : String(error);
  }
}

/** Hands the venue's reports to the engine: routing, then each new execution, then the end. */
export function applyReports(engine: TradingEngine, reports: readonly VenueReport[]): void {
  for (const report of reports) {
    if (report.routed) engine.routed(report.order_id, report.routed, report.routed_at);
    if (report.replaced) engine.venueReplaced(report.order_id, report.replaced.refused ?? null, report.replaced.at);
    for (const execution of report.executions) {
      const charged = execution.commission !== undefined ? { commission: execution.commission } : undefined;
      engine.venueFill(report.order_id, execution.trade_id, execution.quantity, execution.price, execution.at, charged);
    }
    if (report.ended) engine.venueEnded(report.order_id, report.ended, report.ended.at);
  }
}
