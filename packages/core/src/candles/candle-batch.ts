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
  /** `length` zeroed candles: the columns are views of one buffer (one allocation, not eight). */
  empty(length = 0): CandleBatch {
    return columnsOver(new ArrayBuffer(length * (8 * FLOAT_COLUMNS + 1)), length);
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
    unique.forEach((candle, index) => {
      CandleBatches.set(batch, index, candle);
    });
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
    indexes.forEach((from, to) => {
      copy(batch, from, result, to);
    });
    return result;
  },

  /** The candles for which `keep(index)` holds and the others, in two batches (the batch itself and an empty one when it keeps all). */
  partition(batch: CandleBatch, keep: (index: number) => boolean): [CandleBatch, CandleBatch] {
    let kept = 0;
    for (let index = 0; index < batch.length; index++) if (keep(index)) kept++;
    if (kept === batch.length) return [batch, CandleBatches.empty()];
    const parts = [CandleBatches.empty(kept), CandleBatches.empty(batch.length - kept)] as const;
    const next = [0, 0];
    for (let index = 0; index < batch.length; index++) {
      const part = keep(index) ? 0 : 1;
      copy(batch, index, parts[part], next[part]!++);
    }
    return [parts[0], parts[1]];
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

  /**
   * Packs columns into one buffer (the stored bucket), lean: a column whose every value is a
   * decimal with at most six places that fits 32 bits as an integer of its last place is stored
   * as that integer (prices, volumes and timestamps usually are), a column of zeros (turnover the
   * provider does not report) as nothing, any other as float64. Each value reads back as the very
   * float64 it was: a column is stored scaled only when every value survives the round trip.
   * The integers are stored as the varint of each one's difference from the one before (a
   * minute's timestamp step and most price steps take one byte), the sessions as runs. About 10
   * to 15 bytes a candle, against 25 for the int32 columns of the lean layout's first version and
   * 57 for plain float64 columns (`unpack` reads both).
   */
  pack(batch: CandleBatch): Uint8Array {
    const n = batch.length;
    const encodings = COLUMNS.map((column) => encodingOf(batch[column]));
    const floats = encodings.filter((e) => e === F64).length;
    // At most: the header, the float64 columns, five bytes a difference (int32 steps, zigzagged, take 33 bits), six a session run.
    const bytes = new Uint8Array(LEAN_HEADER + n * (8 * floats + 5 * (COLUMNS.length - floats) + 6));
    const view = new DataView(bytes.buffer);
    view.setUint8(0, LEAN_TAG);
    view.setUint8(1, LEAN_VERSION);
    view.setUint32(4, n, true);
    encodings.forEach((encoding, index) => {
      view.setInt8(8 + index, encoding);
    });
    let offset = LEAN_HEADER;
    COLUMNS.forEach((column, index) => {
      if (encodings[index] !== F64) return;
      new Float64Array(bytes.buffer, offset, n).set(batch[column]);
      offset += 8 * n;
    });
    COLUMNS.forEach((column, index) => {
      const places = encodings[index]!;
      if (places < 0) return;
      const scale = SCALES[places]!;
      const values = batch[column];
      let previous = 0;
      for (let i = 0; i < n; i++) {
        const units = Math.round(values[i]! * scale);
        offset = writeVarint(bytes, offset, zigzag(units - previous));
        previous = units;
      }
    });
    for (let i = 0; i < n; ) {
      const session = batch.session[i]!;
      let run = 1;
      while (i + run < n && batch.session[i + run] === session) run++;
      bytes[offset++] = session;
      offset = writeVarint(bytes, offset, run);
      i += run;
    }
    return bytes.slice(0, offset);
  },

  /** The inverse of `pack`, for both stored layouts; copies once into an aligned buffer where a layout reads typed arrays out of it. */
  unpack(packed: Uint8Array): CandleBatch {
    if (packed[0] === LEAN_TAG && packed.length >= LEAN_HEADER && packed[1] === LEAN_VERSION && !hasFloatColumn(packed)) return unpackLean(packed);
    const aligned = new Uint8Array(packed.length);
    aligned.set(packed);
    return packed[0] === LEAN_TAG ? unpackLean(aligned) : unpackPlain(aligned);
  },
};

/**
 * The lean layout: a 16-byte header (tag, version, two spare bytes, the candle count as uint32,
 * then one encoding byte per column), the float64 columns, then version 2: each scaled column as
 * zigzag varints of its steps, the sessions as (session byte, varint run length) pairs; version 1:
 * each scaled column as int32, the session bytes. The plain layout before it (7 float64 columns then the session bytes) starts with the
 * low byte of the first timestamp's float64, which is 0 for every whole second below 2^44, so
 * the tag never starts a plain buffer.
 */
const LEAN_TAG = 0xc5;
/** What `pack` writes; version 1 (int32 columns) is still read. */
const LEAN_VERSION = 2;
const LEAN_HEADER = 16;
/** Encodings: a column of zeros, float64, or (0 to 6) int32 counting units of 10^-places. */
const ZEROS = -2;
const F64 = -1;
const SCALES = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000];
const INT32_MAX = 2_147_483_647;

/** Bytes of a version-1 lean block of `n` candles with these column encodings. */
function leanBytes(encodings: readonly number[], n: number): number {
  const floats = encodings.filter((e) => e === F64).length;
  const ints = encodings.filter((e) => e >= 0).length;
  return LEAN_HEADER + n * (8 * floats + 4 * ints + 1);
}

/** The leanest encoding that gives every value back exactly. */
function encodingOf(values: Float64Array): number {
  let zeros = true;
  for (let i = 0; i < values.length && zeros; i++) zeros = values[i] === 0 && !Object.is(values[i], -0);
  if (zeros) return ZEROS;
  places: for (let places = 0; places < SCALES.length; places++) {
    const scale = SCALES[places]!;
    for (let i = 0; i < values.length; i++) {
      const value = values[i]!;
      const units = Math.round(value * scale);
      if (!(Math.abs(units) <= INT32_MAX) || units / scale !== value || Object.is(value, -0)) continue places;
    }
    return places;
  }
  return F64;
}

const zigzag = (step: number) => (step >= 0 ? 2 * step : -2 * step - 1);

/** Writes a non-negative integer below 2^53 as a little-endian base-128 varint; answers the offset after it. */
function writeVarint(bytes: Uint8Array, offset: number, value: number): number {
  while (value >= 128) {
    bytes[offset++] = (value % 128) | 128;
    value = Math.floor(value / 128);
  }
  bytes[offset++] = value;
  return offset;
}

/** Whether a lean block stores a column as float64 (read as a typed array over the block: it must be aligned). */
function hasFloatColumn(packed: Uint8Array): boolean {
  for (let index = 0; index < FLOAT_COLUMNS; index++) if ((packed[8 + index]! << 24) >> 24 === F64) return true;
  return false;
}

/** A lean block; its float64 and (version 1) int32 columns are read in place, so such a block must start its buffer. */
function unpackLean(bytes: Uint8Array): CandleBatch {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = view.getUint8(1);
  if (version !== 1 && version !== LEAN_VERSION) throw new Error(`Candle block version ${version} is not readable here`);
  const n = view.getUint32(4, true);
  const encodings = COLUMNS.map((_, index) => view.getInt8(8 + index));
  const corrupt = () => new Error("Corrupt candle block");
  if (version === 1 && bytes.length !== leanBytes(encodings, n)) throw corrupt();
  const batch = CandleBatches.empty(n);
  let offset = LEAN_HEADER;
  COLUMNS.forEach((column, index) => {
    if (encodings[index] !== F64) return;
    if (offset + 8 * n > bytes.length) throw corrupt();
    batch[column].set(new Float64Array(bytes.buffer, offset, n));
    offset += 8 * n;
  });
  COLUMNS.forEach((column, index) => {
    const places = encodings[index]!;
    if (places < 0) return;
    const scale = SCALES[places]!;
    const target = batch[column];
    if (version === 1) {
      const units = new Int32Array(bytes.buffer, offset, n);
      for (let i = 0; i < n; i++) target[i] = units[i]! / scale;
      offset += 4 * n;
      return;
    }
    offset = readSteps(bytes, offset, target, n, scale);
  });
  if (version === 1) {
    batch.session.set(bytes.subarray(offset, offset + n));
    return batch;
  }
  for (let i = 0; i < n; ) {
    if (offset >= bytes.length) throw corrupt();
    const session = bytes[offset++]!;
    const run = readVarint(bytes, offset);
    offset = varintEnd;
    if (run === 0 || i + run > n) throw corrupt();
    batch.session.fill(session, i, i + run);
    i += run;
  }
  if (offset !== bytes.length) throw corrupt();
  return batch;
}

/** Where the last `readVarint` stopped (a module-level slot: no object per value on the decoding path). */
let varintEnd = 0;

/** The varint at `offset` (its end in `varintEnd`); throws past the end of `bytes`. */
function readVarint(bytes: Uint8Array, offset: number): number {
  let value = 0;
  let factor = 1;
  let byte: number;
  do {
    if (offset >= bytes.length) throw new Error("Corrupt candle block");
    byte = bytes[offset++]!;
    value += (byte & 127) * factor;
    factor *= 128;
  } while (byte >= 128);
  varintEnd = offset;
  return value;
}

/**
 * Decodes `n` zigzag varint steps from `offset` into `target` as running totals over `scale`;
 * answers the offset after them. Most steps take one byte and are read inline.
 */
function readSteps(bytes: Uint8Array, offset: number, target: Float64Array, n: number, scale: number): number {
  let units = 0;
  const end = bytes.length;
  for (let i = 0; i < n; i++) {
    if (offset >= end) throw new Error("Corrupt candle block");
    let step = bytes[offset]!;
    if (step < 128) offset++;
    else {
      step = readVarint(bytes, offset);
      offset = varintEnd;
    }
    units += (step & 1) === 0 ? step / 2 : -(step + 1) / 2;
    target[i] = units / scale;
  }
  return offset;
}

/** The plain layout is the columns' own in memory: read in place. */
function unpackPlain(aligned: Uint8Array): CandleBatch {
  const length = aligned.length / (FLOAT_COLUMNS * 8 + 1);
  if (!Number.isInteger(length)) throw new Error("Corrupt candle block");
  return columnsOver(aligned.buffer as ArrayBuffer, length);
}

/** `length` candles over `buffer` (from its start): the 7 float64 columns one after another, then the session bytes. */
function columnsOver(buffer: ArrayBuffer, length: number): CandleBatch {
  const column = (index: number) => new Float64Array(buffer, index * 8 * length, length);
  return {
    length,
    timestamp: column(0),
    open: column(1),
    high: column(2),
    low: column(3),
    close: column(4),
    volume: column(5),
    turnover: column(6),
    session: new Uint8Array(buffer, FLOAT_COLUMNS * 8 * length, length),
  };
}

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
