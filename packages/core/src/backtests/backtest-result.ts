import { Dec } from "../money/decimal";
import { isoDateOf } from "../market/zoned-time";
import type { EngineOrderType, ExitReason, FillData } from "../engine/events";
import { performance } from "../engine/metrics";
import type { TradingEngine } from "../engine/engine";
import { valueIn } from "../trading/session/closing";
import { allOf } from "../util/pages";
import { priceAnswer, type StoredEvent, type StoredRun } from "../trading/run/runs";
import { iso } from "../util/time";
import type {
  BacktestControlDeps,
  BacktestResult,
  BacktestSummary,
  BacktestWarning,
  BenchmarkFigures,
  PriceAdjustment,
  StoredBacktest,
} from "./backtest-model";

/**
 * A backtest's result: the summary finalize stores on the backtest (metrics, final capital), and
 * the lists read back from the run's log when the result is asked for (fills, trades, equity curve).
 */

/** The most points of a result's equity curves (the backtest's and its benchmark's). */
export const MAX_CURVE_POINTS = 500;
/** What a backtest prepared before prices were adjusted was fed: the stored prices, with no action looked up. */
export const NO_ADJUSTMENT: PriceAdjustment = { mode: "none", actions: [] };
/** Events read per page of the run's log for the result's lists. */
const LOG_PAGE = 5_000;

/** What finalize stores on the backtest: the result without its lists, from the run's engine as it ended. */
export function summaryOf(
  backtest: StoredBacktest,
  run: StoredRun,
  engine: TradingEngine,
  status: "completed" | "stopped",
  now: string,
  benchmark: BenchmarkFigures | null = null,
): BacktestSummary {
  const whole = engine.view(null);
  const days = run.setup.trading_days_per_year;
  const metrics = performance(whole, days);
  const valueByCurrency = Object.fromEntries(Object.keys(whole.cash).map((currency) => [currency, valueIn(whole, currency)]));
  return {
    backtest_id: backtest.id,
    session_id: backtest.session_id,
    status,
    strategy_name: backtest.strategy_name,
    symbols: backtest.symbols,
    start_date: backtest.start_date,
    end_date: backtest.end_date,
    timeframe: backtest.config.timeframe,
    execution: backtest.config.execution,
    price_adjustment: backtest.price_adjustment ?? NO_ADJUSTMENT,
    risk_config: backtest.enforce_risk ? backtest.config.risk_config : null,
    initial_capital: new Dec(backtest.initial_capital).toFixed(2),
    final_capital: metrics.final_equity,
    final_capital_by_currency: Object.fromEntries(Object.entries(valueByCurrency).map(([currency, value]) => [currency, new Dec(value).toFixed(2)])),
    final_value_by_currency: valueByCurrency,
    final_cash_by_currency: whole.cash,
    performance_metrics: metrics,
    channels: Object.fromEntries(engine.channelIds().map((id) => [id, performance(engine.view(id), days)])),
    benchmark,
    bars_processed: run.progress?.bars ?? 0,
    completed_at: now,
  };
}

/**
 * The result's lists, read from the run: the fills (every execution, so an order filled in parts
 * under `max_participation` gives one per part, also when its rest was cancelled), closed trades
 * and the daily equity curve.
 */
export async function listsOf(
  deps: BacktestControlDeps,
  runId: string,
  summary: Pick<BacktestSummary, "execution" | "timeframe"> & { feeds?: string[]; price_adjustment?: PriceAdjustment },
): Promise<Pick<BacktestResult, "fills" | "trades" | "equity_curve" | "warnings">> {
  // One pass over the log (a backtest's chunks write it as a few blocks), not one per category.
  const log = await allOf((cursor) => deps.runs.events(runId, { limit: LOG_PAGE, cursor }));
  const trades = log.filter((e) => e.category === "trade");
  const dayEnds = log.filter((e) => e.category === "day");
  return {
    fills: log.filter((e) => e.type === "order_filled").map(fillOf),
    trades: trades.map((e) => {
      const d = e.data as Record<string, string | number>;
      return {
        symbol: String(d.symbol),
        channel_id: e.channel_id,
        direction: d.direction as "long" | "short",
        quantity: String(d.quantity),
        entry_time: iso(Number(d.entry_time)),
        exit_time: iso(Number(d.exit_time)),
        entry_price: priceAnswer(d.entry_price),
        exit_price: priceAnswer(d.exit_price),
        pnl: new Dec(d.pnl).toFixed(2),
        fees: new Dec(d.fees).toFixed(2),
        // Runs from before protective exits closed trades only by signal or by hand, as their sleeve says.
        exit_reason: (d.exit_reason ?? (String(d.sleeve).endsWith("/manual") ? "manual" : "signal")) as ExitReasonOfTrade,
      };
    }),
    equity_curve: downsample(
      dayEnds.map((e) => ({ date: isoDateOf(Number(e.data.day)), equity: new Dec(Number(e.data.equity)).toFixed(2) })),
      MAX_CURVE_POINTS,
    ),
    warnings: warningsOf(log, summary),
  };
}

/** How many orders each reason stopped, with the first one's message (for a warning's example). */
function byReason(events: StoredEvent[], reasonsOf: (data: Record<string, unknown>) => { reason: string; message: string }[]) {
  const counts = new Map<string, { count: number; example: string }>();
  for (const event of events) {
    const seen = new Set<string>();
    for (const { reason, message } of reasonsOf(event.data)) {
      // An order is counted once under each reason, however many of its denials name it.
      if (seen.has(reason)) continue;
      seen.add(reason);
      const entry = counts.get(reason);
      if (entry) entry.count++;
      else counts.set(reason, { count: 1, example: message });
    }
  }
  return [...counts.entries()].sort((a, b) => b[1].count - a[1].count || a[0].localeCompare(b[0]));
}

const orders = (count: number) => `${count} order${count === 1 ? "" : "s"}`;

/**
 * A result's warnings (docs/backtests.md "Warnings"): the orders the pre-trade checks denied and
 * those refused at their fill, by reason with counts (what made the run trade less than its
 * strategy asked), then the optimistic assumptions the run's execution makes: no slippage, no fees,
 * market orders filled at the next 1-minute bar's open, or at the signal's own close.
 */
export function warningsOf(
  log: StoredEvent[],
  summary: Pick<BacktestSummary, "execution" | "timeframe"> & { feeds?: string[]; price_adjustment?: PriceAdjustment },
): BacktestWarning[] {
  const warnings: BacktestWarning[] = [];
  const denied = byReason(
    log.filter((e) => e.type === "order_denied"),
    (data) => {
      const denials = (data.denials as { reason: string; message: string }[] | undefined) ?? [];
      return denials.length > 0 ? denials : [{ reason: String(data.reason), message: String(data.message ?? "") }];
    },
  );
  for (const [reason, { count, example }] of denied) {
    warnings.push({
      code: "ORDERS_DENIED",
      reason,
      count,
      message: `${orders(count)} denied ${reason} by the pre-trade checks, so not placed${example ? ` (the first: ${example})` : ""}`,
    });
  }
  const rejected = byReason(
    log.filter((e) => e.type === "order_rejected"),
    (data) => [{ reason: String(data.reason), message: String(data.message ?? "") }],
  );
  for (const [reason, { count, example }] of rejected) {
    warnings.push({
      code: "ORDERS_REJECTED",
      reason,
      count,
      message: `${orders(count)} rejected ${reason} at the fill${example ? ` (the first: ${example})` : ""}`,
    });
  }
  const { execution } = summary;
  const withoutMinutes = log.reduce(
    (sum, e) => sum + (e.type === "log" ? ((e.data.intrabar as { bars_without_minutes?: number } | undefined)?.bars_without_minutes ?? 0) : 0),
    0,
  );
  if (withoutMinutes > 0) {
    warnings.push({
      code: "INTRABAR_MINUTES_MISSING",
      count: withoutMinutes,
      message: `${withoutMinutes} bar${withoutMinutes === 1 ? "" : "s"} with orders waiting had no stored 1-minute bars inside (execution.intrabar): their orders filled by the bar's own open, high and low, a stop before a target when both were in reach. Import the range's 1-minute candles (POST /api/v1/stock-import/import with periods ["1m"]) and run it again`,
    });
  }
  const unadjusted = summary.price_adjustment?.mode === "none" ? summary.price_adjustment.actions : [];
  if (unadjusted.length > 0) {
    const named = unadjusted.map((a) => `${a.symbol} ${a.ex_date} (ratio ${a.ratio})`).join(", ");
    warnings.push({
      code: "UNADJUSTED_PRICES",
      count: unadjusted.length,
      message: `The bars were fed at the prices as traded (execution.adjust "none") across ${unadjusted.length === 1 ? "a corporate action" : `${unadjusted.length} corporate actions`}: ${named}. A split shows as a price jump (a 5-for-1 split as an 80 % fall) that no holder lived through, in the fills, the drawdown and the signals. Use execution.adjust "forward" (the default)`,
    });
  }
  if (execution.slippage_bps === 0) {
    warnings.push({
      code: "NO_SLIPPAGE",
      message:
        "Fills are at the bars' prices with no slippage (execution.slippage_bps 0): a real order pays the spread and moves the price against it. Set execution.slippage_bps (a few basis points for a liquid stock) to charge it",
    });
  }
  if (execution.commission.model === "percent" && execution.commission.rate === 0) {
    warnings.push({
      code: "NO_FEES",
      message:
        'No fees are charged (execution.commission percent at rate 0): a broker charges every fill. Use {"model": "broker"} for LongPort\'s fee schedule, or a percent rate',
    });
  }
  const minutes = summary.timeframe === "1m" || (summary.feeds ?? []).includes("1m");
  if (execution.fill === "next_open" && minutes) {
    warnings.push({
      code: "FILLS_AT_NEXT_MINUTE_OPEN",
      message: `Market orders fill at the open of the next 1-minute bar, a minute after their signal, at that bar's first price${execution.max_participation === undefined ? ", whole, whatever the bar's volume (execution.max_participation caps an order's share of it)" : ""}: a real order waits in a queue and may not get that price`,
    });
  }
  if (execution.fill === "close") {
    warnings.push({
      code: "FILLS_AT_SIGNAL_CLOSE",
      message:
        'Market orders fill at the close of the bar that signalled them (execution.fill "close"): the price the signal was computed from, which an order sent after seeing it cannot get. "next_open" fills at the next bar\'s open',
    });
  }
  return warnings;
}

type ExitReasonOfTrade = BacktestResult["trades"][number]["exit_reason"];

function fillOf(event: StoredEvent) {
  const d = event.data as unknown as FillData & { order_type?: EngineOrderType; exit_reason?: ExitReason; trigger_price?: number };
  return {
    order_id: d.order_id,
    timestamp: iso(event.time),
    symbol: d.symbol,
    side: d.side,
    quantity: String(d.quantity),
    price: priceAnswer(d.price),
    commission: d.commission,
    channel_id: event.channel_id,
    order_type: d.order_type ?? "market",
    exit_reason: d.exit_reason ?? null,
    trigger_price: d.trigger_price === undefined ? null : priceAnswer(d.trigger_price),
  };
}

/** At most `max` points, always keeping the first and the last. */
export function downsample<T>(points: T[], max: number): T[] {
  if (points.length <= max) return points;
  const step = (points.length - 1) / (max - 1);
  return Array.from({ length: max }, (_, i) => points[Math.round(i * step)]);
}
