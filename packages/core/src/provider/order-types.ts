import { z } from "zod";
import { enumWithAliases } from "./enum-input";
import type { Market } from "../market/market";

/**
 * Trading enumerations with their LongPort wire strings, and the order-type rules (which market
 * accepts which type, which fields each type needs) as data that validation and the
 * `supported-order-types` / `order-type-fields` endpoints read alike.
 */

/**
 * Order types LongPort documents: `LO` limit, `ELO` enhanced limit, `MO` market, `AO` at-auction,
 * `ALO` at-auction limit, `ODD` odd lot, `LIT` limit if touched, `MIT` market if touched,
 * `TSLPAMT`/`TSLPPCT` trailing limit if touched by amount/percent, `SLO` special limit.
 * (The SDK's `TSMAMT`/`TSMPCT` are undocumented and not accepted.)
 */
export const OrderType = z.enum(["LO", "ELO", "MO", "AO", "ALO", "ODD", "LIT", "MIT", "TSLPAMT", "TSLPPCT", "SLO"]);
export type OrderType = z.infer<typeof OrderType>;

/** Order side. */
export const OrderSide = z.enum(["Buy", "Sell"]);
export type OrderSide = z.infer<typeof OrderSide>;
/** Side as accepted in requests; also `buy`, `sell`, `BUY`, `SELL`. */
export const OrderSideInput = enumWithAliases(OrderSide.options, { buy: "Buy", sell: "Sell", BUY: "Buy", SELL: "Sell" });

/** Time in force, wire strings: `Day`, `GTC` (good till cancelled), `GTD` (good till `expire_date`). */
export const TimeInForce = z.enum(["Day", "GTC", "GTD"]);
export type TimeInForce = z.infer<typeof TimeInForce>;
/** Time in force as accepted in requests; also the SDK names `GoodTilCanceled`, `GoodTilDate`. */
export const TimeInForceInput = enumWithAliases(TimeInForce.options, { GoodTilCanceled: "GTC", GoodTilDate: "GTD" });
/** LongPort Node `TimeInForceType` member names. */
export const LongportTimeInForceName = { Day: "Day", GTC: "GoodTilCanceled", GTD: "GoodTilDate" } as const satisfies Record<TimeInForce, string>;

/** Outside regular trading hours (US only), wire strings: `RTH_ONLY`, `ANY_TIME` (pre and post), `OVERNIGHT`. */
export const OutsideRth = z.enum(["RTH_ONLY", "ANY_TIME", "OVERNIGHT"]);
export type OutsideRth = z.infer<typeof OutsideRth>;
/** Outside RTH as accepted in requests; also the SDK names `RTHOnly`, `AnyTime`, `Overnight`. */
export const OutsideRthInput = enumWithAliases(OutsideRth.options, { RTHOnly: "RTH_ONLY", AnyTime: "ANY_TIME", Overnight: "OVERNIGHT" });
/** LongPort Node `OutsideRTH` member names. */
export const LongportOutsideRthName = { RTH_ONLY: "RTHOnly", ANY_TIME: "AnyTime", OVERNIGHT: "Overnight" } as const satisfies Record<OutsideRth, string>;

/** Order status, LongPort wire strings. */
export const OrderStatus = z.enum([
  "NotReported",
  "ReplacedNotReported",
  "ProtectedNotReported",
  "VarietiesNotReported",
  "WaitToNew",
  "NewStatus",
  "WaitToReplace",
  "PendingReplaceStatus",
  "ReplacedStatus",
  "WaitToCancel",
  "PendingCancelStatus",
  "PartialFilledStatus",
  "FilledStatus",
  "RejectedStatus",
  "CanceledStatus",
  "ExpiredStatus",
  "PartialWithdrawal",
]);
export type OrderStatus = z.infer<typeof OrderStatus>;

/** LongPort Node `OrderStatus` member names by wire string. */
export const LongportOrderStatusName = {
  NotReported: "NotReported",
  ReplacedNotReported: "ReplacedNotReported",
  ProtectedNotReported: "ProtectedNotReported",
  VarietiesNotReported: "VarietiesNotReported",
  WaitToNew: "WaitToNew",
  NewStatus: "New",
  WaitToReplace: "WaitToReplace",
  PendingReplaceStatus: "PendingReplace",
  ReplacedStatus: "Replaced",
  WaitToCancel: "WaitToCancel",
  PendingCancelStatus: "PendingCancel",
  PartialFilledStatus: "PartialFilled",
  FilledStatus: "Filled",
  RejectedStatus: "Rejected",
  CanceledStatus: "Canceled",
  ExpiredStatus: "Expired",
  PartialWithdrawal: "PartialWithdrawal",
} as const satisfies Record<OrderStatus, string>;

const FINAL_STATUSES = new Set<OrderStatus>(["FilledStatus", "RejectedStatus", "CanceledStatus", "ExpiredStatus", "PartialWithdrawal"]);

/** Whether an order in this status can no longer change (filled, rejected, cancelled, expired, withdrawn). */
export function isFinalOrderStatus(status: OrderStatus): boolean {
  return FINAL_STATUSES.has(status);
}

/** Order tag, wire strings (`GTC` marks a long-term order). */
export const OrderTag = z.enum(["Normal", "GTC", "Grey", "MarginCall", "Offline", "Creditor", "Debtor", "NonExercise", "AllocatedSub"]);
export type OrderTag = z.infer<typeof OrderTag>;

/** Trigger status of conditional orders, wire strings. */
export const TriggerStatus = z.enum(["NOT_USED", "DEACTIVE", "ACTIVE", "RELEASED"]);
export type TriggerStatus = z.infer<typeof TriggerStatus>;

/** Fields of a submit-order request. */
export type SubmitOrderField =
  | "symbol"
  | "order_type"
  | "side"
  | "submitted_quantity"
  | "time_in_force"
  | "submitted_price"
  | "trigger_price"
  | "limit_offset"
  | "trailing_amount"
  | "trailing_percent"
  | "expire_date"
  | "outside_rth"
  | "remark";

/** Fields every order needs. */
export const ALWAYS_REQUIRED_FIELDS: readonly SubmitOrderField[] = ["symbol", "order_type", "side", "submitted_quantity", "time_in_force"];

/** What one order type is, where it trades and what it needs. */
export interface OrderTypeSpec {
  order_type: OrderType;
  name: string;
  description: string;
  markets: Market[];
  /** Fields required on top of `ALWAYS_REQUIRED_FIELDS` (plus `expire_date` whenever `time_in_force` is `GTD`). */
  required_fields: SubmitOrderField[];
  /** Other fields the type accepts. */
  optional_fields: SubmitOrderField[];
  /** Fields a replace-order request may change besides `quantity`. */
  replaceable_fields: ("price" | "trigger_price" | "limit_offset" | "trailing_amount" | "trailing_percent" | "remark")[];
  /** Whether the order can be replaced (amended) after submission. */
  replaceable: boolean;
}

const COMMON_OPTIONAL: SubmitOrderField[] = ["expire_date", "outside_rth", "remark"];

/** The order-type table: LongPort's documented types, markets and required fields. */
export const OrderTypeSpecs: Readonly<Record<OrderType, OrderTypeSpec>> = {
  LO: {
    order_type: "LO",
    name: "Limit Order",
    description: "Trades at the submitted price or better.",
    markets: ["HK", "US"],
    required_fields: ["submitted_price"],
    optional_fields: COMMON_OPTIONAL,
    replaceable_fields: ["price", "remark"],
    replaceable: true,
  },
  ELO: {
    order_type: "ELO",
    name: "Enhanced Limit Order",
    description: "HK limit order that may match up to 10 price levels away from the best price in one go.",
    markets: ["HK"],
    required_fields: ["submitted_price"],
    optional_fields: COMMON_OPTIONAL,
    replaceable_fields: ["price", "remark"],
    replaceable: true,
  },
  MO: {
    order_type: "MO",
    name: "Market Order",
    description: "Trades at the best available prices.",
    markets: ["HK", "US"],
    required_fields: [],
    optional_fields: COMMON_OPTIONAL,
    replaceable_fields: ["remark"],
    replaceable: true,
  },
  AO: {
    order_type: "AO",
    name: "At-auction Order",
    description: "HK market order for the opening or closing auction, matched at the final auction price.",
    markets: ["HK"],
    required_fields: [],
    optional_fields: COMMON_OPTIONAL,
    replaceable_fields: ["remark"],
    replaceable: true,
  },
  ALO: {
    order_type: "ALO",
    name: "At-auction Limit Order",
    description: "HK limit order for the auctions; unfilled remainder carries into continuous trading as a limit order.",
    markets: ["HK"],
    required_fields: ["submitted_price"],
    optional_fields: COMMON_OPTIONAL,
    replaceable_fields: ["price", "remark"],
    replaceable: true,
  },
  ODD: {
    order_type: "ODD",
    name: "Odd Lots",
    description: "HK order for a quantity that is not a whole number of board lots.",
    markets: ["HK"],
    required_fields: ["submitted_price"],
    optional_fields: COMMON_OPTIONAL,
    replaceable_fields: ["price", "remark"],
    replaceable: true,
  },
  LIT: {
    order_type: "LIT",
    name: "Limit If Touched",
    description: "Becomes a limit order at the submitted price once the market touches the trigger price.",
    markets: ["HK", "US"],
    required_fields: ["submitted_price", "trigger_price"],
    optional_fields: COMMON_OPTIONAL,
    replaceable_fields: ["price", "trigger_price", "remark"],
    replaceable: true,
  },
  MIT: {
    order_type: "MIT",
    name: "Market If Touched",
    description: "Becomes a market order once the market touches the trigger price.",
    markets: ["HK", "US"],
    required_fields: ["trigger_price"],
    optional_fields: COMMON_OPTIONAL,
    replaceable_fields: ["trigger_price", "remark"],
    replaceable: true,
  },
  TSLPAMT: {
    order_type: "TSLPAMT",
    name: "Trailing Limit If Touched (Trailing Amount)",
    description: "Trigger trails the market by a fixed amount; when touched, a limit order is placed `limit_offset` away.",
    markets: ["HK", "US"],
    required_fields: ["trailing_amount", "limit_offset"],
    optional_fields: COMMON_OPTIONAL,
    replaceable_fields: ["trailing_amount", "limit_offset", "remark"],
    replaceable: true,
  },
  TSLPPCT: {
    order_type: "TSLPPCT",
    name: "Trailing Limit If Touched (Trailing Percent)",
    description: "Trigger trails the market by a percentage; when touched, a limit order is placed `limit_offset` away.",
    markets: ["HK", "US"],
    required_fields: ["trailing_percent", "limit_offset"],
    optional_fields: COMMON_OPTIONAL,
    replaceable_fields: ["trailing_percent", "limit_offset", "remark"],
    replaceable: true,
  },
  SLO: {
    order_type: "SLO",
    name: "Special Limit Order",
    description: "HK limit order that matches up to 10 price levels and cancels any remainder; cannot be replaced.",
    markets: ["HK"],
    required_fields: ["submitted_price"],
    optional_fields: COMMON_OPTIONAL,
    replaceable_fields: [],
    replaceable: false,
  },
};

/** Order types accepted per market; CN and SG are not traded through the service. */
export const SupportedOrderTypes: Readonly<Record<Market, OrderType[]>> = {
  US: OrderType.options.filter((t) => OrderTypeSpecs[t].markets.includes("US")),
  HK: OrderType.options.filter((t) => OrderTypeSpecs[t].markets.includes("HK")),
  CN: [],
  SG: [],
};

/** A reason an order request is refused, with a stable code. */
export interface OrderProblem {
  field: SubmitOrderField | null;
  code: string;
  message: string;
}

/** The fields of a submit request that the order-type rules look at. */
export interface OrderRuleInput {
  order_type: OrderType;
  time_in_force: TimeInForce;
  submitted_price?: string | null;
  trigger_price?: string | null;
  limit_offset?: string | null;
  trailing_amount?: string | null;
  trailing_percent?: string | null;
  expire_date?: string | null;
  outside_rth?: OutsideRth | null;
}

/**
 * Checks an order against the order-type table for a market: type supported there, required
 * fields present, `expire_date` with `GTD`, `outside_rth` only for US, and the overnight
 * session's rule (limit orders, day orders only). Returns every problem; empty means acceptable.
 */
export function checkOrderRules(market: Market, order: OrderRuleInput): OrderProblem[] {
  const problems: OrderProblem[] = [];
  const spec = OrderTypeSpecs[order.order_type];
  if (!SupportedOrderTypes[market].includes(order.order_type)) {
    problems.push({
      field: "order_type",
      code: "ORDER_TYPE_NOT_SUPPORTED",
      message: `order_type=${order.order_type} is not accepted in market ${market}; supported: ${SupportedOrderTypes[market].join(", ") || "none"}`,
    });
  }
  for (const field of spec.required_fields) {
    const value = order[field as keyof OrderRuleInput];
    if (value === undefined || value === null || value === "") {
      problems.push({ field, code: "MISSING_REQUIRED_FIELD", message: `${field} is required for order_type=${order.order_type}` });
    }
  }
  if (order.time_in_force === "GTD" && !order.expire_date) {
    problems.push({ field: "expire_date", code: "MISSING_REQUIRED_FIELD", message: "expire_date is required when time_in_force=GTD" });
  }
  if (order.outside_rth && market !== "US") {
    problems.push({ field: "outside_rth", code: "OUTSIDE_RTH_NOT_APPLICABLE", message: `outside_rth applies to US orders only, not ${market}` });
  }
  if (order.outside_rth === "OVERNIGHT" && (order.order_type !== "LO" || order.time_in_force !== "Day")) {
    problems.push({
      field: "outside_rth",
      code: "OVERNIGHT_LIMIT_DAY_ONLY",
      message: `the overnight session takes LO orders with time_in_force=Day only, not ${order.order_type}/${order.time_in_force}`,
    });
  }
  return problems;
}
