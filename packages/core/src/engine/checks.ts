import type { Denial } from "./events";
import { coversEstimate, freeCash, commissionOf } from "./cash";
import { exchangeDay } from "./days";
import { Money } from "../money/money";
import { marketTickProblems, quantityProblems } from "./order-rules";
import type { Config as RiskConfig } from "../risk/risk";
import { productNumber } from "../money/exact";
import { deny, equityOf, grossExposure, openPositions, round2, round6, type ChannelRuntime, type EngineCore, type OrderRequest, type Sleeve } from "./runtime";

/** The pre-trade checks (docs/trading-engine.md "Pre-trade checks"): every rule an order breaks, as data. */

/** Every pre-trade rule `request` breaks (empty when it may go). Exits are only checked for lots and size. */
export function preTradeDenials(e: EngineCore, channel: ChannelRuntime, sleeve: Sleeve, request: OrderRequest, price: number): Denial[] {
  const out: Denial[] = [];
  const info = e.info(request.symbol);
  const held = sleeve.positions.get(request.symbol)?.quantity ?? 0;
  const signed = request.side === "buy" ? request.quantity : -request.quantity;
  const reducing = held !== 0 && Math.sign(held) !== Math.sign(signed) && Math.abs(signed) <= Math.abs(held);
  // The order-term rules every venue applies (engine/order-rules.ts); closing a whole odd holding is not held to the lot.
  const wholeExit = reducing && request.quantity === Math.abs(held);
  for (const problem of quantityProblems(request.quantity, wholeExit ? 1 : info.lot)) deny(out, problem.code, problem.message, problem.values);
  if (request.price != null && (request.order_type === "limit" || request.order_type === "stop")) {
    for (const problem of marketTickProblems(info.market, exchangeDay(e, info.market), "price", request.price))
      deny(out, problem.code, problem.message, problem.values);
  }
  if (channel.state !== "running") {
    deny(out, "CHANNEL_NOT_RUNNING", `channel ${channel.setup.channel_id} is ${channel.state}`, { channel_state: channel.state });
  }
  if (reducing) return out;
  if (channel.halt !== null) {
    deny(out, "CHANNEL_HALTED", `channel ${channel.setup.channel_id} is halted by its ${channel.halt === "drawdown" ? "drawdown" : "daily loss"} limit`, {
      halt: channel.halt,
    });
  }
  if (!(price > 0)) {
    deny(out, "NO_PRICE", `no price is known for ${request.symbol} yet`, { symbol: request.symbol });
    return out;
  }
  const quantity = Math.max(0, request.quantity);
  if (request.side === "buy" && !coversEstimate(e, channel, info, quantity, price)) {
    const free = freeCash(e, channel, info.currency);
    const cost = Money.of(price)
      .times(Money.of(quantity))
      .plus(commissionOf(e, info, "buy", request.quantity, price));
    if (cost.compare(free) > 0) {
      deny(out, "INSUFFICIENT_CASH", `order cost ${cost.toFixed(2)} ${info.currency} exceeds free cash ${free.toFixed(2)}`, {
        cost: cost.toFixed(2),
        free_cash: free.toFixed(2),
        currency: info.currency,
      });
    }
  }
  const risk: RiskConfig | null = e.setup.risk;
  const equity = equityOf(channel);
  const notionalBase = productNumber(price, quantity) * info.fx;
  if (request.side === "sell" && held <= 0 && risk !== null && !risk.allow_short) {
    deny(out, "SHORT_SELLING_NOT_ALLOWED", `selling ${request.quantity} ${request.symbol} would open a short position`, { quantity: request.quantity, held });
  }
  if (risk !== null) {
    if (risk.max_order_notional !== null && notionalBase > risk.max_order_notional) {
      deny(out, "NOTIONAL_EXCEEDS_MAX_PER_ORDER", `notional=${round2(notionalBase)} exceeds max_order_notional=${risk.max_order_notional}`, {
        notional: round2(notionalBase),
        max: risk.max_order_notional,
      });
    }
    const positionAfter = Math.abs((held + signed) * price * info.fx);
    if (equity > 0 && positionAfter / equity > risk.max_position_size) {
      deny(
        out,
        "MAX_POSITION_EXCEEDED",
        `position of ${round2(positionAfter)} would be ${round6(positionAfter / equity)} of equity; max_position_size=${risk.max_position_size}`,
        { position_value: round2(positionAfter), equity: round2(equity), fraction: round6(positionAfter / equity), max: risk.max_position_size },
      );
    }
    const exposureAfter = grossExposure(channel) + notionalBase;
    const maxExposure = Math.min(risk.max_total_exposure, channel.setup.limits.leverage_limit);
    if (equity > 0 && exposureAfter / equity > maxExposure) {
      deny(out, "MAX_EXPOSURE_EXCEEDED", `gross exposure would be ${round6(exposureAfter / equity)}x equity; limit ${maxExposure}x`, {
        exposure: round2(exposureAfter),
        equity: round2(equity),
        ratio: round6(exposureAfter / equity),
        max: maxExposure,
      });
    }
    if (held === 0 && openPositions(channel) >= risk.max_open_positions) {
      deny(out, "MAX_OPEN_POSITIONS_EXCEEDED", `channel holds ${openPositions(channel)} positions; max_open_positions=${risk.max_open_positions}`, {
        open_positions: openPositions(channel),
        max: risk.max_open_positions,
      });
    }
    if (channel.daily_trades >= risk.max_daily_trades) {
      deny(out, "MAX_DAILY_TRADES_EXCEEDED", `${channel.daily_trades} orders today; max_daily_trades=${risk.max_daily_trades}`, {
        daily_trades: channel.daily_trades,
        max: risk.max_daily_trades,
      });
    }
    // The loss a stop-out would cause: at the entry's own stop, else at its trailing stop's first level; without either nothing bounds it here.
    const stop = sleeve.exits?.stop_loss_pct ?? sleeve.exits?.trailing_stop_pct ?? null;
    const loss = stop === null ? 0 : notionalBase * stop;
    const maxLoss = channel.setup.limits.max_loss_per_trade * equity;
    if (loss > maxLoss) {
      deny(out, "MAX_LOSS_PER_TRADE_EXCEEDED", `a stop-out at ${stop} would lose ${round2(loss)}; max_loss_per_trade allows ${round2(maxLoss)}`, {
        potential_loss: round2(loss),
        max_loss: round2(maxLoss),
      });
    }
  }
  return out;
}
