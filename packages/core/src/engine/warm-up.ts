import type { Timeframe } from "../strategies/definition";
import type { Bar } from "../strategies/strategy";
import { NO_ROUTES, PERIOD_MS, type EngineCore } from "./runtime";

// Warming a fresh run's strategies up from history before its first live bar (docs/trading-engine.md).

/** History the strategies reading one symbol and period want before their first live bar. */
export interface WarmupNeed {
  symbol: string;
  timeframe: Timeframe;
  bars: number;
}

/**
 * The history a fresh run wants before its first live bar: per (symbol, timeframe) its
 * strategies read, the most bars any of them needs for its indicators to settle (`settleBars`,
 * never fewer than it needs to signal, `warmupBars`), so they hold the values a run with all
 * the history before would (docs/strategies.md "Warm-up and settling").
 */
export function warmupNeedsOf(engine: EngineCore): WarmupNeed[] {
  const needs = new Map<string, WarmupNeed>();
  for (const channel of engine.channels) {
    channel.setup.strategies.forEach((slot, index) => {
      const strategy = channel.sleeves[index].strategy!;
      const bars = Math.max(strategy.warmupBars, strategy.settleBars);
      for (const symbol of slot.symbols) {
        const key = `${symbol} ${slot.timeframe}`;
        const known = needs.get(key);
        if (!known) needs.set(key, { symbol, timeframe: slot.timeframe, bars });
        else known.bars = Math.max(known.bars, bars);
      }
    });
  }
  return [...needs.values()];
}

/**
 * Feeds closed bars of history (one symbol and period, in close order, all before the first
 * live bar) to the strategies that read them, so their indicators start full (a director's
 * bias too). Nothing else happens: no orders, fills, day figures or monitors; the last close
 * becomes the symbol's last price, and one `log` event says how much history there was
 * (`warning` when less than the `wanted` bars, with the `problem` that kept it short when one
 * did). What a strategy concludes during warm-up is not traded: the session acts on the
 * signals that follow.
 */
export function warmUpStrategies(engine: EngineCore, need: WarmupNeed, bars: readonly Bar[], problem?: string): void {
  const { symbol, timeframe, bars: wanted } = need;
  const info = engine.info(symbol);
  const listeners = info.routes[timeframe] ?? NO_ROUTES;
  for (const bar of bars) {
    info.last = bar.close;
    for (let i = 0; i < listeners.length; i++) {
      const sleeve = listeners[i].sleeve;
      const bias = sleeve.director ? sleeve.director.strategy!.bias(symbol) : undefined;
      sleeve.strategy!.onBar(bar, bias === undefined ? undefined : { bias });
    }
  }
  if (bars.length > 0) engine.time = Math.max(engine.time, bars[bars.length - 1].timestamp + PERIOD_MS[timeframe]);
  const span = bars.length > 0 ? ` (${new Date(bars[0].timestamp).toISOString()} to ${new Date(bars[bars.length - 1].timestamp).toISOString()})` : "";
  const short = bars.length < wanted;
  engine.emit("log", null, {
    level: short ? "warning" : "info",
    message: `Strategies on ${symbol} ${timeframe} warmed up with ${bars.length} of ${wanted} bars${span}${problem ? ` (${problem})` : ""}${short ? ": they signal once they have seen enough live bars" : ""}`,
    warm_up: { symbol, timeframe, bars: bars.length, wanted, ...(problem ? { problem } : {}) },
  });
}
