import { z } from "zod";
import { Calendar } from "../market/calendar";
import { marketOf } from "../market/market";
import { dayNumberOf, zonedTimeToUtc, type IsoDate } from "../market/zoned-time";
import type { Candlestick } from "../provider/quote-types";
import type { CandleBatch } from "./candle-batch";

/**
 * Corporate actions (splits, consolidations, dividends) as the price factor they change: the
 * candle store keeps actual traded prices (LongPort's `NoAdjust`), and an import learns where the
 * provider's forward-adjusted prices stop being a constant multiple of them. A backtest adjusts the
 * bars it feeds with them (docs/backtests.md "Prices and corporate actions").
 */

/**
 * One action: from `ex_date` on, a symbol trades at `ratio` times its earlier price (a 5-for-1
 * split: 0.2). Prices before the ex-date times `ratio`, volumes divided by it, continue the series.
 */
export const CorporateAction = z
  .object({
    symbol: z.string(),
    ex_date: z.string().describe("The first trading day at the new price level, an exchange-local ISO date"),
    ratio: z
      .number()
      .describe(
        "What a price before the ex-date is multiplied by (a volume divided by) to continue the prices from the ex-date on: a 5-for-1 split 0.2, a 1-for-10 consolidation 10, a dividend slightly below 1",
      ),
  })
  .meta({ id: "CorporateAction" });
export type CorporateAction = z.infer<typeof CorporateAction>;

/** The actions of one symbol as stored: one item per symbol, sorted by ex-date, guarded by its version. */
export interface StoredCorporateActions {
  symbol: string;
  actions: { ex_date: IsoDate; ratio: number }[];
  version: number;
  updated_at: string;
}

/** Storage port of corporate actions. */
export interface CorporateActionStore {
  get(symbol: string): Promise<StoredCorporateActions | undefined>;
  /** Writes the symbol's actions if the stored version is `record.version - 1` (absent for version 1); false when someone else wrote first. */
  save(record: StoredCorporateActions): Promise<boolean>;
}

/** A relative change of the factor below this is no action (float noise). */
const MIN_CHANGE = 1e-6;

/** Half a unit of the last decimal place a provider's price string carries ("145.940": 0.0005); 0 for a number without decimals shown. */
function halfUnit(text: string): number {
  const dot = text.indexOf(".");
  return dot < 0 ? 0.5 : 0.5 * 10 ** -(text.length - dot - 1);
}

export const CorporateActions = {
  /**
   * The actions between consecutive trading days of the same daily candles in actual (`NoAdjust`)
   * and forward-adjusted prices: each day's factor is adjusted close / actual close, and where it
   * changes (by more than 1e-6 and more than the rounding of the prices answered), the later day
   * is an ex-date with ratio = factor before / factor after. Days missing from either are skipped.
   */
  derive(symbol: string, actual: readonly Candlestick[], adjusted: readonly Candlestick[]): CorporateAction[] {
    const calendar = Calendar.for(marketOf(symbol));
    const adjustedAt = new Map(adjusted.map((candle) => [Date.parse(candle.timestamp), candle]));
    const actions: CorporateAction[] = [];
    let previous: { factor: number; tolerance: number } | undefined;
    for (const candle of [...actual].sort((a, b) => Date.parse(a.timestamp) - Date.parse(b.timestamp))) {
      const ms = Date.parse(candle.timestamp);
      const twin = adjustedAt.get(ms);
      const close = Number(candle.close);
      const adjustedClose = Number(twin?.close);
      if (!(close > 0 && adjustedClose > 0)) continue;
      const factor = adjustedClose / close;
      // How far rounding alone moves the factor: half a unit of each price's last decimal, relative to it.
      const tolerance = halfUnit(twin!.close) / adjustedClose + halfUnit(candle.close) / close;
      if (previous !== undefined && Math.abs(factor / previous.factor - 1) > Math.max(MIN_CHANGE, previous.tolerance + tolerance))
        actions.push({ symbol, ex_date: calendar.localDateOf(ms), ratio: previous.factor / factor });
      previous = { factor, tolerance };
    }
    return actions;
  },

  /** `learnt` over `stored`: an action of the same ex-date is replaced, the rest kept, sorted by ex-date. */
  merge(stored: StoredCorporateActions["actions"], learnt: readonly CorporateAction[]): StoredCorporateActions["actions"] {
    const byDate = new Map(stored.map((action) => [action.ex_date, action.ratio]));
    for (const action of learnt) byDate.set(action.ex_date, action.ratio);
    return [...byDate.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([ex_date, ratio]) => ({ ex_date, ratio }));
  },

  /** Merges `learnt` into the symbol's stored actions (version-checked, retried on a conflict); nothing is written when nothing was learnt. */
  async record(store: CorporateActionStore, symbol: string, learnt: readonly CorporateAction[], now: string): Promise<void> {
    if (learnt.length === 0) return;
    for (let attempt = 0; attempt < 10; attempt++) {
      const stored = await store.get(symbol);
      const record = { symbol, actions: CorporateActions.merge(stored?.actions ?? [], learnt), version: (stored?.version ?? 0) + 1, updated_at: now };
      if (await store.save(record)) return;
    }
    throw new Error(`Corporate actions of ${symbol} kept changing while they were recorded`);
  },

  /**
   * The stored actions of `symbols` with an ex-date after the day of `window[0]` and up to the day
   * of `window[1]` (UNIX seconds; days at each symbol's exchange), by symbol then ex-date: those
   * that split a run reading bars from `window[0]` to `window[1]`.
   */
  async within(store: CorporateActionStore, symbols: readonly string[], window: readonly [number, number]): Promise<CorporateAction[]> {
    const stored = await Promise.all(symbols.map((symbol) => store.get(symbol)));
    return stored.flatMap((record, i) => {
      const symbol = symbols[i]!;
      const calendar = Calendar.for(marketOf(symbol));
      const after = calendar.localDateOf(window[0] * 1000);
      const through = calendar.localDateOf(window[1] * 1000);
      return (record?.actions ?? []).filter((a) => a.ex_date > after && a.ex_date <= through).map((a) => ({ symbol, ...a }));
    });
  },
};

/**
 * Forward adjustment of stored bars by a run's actions: a bar before an ex-date has its prices
 * multiplied by the product of the ratios of the actions after it, its volume divided. A batch
 * that needs it is copied (the store's batches are shared by its cache); one that does not is
 * handed back as it is. Nothing is allocated per bar.
 */
export class PriceAdjuster {
  /** Per symbol: where each action starts (UNIX seconds of its ex-date's local midnight) and its ratio, in time order. */
  private readonly bySymbol = new Map<string, { from: number; ratio: number }[]>();

  constructor(actions: readonly CorporateAction[]) {
    for (const action of actions) {
      const calendar = Calendar.for(marketOf(action.symbol));
      const from = zonedTimeToUtc(calendar.timeZone, dayNumberOf(action.ex_date), 0) / 1000;
      const list = this.bySymbol.get(action.symbol) ?? [];
      list.push({ from, ratio: action.ratio });
      this.bySymbol.set(action.symbol, list);
    }
    for (const list of this.bySymbol.values()) list.sort((a, b) => a.from - b.from);
  }

  /** Whether any bar of `symbol` is adjusted. */
  adjusts(symbol: string): boolean {
    return this.bySymbol.has(symbol);
  }

  /** The batches of `symbol` with forward-adjusted prices and volumes: copies where a bar lies before an action. */
  adjust(symbol: string, batches: CandleBatch[]): CandleBatch[] {
    const actions = this.bySymbol.get(symbol);
    if (actions === undefined) return batches;
    const last = actions[actions.length - 1]!.from;
    return batches.map((batch) => (batch.length === 0 || batch.timestamp[0]! >= last ? batch : adjusted(batch, actions)));
  }
}

/** A copy of `batch` with each bar scaled by the product of the ratios of the actions starting after it. */
function adjusted(batch: CandleBatch, actions: readonly { from: number; ratio: number }[]): CandleBatch {
  const copy: CandleBatch = {
    length: batch.length,
    timestamp: batch.timestamp,
    open: Float64Array.from(batch.open),
    high: Float64Array.from(batch.high),
    low: Float64Array.from(batch.low),
    close: Float64Array.from(batch.close),
    volume: Float64Array.from(batch.volume),
    turnover: batch.turnover,
    session: batch.session,
  };
  // after[k]: the product of the ratios of actions k and later (1 exactly past the last).
  const after = new Float64Array(actions.length + 1);
  after[actions.length] = 1;
  for (let k = actions.length - 1; k >= 0; k--) after[k] = after[k + 1] * actions[k]!.ratio;
  let next = 0;
  for (let i = 0; i < batch.length; i++) {
    const ts = batch.timestamp[i];
    while (next < actions.length && actions[next]!.from <= ts) next++;
    const factor = after[next];
    if (factor === 1) continue;
    copy.open[i] *= factor;
    copy.high[i] *= factor;
    copy.low[i] *= factor;
    copy.close[i] *= factor;
    // Volumes stay whole shares.
    copy.volume[i] = Math.round(copy.volume[i] / factor);
  }
  return copy;
}
