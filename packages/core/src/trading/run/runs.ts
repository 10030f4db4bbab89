import { z } from "zod";
import type { EngineEvent, EventType, LogLevel } from "../../engine/events";
import type { EngineSnapshot } from "../../engine/engine";
import type { EngineSetup } from "../../engine/setup";
import { Dec } from "../../money/decimal";
import type { DriverState } from "./driver-state";
import { iso } from "../../util/time";

/**
 * A run is one engine's life: a backtest, or a simulation or live session's trading. Its state
 * (the setup and the latest snapshot) is one record; its output is the event log, from which
 * orders, logs, positions, risk events and alerts are read. Order records are a view kept up to
 * date as events are appended.
 */

/** Views group events into these categories (one each), so a view reads one partition of the log. */
export type EventCategory = "order" | "risk" | "position" | "trade" | "status" | "day" | "log" | "mtf";

const CATEGORY: Record<EventType, EventCategory> = {
  order_submitted: "order",
  order_filled: "order",
  order_rejected: "order",
  order_cancelled: "order",
  order_replaced: "order",
  order_routed: "order",
  order_cancel_requested: "order",
  order_denied: "risk",
  risk_event: "risk",
  alert: "risk",
  alert_acknowledged: "risk",
  kill_switch: "risk",
  position_changed: "position",
  trade_closed: "trade",
  channel_status: "status",
  day_end: "day",
  log: "log",
  bias_changed: "mtf",
  signal: "mtf",
  strategy_output: "mtf",
};

export const categoryOf = (event: Pick<EngineEvent, "type">): EventCategory => CATEGORY[event.type];

/**
 * An event as stored, with its run, level and category. Its fields are written out: on the
 * Node versions here `{ ...event, more }` costs microseconds per object (V8 adds each property
 * after a spread one at a time), which thousands of events a save or a read pay.
 */
export function storedEvent(event: EngineEvent, runId: string): StoredEvent {
  return {
    sequence: event.sequence,
    time: event.time,
    type: event.type,
    channel_id: event.channel_id,
    data: event.data,
    run_id: runId,
    level: levelOf(event),
    category: categoryOf(event),
  };
}

/** The level an event is logged at. */
export function levelOf(event: EngineEvent): LogLevel {
  switch (event.type) {
    case "order_denied":
    case "order_rejected":
      return "warning";
    case "risk_event":
      return event.data.kind === "limit_breached" ? "error" : "info";
    case "alert":
      return event.data.level === "critical" ? "error" : event.data.level === "warning" ? "warning" : "info";
    case "kill_switch":
      return event.data.state === "tripped" ? "error" : "info";
    case "day_end":
    case "strategy_output":
      return "debug";
    case "log":
      return (event.data.level as LogLevel) ?? "info";
    default:
      return "info";
  }
}

/** A one-line description of an event, for the session log. */
export function messageOf(event: EngineEvent): string {
  const d = event.data as Record<string, string | number | null | undefined>;
  const channel = event.channel_id ? `[${event.channel_id}] ` : "";
  switch (event.type) {
    case "order_submitted":
      return `${channel}Order ${d.order_id} submitted: ${d.side} ${d.quantity} ${d.symbol} ${d.order_type} (${d.reason})`;
    case "order_filled":
      return `${channel}Order ${d.order_id} filled: ${d.side} ${d.quantity} ${d.symbol} at ${d.price}, commission ${d.commission} ${d.currency}`;
    case "order_denied":
      return `${channel}Order denied: ${d.side} ${d.quantity} ${d.symbol}: ${d.message}`;
    case "order_rejected":
      return `${channel}Order ${d.order_id} rejected: ${d.message}`;
    case "order_cancelled":
      return `${channel}Order ${d.order_id} cancelled: ${d.reason}`;
    case "order_routed":
      return `${channel}Order ${d.order_id} sent to the broker as ${d.venue_order_id}`;
    case "order_cancel_requested":
      return `${channel}Order ${d.order_id}: cancel asked of the broker (${d.reason})`;
    case "order_replaced":
      return `${channel}Order ${d.order_id} replaced: quantity ${d.previous_quantity} → ${d.quantity}${d.previous_price !== (d.limit_price ?? d.stop_price) ? `, price ${d.previous_price} → ${d.limit_price ?? d.stop_price}` : ""}`;
    case "position_changed":
      return `${channel}Position ${d.symbol} now ${d.quantity}`;
    case "trade_closed":
      return `${channel}Trade closed: ${d.direction} ${d.quantity} ${d.symbol} ${d.entry_price} → ${d.exit_price}, P&L ${d.pnl} ${d.currency}`;
    case "risk_event":
    case "alert":
      return `${channel}${d.message}`;
    case "alert_acknowledged":
      return `${channel}Alert ${d.alert_sequence} acknowledged by ${d.acknowledged_by}`;
    case "channel_status":
      return `${channel}Channel ${d.previous} → ${d.status}`;
    case "day_end":
      return `Trading day closed, equity ${d.equity}`;
    case "log":
      return `${channel}${d.message}`;
    case "bias_changed":
      return `${channel}Director bias of ${d.symbol} (${d.timeframe}) ${d.previous} → ${d.bias}: ${d.reason}`;
    case "signal":
      return `${channel}Signal ${d.side} ${d.symbol} (${d.timeframe}) to weight ${d.target_weight}: ${d.reason}`;
    case "strategy_output":
      return `${channel}${d.strategy} on ${d.symbol} ${d.timeframe} bar`;
    case "kill_switch":
      return `${d.scope === "stage" ? "The stage's" : "The owner's"} kill switch ${d.state} by ${d.by}${d.reason ? `: ${d.reason}` : ""}`;
  }
}

/** Values of OrderStatus (docs/trading-sessions.md). */
/** Decimal places a fill price is answered to: the finest tick of the markets here (US prices under $1). */
export const PRICE_DECIMALS = 4;

/**
 * A fill price as answered: at most `PRICE_DECIMALS` places, half up (an average of fills in parts
 * is not on a tick). A price already in that form (a tick's price: no sign, no leading or trailing
 * zero, at most four places) is answered as it is, as decimal.js would write it.
 */
export const priceAnswer = (price: unknown) => {
  const text = String(price);
  return ANSWERED_PRICE.test(text) ? text : new Dec(text).toDecimalPlaces(PRICE_DECIMALS).toString();
};
const ANSWERED_PRICE = /^(0|[1-9]\d{0,29})(\.\d{0,3}[1-9])?$/;

export const OrderStatus = z.enum(["pending", "partially_filled", "filled", "cancelled", "rejected", "denied", "expired"]).meta({ id: "OrderStatus" });
export type OrderStatus = z.infer<typeof OrderStatus>;

/** An order as the views show it (interface TradingOrderResponse plus the channel and reasons). */
export const TradingOrderResponse = z
  .object({
    id: z.string(),
    session_id: z.string(),
    run_id: z.string(),
    channel_id: z.string().nullable(),
    symbol: z.string(),
    side: z.enum(["buy", "sell"]),
    order_type: z.enum(["market", "limit", "stop", "trailing_stop"]),
    quantity: z.string(),
    price: z.string().nullable(),
    status: OrderStatus,
    submitted_at: z.string(),
    filled_at: z.string().nullable(),
    cancelled_at: z.string().nullable(),
    filled_price: z.string().nullable().describe("Price of the fill, or the average of its fills so far, to at most 4 decimal places (half up)"),
    filled_quantity: z.string().nullable(),
    commission: z.string().nullable(),
    trading_fee: z.record(z.string(), z.unknown()).nullable(),
    reason: z.string().nullable(),
    denials: z.array(z.object({ reason: z.string(), message: z.string(), values: z.record(z.string(), z.union([z.number(), z.string()])) })),
    /** A broker venue's order id, once the session worker sent it (sessions whose venue is `broker`). */
    venue_order_id: z.string().nullable().optional(),
    /** A cancel was asked of the broker; the order ends when the broker reports it. */
    cancel_requested: z.boolean().optional(),
    exit_reason: z
      .enum(["stop_loss", "take_profit", "trailing_stop"])
      .optional()
      .describe('A protective order the engine placed for a position (docs/trading-engine.md "Protective exits"): why it exits'),
  })
  .meta({ id: "TradingOrderResponse" });
export type TradingOrderResponse = z.infer<typeof TradingOrderResponse>;

/** What an event does to the order records: create one, or set fields of an existing one. */
export type OrderChange = { kind: "create"; order: TradingOrderResponse } | { kind: "set"; order_id: string; fields: Partial<TradingOrderResponse> };

/** The order record an event creates or changes, if any, without building the change (`orderChangeOf`): what a save counts and reads. */
export function orderTouched(event: EngineEvent, runId: string): { order_id: string; creates: boolean } | null {
  switch (event.type) {
    case "order_submitted":
      return { order_id: String((event.data as { order_id: unknown }).order_id), creates: true };
    case "order_denied":
      return { order_id: deniedOrderId(runId, event.sequence), creates: true };
    case "order_filled":
    case "order_routed":
    case "order_cancel_requested":
    case "order_rejected":
    case "order_cancelled":
    case "order_replaced":
      return { order_id: String((event.data as { order_id: unknown }).order_id), creates: false };
    default:
      return null;
  }
}

/** A denied order's record id: its run and the sequence of the event that denied it. */
const deniedOrderId = (runId: string, sequence: number) => `${runId}-d${sequence}`;

/**
 * A new order's record, submitted or denied: the one literal of its fields, written out rather than
 * spread from a common part (see `storedEvent`), so every record has one shape.
 */
function newOrder(
  event: EngineEvent,
  run: { run_id: string; session_id: string },
  id: string,
  orderType: TradingOrderResponse["order_type"],
  price: number | null,
  status: "pending" | "denied",
  reason: unknown,
  denials: TradingOrderResponse["denials"],
): TradingOrderResponse {
  const d = event.data as Record<string, unknown>;
  return {
    session_id: run.session_id,
    run_id: run.run_id,
    channel_id: event.channel_id,
    id,
    symbol: String(d.symbol),
    side: d.side as "buy" | "sell",
    order_type: orderType,
    quantity: String(d.quantity),
    price: price === null ? null : String(price),
    status,
    submitted_at: iso(event.time),
    filled_at: null,
    cancelled_at: null,
    filled_price: null,
    filled_quantity: null,
    commission: null,
    trading_fee: null,
    reason: (reason as string) ?? null,
    denials,
  };
}

/** The order-record change an event makes, if any (for the events `orderTouched` names, and only those). */
export function orderChangeOf(event: EngineEvent, run: { run_id: string; session_id: string }): OrderChange | null {
  const d = event.data as Record<string, unknown>;
  switch (event.type) {
    case "order_submitted": {
      const price = (d.limit_price ?? d.stop_price ?? null) as number | null;
      const order = newOrder(event, run, String(d.order_id), d.order_type as TradingOrderResponse["order_type"], price, "pending", d.reason, []);
      if (d.exit_reason) order.exit_reason = d.exit_reason as NonNullable<TradingOrderResponse["exit_reason"]>;
      return { kind: "create", order };
    }
    case "order_denied": {
      const denials = (d.denials as TradingOrderResponse["denials"]) ?? [];
      return { kind: "create", order: newOrder(event, run, deniedOrderId(run.run_id, event.sequence), "market", null, "denied", d.signal, denials) };
    }
    case "order_filled":
      // An order filled in parts (a broker venue, or bars under max_participation): the event carries the totals so far.
      if (d.filled_quantity !== undefined) {
        const done = d.remaining === 0;
        // A late fill (listed by the broker after the order ended) keeps the ended status unless it completes the order.
        const status = done ? "filled" : d.late === true ? undefined : "partially_filled";
        return {
          kind: "set",
          order_id: String(d.order_id),
          fields: {
            ...(status ? { status } : {}),
            filled_at: done ? iso(event.time) : null,
            filled_price: priceAnswer(d.average_price),
            filled_quantity: String(d.filled_quantity),
            commission: String(d.total_commission),
          },
        };
      }
      return {
        kind: "set",
        order_id: String(d.order_id),
        fields: {
          status: "filled",
          filled_at: iso(event.time),
          filled_price: priceAnswer(d.price),
          filled_quantity: String(d.quantity),
          commission: String(d.commission),
        },
      };
    case "order_routed":
      return { kind: "set", order_id: String(d.order_id), fields: { venue_order_id: String(d.venue_order_id) } };
    case "order_cancel_requested":
      return { kind: "set", order_id: String(d.order_id), fields: { cancel_requested: true } };
    case "order_rejected":
      return {
        kind: "set",
        order_id: String(d.order_id),
        fields: {
          status: "rejected",
          cancelled_at: iso(event.time),
          denials: [{ reason: String(d.reason), message: String(d.message), values: (d.values as Record<string, string>) ?? {} }],
        },
      };
    case "order_cancelled":
      return { kind: "set", order_id: String(d.order_id), fields: { status: d.expired === true ? "expired" : "cancelled", cancelled_at: iso(event.time) } };
    case "order_replaced": {
      const price = (d.limit_price ?? d.stop_price ?? null) as number | null;
      return { kind: "set", order_id: String(d.order_id), fields: { quantity: String(d.quantity), price: price === null ? null : String(price) } };
    }
    default:
      return null;
  }
}

/** A run's state. `version` rises with every save. */
export interface StoredRun {
  run_id: string;
  session_id: string;
  user_id: string;
  setup: EngineSetup;
  snapshot: EngineSnapshot | null;
  /** Where a driver that reads stored candles (backtest, replay) has got to: the close time of the last bar fed. */
  progress: RunProgress | null;
  version: number;
  updated_at: string;
  /** When (epoch seconds) the run's items may expire: a sweep's run (its backtest's `expires_at`); absent, kept. */
  expires_at?: number;
}

/** A session's run as first saved (version 1, conditionally on none): the engine's setup and state, from `progress`. */
export function firstRun(
  session: { id: string; user_id: string },
  runId: string,
  engine: { setup: EngineSetup; snapshot(): EngineSnapshot },
  progress: RunProgress,
  now: number,
): StoredRun {
  return {
    run_id: runId,
    session_id: session.id,
    user_id: session.user_id,
    setup: engine.setup,
    snapshot: engine.snapshot(),
    progress,
    version: 1,
    updated_at: new Date(now).toISOString(),
  };
}

export interface RunProgress {
  cursor_ms: number;
  /**
   * When the last bar fed closed for the engine (its market's close for an hourly or daily bar, where
   * `cursor_ms` is its open plus its period): what a backtest's progress shows. Absent: `cursor_ms`.
   */
  close_ms?: number;
  bars: number;
  bars_total: number;
  done: boolean;
  /** A run driven over stored candles step by step (a replay, a historical MTF session): range, speed, state. */
  driver?: DriverState;
}

/** An event as stored, with its log level and category. */
export interface StoredEvent extends EngineEvent {
  run_id: string;
  level: LogLevel;
  category: EventCategory;
}

export interface EventQuery {
  category?: EventCategory;
  level?: LogLevel;
  limit: number;
  cursor?: string;
  /** Newest first when false (default true: in sequence order). */
  ascending?: boolean;
}

/** How a run is saved: by its one writer (`soleWriter`), or by any of several that race on its version (the default). */
export interface SaveOptions {
  soleWriter?: boolean;
}

/** Storage port of runs. */
/** One run's save: `RunStore.save`'s arguments. */
export interface RunSave {
  run: StoredRun;
  expectedVersion: number;
  events: EngineEvent[];
}

export interface RunStore {
  get(runId: string): Promise<StoredRun | undefined>;
  /** A run's progress without its state (what progress views show): undefined when there is no such run. */
  progress(runId: string): Promise<RunProgress | null | undefined>;
  /**
   * Appends `events` (idempotent by sequence, so a retried save rewrites the same items), applies
   * their order changes, then writes the run if its stored version is still `expectedVersion`
   * (0: only if there is none), all or nothing. False when another writer got there first.
   * `soleWriter`: the run has one writer (a backtest's chunks, in turn), so a save too large for
   * one transaction may write its events first and commit them with the run after; any other
   * save larger than one transaction is refused (an error).
   */
  save(run: StoredRun, expectedVersion: number, events: EngineEvent[], options?: SaveOptions): Promise<boolean>;
  /**
   * `save` of many runs in as few requests as hold them (the session worker's step), each save
   * still all or nothing and conditional on its own run's version. Per save, in order: whether it
   * was written (false: another writer got there first), or the error that kept it from being written.
   */
  saveMany?(saves: readonly RunSave[]): Promise<PromiseSettledResult<boolean>[]>;
  events(runId: string, query: EventQuery): Promise<{ items: StoredEvent[]; cursor?: string }>;
  orders(runId: string, query: { limit: number; cursor?: string; status?: OrderStatus }): Promise<{ items: TradingOrderResponse[]; cursor?: string }>;
  order(orderId: string): Promise<TradingOrderResponse | undefined>;
  /** Removes a run's state, events and orders. */
  delete(runId: string): Promise<void>;
  /** Keeps a run written to expire (`StoredRun.expires_at`): its items' expiry removed (a sweep's best runs, docs/operations.md "Sweeps"). */
  keepForever?(runId: string): Promise<void>;
}
