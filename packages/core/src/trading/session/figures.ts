import { z } from "zod";
import type { EngineView } from "../../engine/engine";
import type { EngineEvent, LogLevel } from "../../engine/events";
import { Dec } from "../../money/decimal";
import type * as Risk from "../../risk/risk";
import { iso } from "../../util/time";
import { levelOf, messageOf, type StoredRun } from "../run/runs";

/**
 * How the session views write figures, events and positions: one mapping of each, shared by the
 * session, channel and MTF views.
 */

/** Rounded to cents (0 for a figure that is not finite). */
export const r2 = (value: number) => (Number.isFinite(value) ? Math.round(value * 100) / 100 : 0);
/** Rounded to 6 decimal places (0 for a figure that is not finite). */
export const r6 = (value: number) => (Number.isFinite(value) ? Math.round(value * 1e6) / 1e6 : 0);
/** A money figure as a decimal string with 2 places. */
export const cents = (value: number) => new Dec(Number.isFinite(value) ? value : 0).toFixed(2);
/** A price as an exact decimal string. */
export const priceText = (value: number) => new Dec(Number.isFinite(value) ? value : 0).toString();

/** The instant of a run's latest snapshot (`as_of` of the views; null before it has one). */
export const asOf = (run: Pick<StoredRun, "snapshot"> | undefined) => (run?.snapshot ? iso(run.snapshot.time) : null);

/** Where a run's engine clock is (`clock` of the status views; null before its first input). */
export const clockOf = (run: Pick<StoredRun, "snapshot"> | undefined) => (run?.snapshot && run.snapshot.time > 0 ? iso(run.snapshot.time) : null);

/** An event as the logs and pages show it (a stored event keeps the level it was stored with). */
export const eventEntry = (event: EngineEvent & { level?: LogLevel }) => ({
  sequence: event.sequence,
  timestamp: iso(event.time),
  type: event.type,
  channel_id: event.channel_id,
  level: event.level ?? levelOf(event),
  message: messageOf(event),
  data: event.data,
});

/** The figures of an open position every view shows: quantity, prices and value as decimal strings. */
export const positionFigures = (p: EngineView["positions"][number]) => ({
  symbol: p.symbol,
  quantity: String(p.quantity),
  average_price: priceText(p.entry_price),
  last_price: priceText(p.last_price),
  market_value: cents(p.market_value),
  unrealized_pnl: cents(p.unrealized_pnl),
});

/** How much of each risk limit a channel uses: drawdown, the day's loss and gross leverage, as fractions of the limit. */
export const RiskUtilization = z.object({ drawdown_usage: z.number(), daily_loss_usage: z.number(), leverage_usage: z.number() });

/** Gross exposure: the sum of the positions' absolute market values. */
export const grossExposure = (view: EngineView) => view.positions.reduce((sum, p) => sum + Math.abs(p.market_value), 0);

export function riskUtilization(view: EngineView, limits: Risk.Limits): z.infer<typeof RiskUtilization> {
  const dailyLoss = view.day_start_equity > 0 ? Math.max(0, -view.daily_pnl / view.day_start_equity) : 0;
  const leverage = view.equity > 0 ? grossExposure(view) / view.equity : 0;
  return {
    drawdown_usage: r6(view.current_drawdown / limits.max_drawdown),
    daily_loss_usage: r6(dailyLoss / limits.max_daily_loss),
    leverage_usage: r6(leverage / limits.leverage_limit),
  };
}
