import { z } from "zod";
import { MarketInput, type Market } from "../market/market";
import type { IsoDate } from "../market/zoned-time";
import {
  OrderSideInput,
  OrderStatus,
  OrderType,
  OutsideRthInput,
  TimeInForceInput,
  type OrderSide,
  type OrderTag,
  type OutsideRth,
  type TimeInForce,
  type TriggerStatus,
} from "./order-types";
import { listInput } from "./quote-enums";
import type { DecimalString, IsoInstant } from "./quote-types";

/**
 * Order entry and account queries, mirroring the parts of LongPort's `TradeContext` the service
 * uses. Requests and results are plain JSON with LongPort's snake_case names: quantities, prices
 * and money are decimal strings, instants ISO 8601 UTC, enumerations wire strings.
 */

/** Submit-order request. */
export interface SubmitOrderOptions {
  symbol: string;
  order_type: OrderType;
  side: OrderSide;
  submitted_quantity: DecimalString;
  time_in_force: TimeInForce;
  submitted_price?: DecimalString;
  trigger_price?: DecimalString;
  limit_offset?: DecimalString;
  trailing_amount?: DecimalString;
  trailing_percent?: DecimalString;
  expire_date?: IsoDate;
  outside_rth?: OutsideRth;
  remark?: string;
}

export interface SubmitOrderResponse {
  order_id: string;
}

/** Replace (amend) request; `quantity` is the new total quantity. */
export interface ReplaceOrderOptions {
  order_id: string;
  quantity: DecimalString;
  price?: DecimalString;
  trigger_price?: DecimalString;
  limit_offset?: DecimalString;
  trailing_amount?: DecimalString;
  trailing_percent?: DecimalString;
  remark?: string;
}

/** One fill. */
export interface Execution {
  order_id: string;
  trade_id: string;
  symbol: string;
  trade_done_at: IsoInstant;
  quantity: DecimalString;
  price: DecimalString;
}

/** An order as listed by today's and history queries. */
export interface Order {
  order_id: string;
  status: OrderStatus;
  stock_name: string;
  quantity: DecimalString;
  executed_quantity: DecimalString;
  price: DecimalString | null;
  executed_price: DecimalString | null;
  submitted_at: IsoInstant;
  side: OrderSide;
  symbol: string;
  order_type: OrderType;
  last_done: DecimalString | null;
  trigger_price: DecimalString | null;
  /** Rejection message or remark. */
  msg: string;
  tag: OrderTag;
  time_in_force: TimeInForce;
  expire_date: IsoDate | null;
  updated_at: IsoInstant | null;
  trigger_at: IsoInstant | null;
  trailing_amount: DecimalString | null;
  trailing_percent: DecimalString | null;
  limit_offset: DecimalString | null;
  trigger_status: TriggerStatus | null;
  currency: string;
  outside_rth: OutsideRth | null;
  remark: string;
}

/** One step of an order's history. */
export interface OrderHistoryDetail {
  /** Executed price for fills; submitted price for expired, cancelled or rejected steps. */
  price: DecimalString;
  /** Executed quantity for fills; remaining quantity otherwise. */
  quantity: DecimalString;
  status: OrderStatus;
  msg: string;
  time: IsoInstant;
}

/** One fee of an order. */
export interface OrderChargeFee {
  code: string;
  name: string;
  amount: DecimalString;
  currency: string;
}

/** A group of fees: the broker's own (`BROKER_FEES`) or pass-through (`THIRD_FEES`). */
export interface OrderChargeItem {
  code: "BROKER_FEES" | "THIRD_FEES";
  name: string;
  fees: OrderChargeFee[];
}

export interface OrderChargeDetail {
  total_amount: DecimalString;
  currency: string;
  items: OrderChargeItem[];
}

export type CommissionFreeStatus = "None" | "Calculated" | "Pending" | "Ready";
export type DeductionStatus = "NONE" | "NO_DATA" | "PENDING" | "DONE";

/** An order with its history and charges. */
export interface OrderDetail extends Order {
  free_status: CommissionFreeStatus;
  free_amount: DecimalString | null;
  free_currency: string | null;
  deductions_status: DeductionStatus;
  deductions_amount: DecimalString | null;
  deductions_currency: string | null;
  platform_deducted_status: DeductionStatus;
  platform_deducted_amount: DecimalString | null;
  platform_deducted_currency: string | null;
  history: OrderHistoryDetail[];
  charge_detail: OrderChargeDetail;
}

export interface EstimateMaxPurchaseQuantityOptions {
  symbol: string;
  order_type: OrderType;
  side: OrderSide;
  price?: DecimalString;
  currency?: string;
  /** The order being amended, when estimating for a replace. */
  order_id?: string;
  fractional_shares?: boolean;
}

export interface EstimateMaxPurchaseQuantityResponse {
  cash_max_qty: DecimalString;
  margin_max_qty: DecimalString;
}

export interface CashInfo {
  withdraw_cash: DecimalString;
  available_cash: DecimalString;
  frozen_cash: DecimalString;
  settling_cash: DecimalString;
  currency: string;
}

export interface FrozenTransactionFee {
  currency: string;
  frozen_transaction_fee: DecimalString;
}

/** Account balance in one currency. */
export interface AccountBalance {
  total_cash: DecimalString;
  max_finance_amount: DecimalString;
  remaining_finance_amount: DecimalString;
  risk_level: number;
  margin_call: DecimalString;
  currency: string;
  cash_infos: CashInfo[];
  net_assets: DecimalString;
  init_margin: DecimalString;
  maintenance_margin: DecimalString;
  buy_power: DecimalString;
  frozen_transaction_fees: FrozenTransactionFee[];
}

/** One holding (LongPort `StockPosition`). */
export interface StockPosition {
  symbol: string;
  symbol_name: string;
  quantity: DecimalString;
  available_quantity: DecimalString;
  currency: string;
  /** Average cost per share (LongPort: average or diluted, as the client chose; the paper broker: buy fees included). */
  cost_price: DecimalString;
  /** LongPort's market name: `US`, `HK`, `CN`, `SG`; others (`Crypto`, `Unknown`) pass through by name. */
  market: string;
  /** Holding before the market opened, when the broker says. */
  init_quantity: DecimalString | null;
}

/** The holdings of one account channel. */
export interface StockPositionChannel {
  account_channel: string;
  positions: StockPosition[];
}

/** LongPort's `stockPositions()` answer: holdings by account channel. */
export interface StockPositionsResponse {
  channels: StockPositionChannel[];
}

export interface GetTodayOrdersOptions {
  symbol?: string;
  status?: OrderStatus[];
  side?: OrderSide;
  market?: Market;
  order_id?: string;
}

export interface GetHistoryOrdersOptions {
  symbol?: string;
  status?: OrderStatus[];
  side?: OrderSide;
  market?: Market;
  start_at?: IsoInstant;
  end_at?: IsoInstant;
}

export interface GetTodayExecutionsOptions {
  symbol?: string;
  order_id?: string;
}

export interface GetHistoryExecutionsOptions {
  symbol?: string;
  start_at?: IsoInstant;
  end_at?: IsoInstant;
}

/** Order entry and account queries (LongPort `TradeContext`); the paper broker and the LongPort adapter implement it. */
export interface OrderGateway {
  submitOrder(options: SubmitOrderOptions): Promise<SubmitOrderResponse>;
  replaceOrder(options: ReplaceOrderOptions): Promise<void>;
  cancelOrder(orderId: string): Promise<void>;
  todayExecutions(options?: GetTodayExecutionsOptions): Promise<Execution[]>;
  historyExecutions(options?: GetHistoryExecutionsOptions): Promise<Execution[]>;
  orderDetail(orderId: string): Promise<OrderDetail>;
  estimateMaxPurchaseQuantity(options: EstimateMaxPurchaseQuantityOptions): Promise<EstimateMaxPurchaseQuantityResponse>;
  accountBalance(currency?: string): Promise<AccountBalance[]>;
  /** Holdings across the account's channels; optionally only some symbols. */
  stockPositions(symbols?: string[]): Promise<StockPositionsResponse>;
  todayOrders(options?: GetTodayOrdersOptions): Promise<Order[]>;
  historyOrders(options?: GetHistoryOrdersOptions): Promise<Order[]>;
}

// ---- request schemas (shared by the HTTP layer and gateways) ----

/** A non-negative decimal given as a string (`"388.5"`) or a JSON number; yields the string. */
export const DecimalInput = z
  .union([z.string().trim().regex(/^\d+(\.\d+)?$/, "must be a decimal number such as 388.5"), z.number().finite().nonnegative()])
  .transform((value) => (typeof value === "number" ? String(value) : value));

/** A decimal greater than zero. */
export const PositiveDecimalInput = DecimalInput.refine((value) => Number(value) > 0, "must be greater than 0");

const IsoDateInput = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "must be a date in YYYY-MM-DD form");
const InstantInput = z.iso.datetime({ offset: true }).or(IsoDateInput);

/** Body of a submit-order request. */
export const SubmitOrderRequest = z.object({
  symbol: z.string().min(1),
  order_type: OrderType,
  side: OrderSideInput,
  submitted_quantity: PositiveDecimalInput,
  time_in_force: TimeInForceInput,
  submitted_price: PositiveDecimalInput.optional(),
  trigger_price: PositiveDecimalInput.optional(),
  limit_offset: DecimalInput.optional(),
  trailing_amount: PositiveDecimalInput.optional(),
  trailing_percent: PositiveDecimalInput.optional(),
  expire_date: IsoDateInput.optional(),
  outside_rth: OutsideRthInput.optional(),
  remark: z.string().max(255).optional(),
});

/** Body of a replace-order request. */
export const ReplaceOrderRequest = z.object({
  order_id: z.string().min(1),
  quantity: PositiveDecimalInput,
  price: PositiveDecimalInput.optional(),
  trigger_price: PositiveDecimalInput.optional(),
  limit_offset: DecimalInput.optional(),
  trailing_amount: PositiveDecimalInput.optional(),
  trailing_percent: PositiveDecimalInput.optional(),
  remark: z.string().max(255).optional(),
});

/** Body of an estimate-max-purchase request. */
export const EstimateMaxPurchaseRequest = z.object({
  symbol: z.string().min(1),
  order_type: OrderType,
  side: OrderSideInput,
  price: PositiveDecimalInput.optional(),
  currency: z.string().min(3).max(3).optional(),
  order_id: z.string().min(1).optional(),
  fractional_shares: z.boolean().optional(),
});

/** Body of a today-orders request. */
export const TodayOrdersRequest = z.object({
  symbol: z.string().min(1).optional(),
  status: listInput(OrderStatus).optional(),
  side: OrderSideInput.optional(),
  market: MarketInput.optional(),
  order_id: z.string().min(1).optional(),
});

/** Body of a history-orders request. */
export const HistoryOrdersRequest = z.object({
  symbol: z.string().min(1).optional(),
  status: listInput(OrderStatus).optional(),
  side: OrderSideInput.optional(),
  market: MarketInput.optional(),
  start_at: InstantInput.optional(),
  end_at: InstantInput.optional(),
});

/** Body of a today-executions request. */
export const TodayExecutionsRequest = z.object({
  symbol: z.string().min(1).optional(),
  order_id: z.string().min(1).optional(),
});

/** Body of a history-executions request. */
export const HistoryExecutionsRequest = z.object({
  symbol: z.string().min(1).optional(),
  start_at: InstantInput.optional(),
  end_at: InstantInput.optional(),
});
