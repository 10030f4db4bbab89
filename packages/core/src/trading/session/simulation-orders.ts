import { z } from "zod";
import { evenWithIssues } from "../../errors";
import { normalizeSymbol } from "../../market/market";
import { type OrderDetail, type OrderGateway, PositiveDecimalInput, type SubmitOrderOptions } from "../../provider/order-gateway";
import type { OrderStatus as VenueStatus } from "../../provider/order-types";
import { type OrderStatus, TradingOrderResponse } from "../run/runs";

/**
 * Orders against the simulated venue without a session (`POST /trading/simulation/orders`,
 * docs/trading-sessions.md): the caller's paper account, the one behind `api-test/trade/*` and
 * the simulated assets, whichever market-data provider is selected. The order takes the session
 * orders' shape in and out; the paper broker's rules decide (sessions, lots, ticks, buying power)
 * and a refusal is its 400 with the broker's code.
 */

export const SimulationOrderCreate = z
  .object({
    symbol: z.string().min(1).max(32),
    side: z.enum(["buy", "sell"]),
    order_type: z.enum(["market", "limit", "stop"]).default("market"),
    quantity: PositiveDecimalInput,
    price: PositiveDecimalInput.optional(),
    time_in_force: z.enum(["day", "gtc"]).default("day"),
    remark: z.string().max(255).optional(),
  })
  .superRefine((order, ctx) => {
    // Raw input when another field failed (so one 422 lists every problem): the type may be missing (market).
    const type = order.order_type ?? "market";
    if (type !== "market" && order.price === undefined) {
      ctx.addIssue({ code: "custom", path: ["price"], message: `a ${type} order needs a price` });
    }
    if (type === "market" && order.price !== undefined) {
      ctx.addIssue({ code: "custom", path: ["price"], message: "a market order takes no price" });
    }
  }, evenWithIssues)
  .meta({ id: "SimulationOrderCreate" });
export type SimulationOrderCreate = z.infer<typeof SimulationOrderCreate>;

export const SimulationOrderResponse = TradingOrderResponse.omit({ session_id: true, run_id: true, channel_id: true, denials: true })
  .extend({
    session_id: z.null(),
    venue: z.literal("paper"),
    account_id: z.string(),
    provider_order_type: z.string().describe("The paper broker's (LongPort's) order type: MO, LO or MIT"),
    provider_status: z.string().describe("The paper broker's (LongPort's) order status"),
    message: z.string().describe("The broker's remark: why the order was withdrawn, rejected or expired"),
  })
  .meta({ id: "SimulationOrderResponse" });
export type SimulationOrderResponse = z.infer<typeof SimulationOrderResponse>;

/** Our order types as the paper broker's: a stop order is a market-if-touched order triggered at its price. */
const VENUE_TYPE = { market: "MO", limit: "LO", stop: "MIT" } as const;
const OUR_TYPE: Record<string, "market" | "limit" | "stop"> = { MO: "market", LO: "limit", MIT: "stop" };

/** The venue's status as an OrderStatus. `PartialWithdrawal` (part filled, the rest withdrawn) is over: cancelled, with its filled quantity. */
export function statusOf(status: VenueStatus): OrderStatus {
  switch (status) {
    case "FilledStatus":
      return "filled";
    case "PartialFilledStatus":
      return "partially_filled";
    case "CanceledStatus":
    case "PartialWithdrawal":
      return "cancelled";
    case "RejectedStatus":
      return "rejected";
    case "ExpiredStatus":
      return "expired";
    default:
      return "pending";
  }
}

/** The broker's order detail in the session orders' shape. */
export function responseOf(detail: OrderDetail, accountId: string): SimulationOrderResponse {
  const status = statusOf(detail.status);
  const filled = Number(detail.executed_quantity) > 0;
  const ended = status === "cancelled" || status === "rejected" || status === "expired";
  return {
    id: detail.order_id,
    session_id: null,
    venue: "paper",
    account_id: accountId,
    symbol: detail.symbol,
    side: detail.side === "Buy" ? "buy" : "sell",
    order_type: OUR_TYPE[detail.order_type] ?? "market",
    quantity: detail.quantity,
    price: detail.price ?? detail.trigger_price,
    status,
    submitted_at: detail.submitted_at,
    filled_at: status === "filled" ? detail.updated_at : null,
    cancelled_at: ended ? detail.updated_at : null,
    filled_price: filled ? detail.executed_price : null,
    filled_quantity: filled ? detail.executed_quantity : null,
    commission: filled ? detail.charge_detail.total_amount : null,
    trading_fee: filled ? detail.charge_detail : null,
    reason: detail.remark || null,
    provider_order_type: detail.order_type,
    provider_status: detail.status,
    message: detail.msg,
  };
}

/** Submits the order to the account's paper broker and answers it as it stands after arrival (a marketable order may have filled already). */
export async function place(gateway: OrderGateway, accountId: string, order: SimulationOrderCreate): Promise<SimulationOrderResponse> {
  const type = VENUE_TYPE[order.order_type];
  const options: SubmitOrderOptions = {
    symbol: normalizeSymbol(order.symbol),
    order_type: type,
    side: order.side === "buy" ? "Buy" : "Sell",
    submitted_quantity: order.quantity,
    time_in_force: order.time_in_force === "gtc" ? "GTC" : "Day",
    ...(type === "LO" ? { submitted_price: order.price } : {}),
    ...(type === "MIT" ? { trigger_price: order.price } : {}),
    ...(order.remark ? { remark: order.remark } : {}),
  };
  const { order_id } = await gateway.submitOrder(options);
  return responseOf(await gateway.orderDetail(order_id), accountId);
}
