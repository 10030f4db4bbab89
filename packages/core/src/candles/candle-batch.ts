import { TradeSessionCode, type TradeSession } from "../market/trade-session";

/**
 * Candles of one symbol and period as columns of typed arrays, sorted by timestamp: the form
 * storage packs, backtests read, and merges work on. Timestamps are UNIX seconds (UTC).
 */
export interface CandleBatch {
  length: number;
  timestamp: Float64Array;
  open: Float64Array;
  high: Float64Array;
  low: Float64Array;
  close: Float64Array;
  volume: Float64Array;
  turnover: Float64Array;
  /** TradeSessionCode per candle. */
  session: Uint8Array;
}

/** One candle as the API shows it (StockData without `code`). */
export interface Candle {
  timestamp: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
  turnover: number;
  trade_session: TradeSession;
}

const COLUMNS = ["timestamp", "open", "high", "low", "close", "volume", "turnover"] as const;
const FLOAT_COLUMNS = COLUMNS.length;

export const CandleBatches = {
  empty(length = 0): CandleBatch {
    return {
      length,
      timestamp: new Float64Array(length),
      open: new Float64Array(length),
      high: new Float64Array(length),
      low: new Float64Array(length),
      close: new Float64Array(length),
      volume: new Float64Array(length),
      turnover: new Float64Array(length),
      session: new Uint8Array(length),
    };
  },

  /** Columns from candles (sorted by timestamp; the last of equal timestamps wins). */
  fromCandles(candles: readonly Candle[]): CandleBatch {
    const sorted = [...candles].sort((a, b) => a.timestamp - b.timestamp);
    const unique: Candle[] = [];
    for (const candle of sorted) {
      if (unique.length > 0 && unique[unique.length - 1]!.timestamp === candle.timestamp) unique[unique.length - 1] = candle;
      else unique.push(candle);
    }
    const batch = CandleBatches.empty(unique.length);
    unique.forEach((candle, index) => CandleBatches.set(batch, index, candle));
    return batch;
  },

  set(batch: CandleBatch, index: number, candle: Candle): void {
    batch.timestamp[index] = candle.timestamp;
    batch.open[index] = candle.open;
    batch.high[index] = candle.high;
    batch.low[index] = candle.low;
    batch.close[index] = candle.close;
    batch.volume[index] = candle.volume;
    batch.turnover[index] = candle.turnover;
    batch.session[index] = TradeSessionCode[candle.trade_session];
  },

  get(batch: CandleBatch, index: number): Candle {
    return {
      timestamp: batch.timestamp[index]!,
      open: batch.open[index]!,
      high: batch.high[index]!,
      low: batch.low[index]!,
      close: batch.close[index]!,
      volume: batch.volume[index]!,
      turnover: batch.turnover[index]!,
      trade_session: SESSION_NAMES[batch.session[index]!]!,
    };
  },

  /** The candles with indexes in [start, end). */
  slice(batch: CandleBatch, start: number, end: number): CandleBatch {
    const from = Math.max(0, start);
    const to = Math.min(batch.length, end);
    return {
      length: Math.max(0, to - from),
      timestamp: batch.timestamp.slice(from, to),
      open: batch.open.slice(from, to),
      high: batch.high.slice(from, to),
      low: batch.low.slice(from, to),
      close: batch.close.slice(from, to),
      volume: batch.volume.slice(from, to),
      turnover: batch.turnover.slice(from, to),
      session: batch.session.slice(from, to),
    };
  },

  /** Keeps the candles for which `keep(index)` holds. */
  filter(batch: CandleBatch, keep: (index: number) => boolean): CandleBatch {
    const indexes: number[] = [];
    for (let index = 0; index < batch.length; index++) if (keep(index)) indexes.push(index);
    const result = CandleBatches.empty(indexes.length);
    indexes.forEach((from, to) => copy(batch, from, result, to));
    return result;
  },

  /** The first index whose timestamp is ≥ `timestamp` (binary search). */
  lowerBound(batch: CandleBatch, timestamp: number): number {
    let low = 0;
    let high = batch.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (batch.timestamp[middle]! < timestamp) low = middle + 1;
      else high = middle;
    }
    return low;
  },

  /**
   * Merges `incoming` into `existing` (both sorted); an incoming candle replaces a stored one at
   * the same timestamp. Reports how many were new and how many overwrote.
   */
  merge(existing: CandleBatch, incoming: CandleBatch): { batch: CandleBatch; added: number; overwritten: number } {
    const result = CandleBatches.empty(existing.length + incoming.length);
    let i = 0;
    let j = 0;
    let k = 0;
    let overwritten = 0;
    while (i < existing.length || j < incoming.length) {
      if (j >= incoming.length || (i < existing.length && existing.timestamp[i]! < incoming.timestamp[j]!)) {
        copy(existing, i++, result, k++);
      } else {
        if (i < existing.length && existing.timestamp[i] === incoming.timestamp[j]) {
          i++;
          overwritten++;
        }
        copy(incoming, j++, result, k++);
      }
    }
    return { batch: CandleBatches.slice(result, 0, k), added: incoming.length - overwritten, overwritten };
  },

  /** Concatenates batches that follow each other in time. */
  concat(batches: readonly CandleBatch[]): CandleBatch {
    const total = batches.reduce((sum, batch) => sum + batch.length, 0);
    const result = CandleBatches.empty(total);
    let offset = 0;
    for (const batch of batches) {
      for (const column of COLUMNS) result[column].set(batch[column], offset);
      result.session.set(batch.session, offset);
      offset += batch.length;
    }
    return result;
  },

  /** Packs columns into one buffer: 7 float64 columns then one uint8 column. */
  pack(batch: CandleBatch): Uint8Array {
    const bytes = new Uint8Array(batch.length * (FLOAT_COLUMNS * 8 + 1));
    const floats = new Float64Array(bytes.buffer, 0, batch.length * FLOAT_COLUMNS);
    COLUMNS.forEach((column, index) => floats.set(batch[column], index * batch.length));
    bytes.set(batch.session, batch.length * FLOAT_COLUMNS * 8);
    return bytes;
  },

  /** The inverse of `pack`; copies once into an aligned buffer, then views it. */
  unpack(packed: Uint8Array): CandleBatch {
    const length = packed.length / (FLOAT_COLUMNS * 8 + 1);
    if (!Number.isInteger(length)) throw new Error("Corrupt candle block");
    const aligned = new Uint8Array(packed.length);
    aligned.set(packed);
    const floats = new Float64Array(aligned.buffer, 0, length * FLOAT_COLUMNS);
    const column = (index: number) => floats.subarray(index * length, (index + 1) * length);
    return {
      length,
      timestamp: column(0),
      open: column(1),
      high: column(2),
      low: column(3),
      close: column(4),
      volume: column(5),
      turnover: column(6),
      session: aligned.subarray(length * FLOAT_COLUMNS * 8),
    };
  },
};

const SESSION_NAMES: TradeSession[] = Object.entries(TradeSessionCode)
  .sort((a, b) => a[1] - b[1])
  .map(([name]) => name as TradeSession);

function copy(from: CandleBatch, fromIndex: number, to: CandleBatch, toIndex: number) {
  to.timestamp[toIndex] = from.timestamp[fromIndex]!;
  to.open[toIndex] = from.open[fromIndex]!;
  to.high[toIndex] = from.high[fromIndex]!;
  to.low[toIndex] = from.low[fromIndex]!;
  to.close[toIndex] = from.close[fromIndex]!;
  to.volume[toIndex] = from.volume[fromIndex]!;
  to.turnover[toIndex] = from.turnover[fromIndex]!;
  to.session[toIndex] = from.session[fromIndex]!;
}
