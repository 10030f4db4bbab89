import type { Bar, BarContext, Signal, Strategy } from "./strategy";
import { seededRandom } from "../indicators/testing/random-bars";

/** Test factories for bars and strategy runs. */

const DAY = 86_400_000;
const START = Date.UTC(2024, 0, 2);

/** Bars from closes; high and low sit `spread` (a fraction) around the close unless given. */
export const barsFrom = (
  closes: readonly number[],
  options: { symbol?: string; spread?: number; highs?: readonly number[]; lows?: readonly number[] } = {},
): Bar[] =>
  closes.map((close, i) => ({
    symbol: options.symbol ?? "AAPL.US",
    timestamp: START + i * DAY,
    open: close,
    high: options.highs?.[i] ?? close * (1 + (options.spread ?? 0)),
    low: options.lows?.[i] ?? close * (1 - (options.spread ?? 0)),
    close,
    volume: 1_000,
  }));

/** A deterministic random walk (mulberry32), for runs long enough to produce many signals. */
export const randomWalk = (length: number, seed: number, symbol = "AAPL.US"): Bar[] => {
  const random = seededRandom(seed);
  const closes: number[] = [];
  const highs: number[] = [];
  const lows: number[] = [];
  let price = 100;
  // Regimes of drift make trends long enough for trend strategies to trade.
  let drift = 0;
  for (let i = 0; i < length; i++) {
    if (i % 40 === 0) drift = (random() - 0.5) * 0.02;
    price = Math.max(1, price * (1 + drift + (random() - 0.5) * 0.04));
    closes.push(Number(price.toFixed(4)));
    highs.push(Number((price * (1 + random() * 0.01)).toFixed(4)));
    lows.push(Number((price * (1 - random() * 0.01)).toFixed(4)));
  }
  return barsFrom(closes, { symbol, highs, lows });
};

/** Signals of a run with the index of the bar that produced each. */
export const run = (strategy: Strategy, bars: readonly Bar[], context: (index: number) => BarContext = () => ({})): { index: number; signal: Signal }[] =>
  bars.flatMap((bar, index) => strategy.onBar(bar, context(index)).map((signal) => ({ index, signal })));

/** The (bar index, side, target) triples of a run, the usual thing to assert. */
export const trades = (strategy: Strategy, bars: readonly Bar[], context?: (index: number) => BarContext) =>
  run(strategy, bars, context).map(({ index, signal }) => [index, signal.side, signal.target_weight] as const);
