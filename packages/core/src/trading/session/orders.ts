import { z } from "zod";
import { badRequest, conflict, notFound, parseOrThrow, ValidationError } from "../../errors";
import { DecimalInput } from "../../money/decimal";
import { normalizeSymbol } from "../../market/market";
import type { Actor } from "../../users";
import { notifyWorker } from "../worker/commands";
import type { ViewDeps } from "./deps";
import { LiveRuns, liveFeedsOf } from "./live-run";
import { engineOf, orderOf, updateRun } from "../run/update";
import { TradingOrderResponse } from "../run/runs";
import { SINGLE_CHANNEL_ID } from "./config";
import { sessionEngine } from "./engine";
import { priceText } from "./figures";
import { order } from "./reads";
import { isWorkerDriven, owned } from "./sessions";

/**
 * A session's orders as writes (docs/trading-sessions.md): the pre-trade check of an order, a
 * manual order into a running simulation or live session, and the cancellation and replacement
 * of a pending one, each applied to the session's run like every other input.
 */

/** Body of POST /trading/orders/validate: an order for a session (and channel), checked without placing it. */
export const OrderCheckRequest = z
  .object({
    session_id: z.string().min(1).max(128),
    channel_id: z.string().min(1).max(64).optional(),
    symbol: z.string().min(1).max(32),
    side: z.enum(["buy", "sell"]),
    order_type: z.enum(["market", "limit", "stop"]).default("market"),
    quantity: DecimalInput,
    price: DecimalInput.nullish(),
  })
  .meta({ id: "TradingOrderValidateRequest" });

export const OrderCheckResult = z
  .object({
    valid: z.boolean(),
    session_id: z.string(),
    channel_id: z.string(),
    symbol: z.string(),
    reference_price: z.string().nullable(),
    denials: z.array(z.object({ reason: z.string(), message: z.string(), values: z.record(z.string(), z.union([z.number(), z.string()])) })),
  })
  .meta({ id: "TradingOrderValidateResponse" });

/** Runs the pre-trade checks of a session's channel on an order without placing it; every denial is listed. */
export async function checkOrder(deps: ViewDeps, actor: Actor, input: unknown) {
  const body = parseOrThrow(OrderCheckRequest, input, ["body"]);
  const session = await owned(deps, actor, body.session_id);
  const symbol = normalizeSymbol(body.symbol);
  const { engine } = await sessionEngine(deps, session);
  const channelId = body.channel_id ?? engine.channelIds()[0] ?? SINGLE_CHANNEL_ID;
  if (!engine.channelIds().includes(channelId)) {
    throw notFound(
      "CHANNEL_NOT_FOUND",
      `Session ${session.id} has no channel '${channelId}'${engine.channelIds().length === 0 ? " (it has no channels)" : ""}`,
    );
  }
  const given = body.price ? Number(body.price) : null;
  const price = given ?? (await deps.lastPrice(symbol));
  const denials = engine.check({
    channel_id: channelId,
    symbol,
    side: body.side,
    quantity: Number(body.quantity),
    order_type: body.order_type,
    price,
  });
  return {
    valid: denials.length === 0,
    session_id: session.id,
    channel_id: channelId,
    symbol,
    reference_price: price === null ? null : priceText(price),
    denials,
  };
}

/**
 * A manual order into a running simulation or live session (`POST /trading/orders`): the run is
 * restored from its snapshot, the order goes through the channel's pre-trade checks and is saved
 * with its events, conditionally on the run's version, so it serialises with the session worker's
 * bar feeds. It fills on the session's next bar that opens after it (no look-ahead). A denied order
 * is answered as data: status `denied` with every reason.
 */
export async function placeOrder(deps: ViewDeps, actor: Actor, input: unknown): Promise<TradingOrderResponse> {
  const body = parseOrThrow(OrderCheckRequest, input, ["body"]);
  const session = await owned(deps, actor, body.session_id);
  if (!isWorkerDriven(session)) {
    throw conflict("SESSION_NOT_TRADING", `Session ${session.id} is a ${session.trading_mode} session: its orders come from its backtest`, {
      trading_mode: session.trading_mode,
    });
  }
  // The switch first: a halted session is paused too, and the answer names why.
  await deps.killSwitch?.check(session.user_id);
  if (session.status !== "running") {
    throw conflict("SESSION_NOT_RUNNING", `Session ${session.id} is ${session.status}: start or resume it before placing orders`, {
      current_status: session.status,
    });
  }
  const symbol = normalizeSymbol(body.symbol);
  if (!liveFeedsOf(session).some((feed) => feed.symbol === symbol)) {
    throw badRequest(
      "SYMBOL_NOT_IN_SESSION",
      `Session ${session.id} has no bars of ${symbol}: orders fill on the session's own feeds (${
        liveFeedsOf(session)
          .map((f) => f.symbol)
          .join(", ") || "none"
      })`,
    );
  }
  const runId = session.run_id === session.id ? session.id : (await LiveRuns.ensure(deps, session)).run_id;
  const placed = await updateRun(deps, runId, (run) => {
    const engine = engineOf(run);
    const channelId = body.channel_id ?? engine.channelIds()[0] ?? SINGLE_CHANNEL_ID;
    if (!engine.channelIds().includes(channelId)) throw notFound("CHANNEL_NOT_FOUND", `Session ${session.id} has no channel '${channelId}'`);
    const { order } = engine.submit(
      {
        channel_id: channelId,
        symbol,
        side: body.side,
        quantity: Number(body.quantity),
        order_type: body.order_type,
        price: body.price ? Number(body.price) : null,
        reason: "manual order",
      },
      deps.now(),
    );
    return { engine, value: order };
  });
  await notifyWorker(deps, session.id, "input", "order", placed!.events);
  const denied = placed!.events.find((event) => event.type === "order_denied");
  const id = placed!.value ? placed!.value.order_id : `${runId}-d${denied!.sequence}`;
  return orderOf(placed!, id) ?? (await deps.runs.order(id))!;
}

/** A pending order of a simulation or live session the caller owns, and that session (409 `SESSION_NOT_TRADING` for a backtest's). */
async function tradableOrder(deps: ViewDeps, actor: Actor, orderId: string) {
  const found = await order(deps, actor, orderId);
  const session = await owned(deps, actor, found.session_id);
  if (!isWorkerDriven(session)) {
    throw conflict("SESSION_NOT_TRADING", `Order ${orderId} belongs to a ${session.trading_mode} session: its orders are its backtest's`, {
      trading_mode: session.trading_mode,
    });
  }
  return { ...found, user_id: session.user_id };
}

/** 409 `code` naming the status of an order that is no longer pending. */
async function notPending(deps: ViewDeps, orderId: string, code: string, action: string) {
  const current = (await deps.runs.order(orderId))!;
  return conflict(code, `Order ${orderId} is ${current.status}: only a pending order can be ${action}`, { current_status: current.status });
}

/**
 * Cancels a pending order of a simulation or live session (running or paused): withdrawn on the
 * session's run like every other input. 409 `ORDER_NOT_CANCELLABLE` names the order's status
 * when it is no longer pending.
 */
export async function cancelOrder(deps: ViewDeps, actor: Actor, orderId: string): Promise<TradingOrderResponse> {
  const found = await tradableOrder(deps, actor, orderId);
  const done = await updateRun(deps, found.run_id, async (run) => {
    const engine = engineOf(run);
    if (!engine.cancel(orderId, deps.now(), "cancelled on request")) throw await notPending(deps, orderId, "ORDER_NOT_CANCELLABLE", "cancelled");
    return { engine, value: null };
  });
  await notifyWorker(deps, found.session_id, "input", "cancel", done!.events);
  return (await deps.runs.order(orderId))!;
}

/** PUT /trading/orders/{order_id}: a new quantity, a new price (limit and stop orders), or both. */
export const OrderReplaceRequest = z
  .object({ quantity: DecimalInput.optional(), price: DecimalInput.optional() })
  .refine((body) => body.quantity !== undefined || body.price !== undefined, { message: "give quantity, price or both", path: ["quantity"] })
  .meta({ id: "TradingOrderReplaceRequest" });

export const OrderReplaceResult = z
  .object({
    replaced: z.boolean(),
    order: TradingOrderResponse,
    denials: z.array(z.object({ reason: z.string(), message: z.string(), values: z.record(z.string(), z.union([z.number(), z.string()])) })),
  })
  .meta({ id: "TradingOrderReplaceResult" });

/**
 * Replaces a pending order's quantity or price (running or paused simulation and live sessions):
 * the changed order passes the pre-trade checks as if placed now (the daily order count aside),
 * keeps its place in the queue and fills on the next bar that reaches it. A denied replacement
 * leaves the order as it was (`replaced: false` with every denial). 409 `ORDER_NOT_REPLACEABLE`
 * names the status of an order no longer pending; 422 for a price on a market order.
 */
export async function replaceOrder(deps: ViewDeps, actor: Actor, orderId: string, input: unknown): Promise<z.infer<typeof OrderReplaceResult>> {
  const body = parseOrThrow(OrderReplaceRequest, input, ["body"]);
  const found = await tradableOrder(deps, actor, orderId);
  await deps.killSwitch?.check(found.user_id);
  if (body.price !== undefined && found.order_type === "market") {
    throw new ValidationError([{ loc: ["body", "price"], msg: `order ${orderId} is a market order: only its quantity can change`, type: "value_error" }]);
  }
  const change = {
    quantity: body.quantity === undefined ? undefined : Number(body.quantity),
    price: body.price === undefined ? undefined : Number(body.price),
  };
  const done = await updateRun(deps, found.run_id, async (run) => {
    const engine = engineOf(run);
    const result = engine.replace(orderId, change, deps.now());
    if (!result) throw await notPending(deps, orderId, "ORDER_NOT_REPLACEABLE", "replaced");
    return { engine, value: result.denials };
  });
  await notifyWorker(deps, found.session_id, "input", "replace", done!.events);
  const denials = done!.value;
  return { replaced: denials.length === 0, order: (await deps.runs.order(orderId))!, denials };
}
