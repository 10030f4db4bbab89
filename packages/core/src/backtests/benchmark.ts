import { Buckets } from "../candles/buckets";
import { CorporateActions, PriceAdjuster } from "../candles/corporate-actions";
import type { TradingEngine } from "../engine/engine";
import { Dec } from "../money/decimal";
import { Calendar } from "../market/calendar";
import { marketOf } from "../market/market";
import { isoDateOf, utcToZoned } from "../market/zoned-time";
import { allOf } from "../util/pages";
import type { BacktestDeps, BenchmarkFigures, StoredBacktest } from "./backtest-model";
import { downsample, MAX_CURVE_POINTS } from "./backtest-result";

/**
 * Benchmark-relative figures of a backtest (docs/backtests.md "Benchmark-relative figures"): the
 * strategy's daily returns against the benchmark's over the strategy's trading days. Computed once,
 * as the result is recorded (by the workflow's last task), and stored with it.
 */

type Relative = Record<"total_return" | "alpha" | "beta" | "correlation" | "tracking_error" | "information_ratio", number>;

const rounded = (value: number): number | null => (Number.isFinite(value) ? Math.round(value * 1e6) / 1e6 : null);

/**
 * The figures from the strategy's closing equity `equity[t]` and the benchmark's close `closes[t]`
 * on the same trading days (NaN where the benchmark had no close yet), `firstOpen` the benchmark's
 * first open inside the range. Daily returns r_t = E_t / E_(t−1) − 1 and b_t = C_t / C_(t−1) − 1
 * for each day t after the first whose both closes are known; sample (n − 1) moments; annualised
 * with `tradingDaysPerYear` (D): beta = cov(r, b) / var(b); alpha = (mean(r) − beta · mean(b)) · D;
 * correlation = cov(r, b) / (sd(r) · sd(b)); tracking error = sd(r − b) · √D; information ratio =
 * mean(r − b) · D / tracking error (undefined below 1e-12). Unrounded; NaN where a figure is undefined.
 */
export function relativeFigures(equity: ArrayLike<number>, closes: ArrayLike<number>, firstOpen: number, tradingDaysPerYear: number): Relative {
  const r: number[] = [];
  const b: number[] = [];
  for (let t = 1; t < equity.length; t++) {
    const before = closes[t - 1]!;
    if (!(before > 0) || !(closes[t]! > 0) || !(equity[t - 1]! > 0)) continue;
    r.push(equity[t]! / equity[t - 1]! - 1);
    b.push(closes[t]! / before - 1);
  }
  const n = r.length;
  const mean = (xs: number[]) => xs.reduce((sum, x) => sum + x, 0) / xs.length;
  const meanR = mean(r);
  const meanB = mean(b);
  let covariance = 0;
  let varianceR = 0;
  let varianceB = 0;
  for (let t = 0; t < n; t++) {
    covariance += (r[t]! - meanR) * (b[t]! - meanB);
    varianceR += (r[t]! - meanR) ** 2;
    varianceB += (b[t]! - meanB) ** 2;
  }
  covariance /= n - 1;
  varianceR /= n - 1;
  varianceB /= n - 1;
  const active = r.map((x, t) => x - b[t]!);
  const meanActive = mean(active);
  const sdActive = Math.sqrt(active.reduce((sum, x) => sum + (x - meanActive) ** 2, 0) / (n - 1));
  const beta = n > 1 && varianceB > 0 ? covariance / varianceB : Number.NaN;
  const trackingError = n > 1 ? sdActive * Math.sqrt(tradingDaysPerYear) : Number.NaN;
  let lastClose = Number.NaN;
  for (let t = closes.length - 1; t >= 0 && !(lastClose > 0); t--) lastClose = closes[t]!;
  return {
    total_return: firstOpen > 0 && lastClose > 0 ? lastClose / firstOpen - 1 : Number.NaN,
    alpha: (meanR - beta * meanB) * tradingDaysPerYear,
    beta,
    correlation: n > 1 && varianceR > 0 && varianceB > 0 ? covariance / Math.sqrt(varianceR * varianceB) : Number.NaN,
    tracking_error: trackingError,
    // Undefined without active risk: the same returns, up to float rounding (a backtest holding the benchmark itself).
    information_ratio: trackingError > 1e-12 ? (meanActive * tradingDaysPerYear) / trackingError : Number.NaN,
  };
}

/** Events read per page of the run's log. */
const LOG_PAGE = 5_000;

/**
 * The benchmark figures of a backtest whose run `engine` ended: its trading days from the run's
 * `day_end` events, its unrounded closing equity from the engine, the benchmark's daily candles over
 * the window (forward-adjusted by its corporate actions unless the run trades prices as traded),
 * each day aligned with the benchmark's last close on or before it.
 */
export async function benchmarkOf(
  deps: Pick<BacktestDeps, "runs" | "candles" | "imports">,
  backtest: StoredBacktest & { benchmark: string },
  runId: string,
  engine: TradingEngine,
  tradingDaysPerYear: number,
): Promise<BenchmarkFigures> {
  const symbol = backtest.benchmark;
  const [from, to] = backtest.window;
  const [dayEnds, read, actions] = await Promise.all([
    allOf((cursor) => deps.runs.events(runId, { category: "day", limit: LOG_PAGE, cursor })),
    deps.candles.loadBetween(symbol, "1d", Buckets.of("1d", from), Buckets.of("1d", to), "regular"),
    backtest.config.execution.adjust === "none" ? Promise.resolve([]) : CorporateActions.within(deps.imports.corporateActions, [symbol], backtest.window),
  ]);
  // The window's daily bars, in time order (a bucket reaches past the window).
  const bars: { time: number; open: number; close: number }[] = [];
  for (const batch of new PriceAdjuster(actions).adjust(symbol, read)) {
    for (let i = 0; i < batch.length; i++) {
      const time = batch.timestamp[i]!;
      if (time >= from && time <= to) bars.push({ time, open: batch.open[i]!, close: batch.close[i]! });
    }
  }
  const view = engine.view(null);
  // The engine's days are the log's `day_end`s, in order: the last of each are the window's.
  const count = Math.min(dayEnds.length, view.equity_days.length);
  const days = dayEnds.slice(dayEnds.length - count).map((e) => Number(e.data.day));
  const equity = view.equity_days.slice(view.equity_days.length - count);
  const zone = Calendar.for(marketOf(symbol)).timeZone;
  const closes = new Float64Array(count).fill(Number.NaN);
  let next = 0;
  let close = Number.NaN;
  for (let t = 0; t < count; t++) {
    while (next < bars.length && utcToZoned(zone, bars[next]!.time * 1000).dayNumber <= days[t]!) close = bars[next++]!.close;
    closes[t] = close;
  }
  const firstOpen = bars.length > 0 ? bars[0]!.open : Number.NaN;
  const figures = relativeFigures(equity, closes, firstOpen, tradingDaysPerYear);
  const initial = view.initial_equity;
  const curve = days.map((day, t) => ({
    date: isoDateOf(day),
    equity: new Dec(closes[t]! > 0 && firstOpen > 0 ? (initial * closes[t]!) / firstOpen : initial).toFixed(2),
  }));
  return {
    symbol,
    total_return: rounded(figures.total_return),
    alpha: rounded(figures.alpha),
    beta: rounded(figures.beta),
    correlation: rounded(figures.correlation),
    tracking_error: rounded(figures.tracking_error),
    information_ratio: rounded(figures.information_ratio),
    equity_curve: downsample(curve, MAX_CURVE_POINTS),
  };
}
