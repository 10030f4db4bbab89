import type { EngineView } from "../../engine/engine";
import { performance, type PerformanceMetrics } from "../../engine/metrics";
import { Dec } from "../../money/decimal";

/** Cash plus positions of one currency's symbols at their last closes, exact (quantity × close in decimal). */
export function valueIn(view: EngineView, currency: string): string {
  let total = new Dec(view.cash[currency] ?? 0);
  for (const p of view.positions) if (p.currency === currency) total = total.plus(new Dec(p.quantity).times(p.last_price));
  return total.toString();
}

/** What a session ended with, from its run's whole view: the figures a stopped or completed session shows. */
export function closingFigures(
  view: EngineView,
  tradingDaysPerYear: number,
): {
  final_capital: string;
  final_capital_by_currency: Record<string, string>;
  performance_metrics: PerformanceMetrics;
} {
  const metrics = performance(view, tradingDaysPerYear);
  return {
    final_capital: metrics.final_equity,
    final_capital_by_currency: Object.fromEntries(Object.keys(view.cash).map((currency) => [currency, new Dec(valueIn(view, currency)).toFixed(2)])),
    performance_metrics: metrics,
  };
}
