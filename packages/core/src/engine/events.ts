import { z } from "zod";

/**
 * The engine's output: one append-only log per session, every entry stamped with a per-session
 * `sequence` and the clock's time (epoch ms). Orders, positions, logs, risk events, alerts and
 * performance are views over it.
 */

export const EventType = z
  .enum([
    "order_submitted",
    "order_denied",
    "order_filled",
    "order_rejected",
    "order_cancelled",
    "order_replaced",
    "order_routed",
    "order_cancel_requested",
    "position_changed",
    "trade_closed",
    "risk_event",
    "alert",
    "alert_acknowledged",
    "channel_status",
    "day_end",
    "log",
    "bias_changed",
    "signal",
    "strategy_output",
    "kill_switch",
  ])
  .meta({ id: "EngineEventType" });
export type EventType = z.infer<typeof EventType>;

export const LogLevel = z.enum(["debug", "info", "warning", "error"]).meta({ id: "SessionLogLevel" });
export type LogLevel = z.infer<typeof LogLevel>;

/** One entry of a session's event log. `data` depends on `type` (see docs/trading-engine.md). */
export interface EngineEvent {
  sequence: number;
  time: number;
  type: EventType;
  channel_id: string | null;
  data: Record<string, unknown>;
}

/** A pre-trade check's refusal: a stable reason and the numbers behind it. */
export interface Denial {
  reason: string;
  message: string;
  values: Record<string, number | string>;
}

export type OrderSide = "buy" | "sell";
export type EngineOrderType = "market" | "limit" | "stop" | "trailing_stop";

/** Why a protective order exits (docs/trading-engine.md "Protective exits"). */
export type ExitReason = "stop_loss" | "take_profit" | "trailing_stop";

/** An order inside the engine (quantities are whole shares; prices are float64 as bars are). */
export interface EngineOrder {
  order_id: string;
  channel_id: string;
  /** The strategy sleeve that owns the order: `<channel_id>/<index>`, or `<channel_id>/manual`. */
  sleeve: string;
  symbol: string;
  side: OrderSide;
  order_type: EngineOrderType;
  quantity: number;
  limit_price: number | null;
  stop_price: number | null;
  submitted_at: number;
  reason: string;
  /** Broker venue: the venue's order id once sent. */
  venue_order_id?: string;
  /** Filled in parts (a broker venue, or bars under `max_participation`): shares filled so far, their value and commission (decimal strings); the venue's trade ids already booked. */
  filled?: number;
  filled_value?: string;
  filled_commission?: string;
  venue_trades?: string[];
  /** Broker venue: a cancel was asked for; the order ends when the venue says so. */
  cancel_requested?: boolean;
  /** Bars: a stop order that has triggered (its remainder trades as a market order). */
  triggered?: boolean;
  /**
   * A protective order the engine placed for a sleeve's position (`exits.ts`): why it exits, the
   * position's entry price its level came from, and, for a trailing stop, its distance (a
   * fraction; `stop_price` is its current level). Protective orders of one position are one OCO
   * group: the first to fill cancels the others.
   */
  exit_reason?: ExitReason;
  basis?: number;
  trail_pct?: number;
  /**
   * At a broker, a protective order the engine watches on the session's bars instead of resting
   * it at the broker (which holds a position's shares for one selling order at a time): it is not
   * sent until a bar reaches its level, then it goes as a market order.
   */
  watch?: boolean;
  /**
   * At a broker, a replacement the venue has not confirmed yet (the worker sends it): the terms the
   * venue still has, which the order goes back to if the venue refuses the change.
   */
  venue_replace?: { quantity: number; limit_price: number | null; stop_price: number | null };
}

/** `data` of an `order_filled` event. Money is a decimal string. */
export interface FillData {
  order_id: string;
  symbol: string;
  side: OrderSide;
  quantity: number;
  price: string;
  commission: string;
  currency: string;
  sleeve: string;
}
