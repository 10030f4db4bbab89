import { CandleBatches } from "../../packages/core/src/candles/candle-batch";
import type { Services } from "../../packages/adapters/src/services";
import { seededRandom } from "../../packages/core/src/indicators/testing/random-bars";
import type { Timeframe } from "../../packages/core/src/strategies/definition";
import type { Bar } from "../../packages/core/src/strategies/strategy";
import { TradingEngine } from "../../packages/core/src/engine/engine";
import type { StoredRun } from "../../packages/core/src/trading/run/runs";
import { warmUpFromStore } from "../../packages/core/src/trading/drivers/warm-up";

/** A bar with the period it belongs to and its close time, as the replay drivers feed it. */
export interface FedBar {
  bar: Bar;
  timeframe: Timeframe;
  close_ms: number;
}

const FIVE_MINUTES = 300_000;
const HOUR = 3_600_000;

/**
 * Regular-session 5-minute bars of a US symbol on `days` (EDT dates: 13:30–20:00 UTC), a random
 * walk whose drift turns every `regimeDays` days (so a director's bias changes), and the hourly
 * bars aggregated from them (each hour from 9:30 ET, the last one half an hour long).
 */
export function intradayBars(symbol: string, days: string[], seed = 7, regimeDays = 3): { fine: Bar[]; hourly: Bar[] } {
  const random = seededRandom(seed);
  const fine: Bar[] = [];
  const hourly: Bar[] = [];
  let price = 100;
  days.forEach((day, d) => {
    const open = Date.parse(`${day}T13:30:00Z`);
    const drift = Math.floor(d / regimeDays) % 2 === 0 ? 0.0012 : -0.0012;
    const bars: Bar[] = [];
    for (let i = 0; i < 78; i++) {
      const first = price;
      price = price * (1 + drift + (random() - 0.5) * 0.006);
      const high = Math.max(first, price) * (1 + random() * 0.001);
      const low = Math.min(first, price) * (1 - random() * 0.001);
      const round = (v: number) => Math.round(v * 100) / 100;
      bars.push({
        symbol,
        timestamp: open + i * FIVE_MINUTES,
        open: round(first),
        high: round(high),
        low: round(low),
        close: round(price),
        volume: 1000 + Math.floor(random() * 1000),
      });
    }
    fine.push(...bars);
    for (let h = 0; h < 78; h += 12) {
      const group = bars.slice(h, h + 12);
      hourly.push({
        symbol,
        timestamp: group[0]!.timestamp,
        open: group[0]!.open,
        high: Math.max(...group.map((b) => b.high)),
        low: Math.min(...group.map((b) => b.low)),
        close: group[group.length - 1]!.close,
        volume: group.reduce((sum, b) => sum + b.volume, 0),
      });
    }
  });
  return { fine, hourly };
}

/** Writes bars into the candle store as regular-session candles. */
export async function storeBars(services: Services, period: "5m" | "1h" | "1d" | "1m", bars: Bar[]): Promise<void> {
  const candles = bars.map((b) => ({
    timestamp: b.timestamp / 1000,
    open: b.open,
    high: b.high,
    low: b.low,
    close: b.close,
    volume: b.volume,
    turnover: 0,
    trade_session: "Intraday" as const,
  }));
  await services.candles.upsert(bars[0]!.symbol, period, CandleBatches.fromCandles(candles));
}

/** Several feeds merged in close order, ties in the order the feeds are given (as the bar feed does). */
export function merged(feeds: { timeframe: Timeframe; bars: Bar[] }[]): FedBar[] {
  const period: Record<Timeframe, number> = { "1m": 60_000, "5m": FIVE_MINUTES, "1h": HOUR, "1d": 86_400_000 };
  const all = feeds.flatMap((feed, index) =>
    feed.bars.map((bar) => ({ bar, timeframe: feed.timeframe, close_ms: bar.timestamp + period[feed.timeframe], index })),
  );
  all.sort((a, b) => a.close_ms - b.close_ms || a.index - b.index);
  return all.map(({ index: _index, ...rest }) => rest);
}

/** The first `steps` bars of `step` period, with every bar closing together with the last of them. */
export function firstSteps(bars: FedBar[], step: Timeframe, steps: number): FedBar[] {
  const out: FedBar[] = [];
  let count = 0;
  for (const fed of bars) {
    if (count >= steps && fed.close_ms !== out[out.length - 1]?.close_ms) break;
    out.push(fed);
    if (fed.timeframe === step) count++;
  }
  return out;
}

/** An engine with a driven run's setup, warmed up on the stored bars before its range as the driver's fresh run is: a straight run to compare with. */
export async function warmedEngine(services: Services, run: StoredRun): Promise<TradingEngine> {
  const engine = new TradingEngine(run.setup);
  await warmUpFromStore(services.candles, engine, Math.floor(run.progress!.driver!.start_ms / 1000));
  return engine;
}
