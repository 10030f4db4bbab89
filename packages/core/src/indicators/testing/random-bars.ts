/** OHLCV columns of a bar series, as the batch indicator functions take them. */
export interface Bars {
  open: Float64Array;
  high: Float64Array;
  low: Float64Array;
  close: Float64Array;
  volume: Float64Array;
}

/** Options of `randomBars`. */
export interface RandomBarsOptions {
  /** Price of the first open. */
  start?: number;
  /** Standard deviation of the log return per bar. */
  volatility?: number;
  /** Round prices to this tick (0 = no rounding); a tick makes ties and equal closes common. */
  tick?: number;
  /** Chance per bar of starting a run of 1–40 identical, zero-volume bars (flat windows, no volume). */
  flatRunChance?: number;
}

/** Mulberry32: a small, fast, seedable PRNG, so every test and benchmark series is reproducible. */
export const seededRandom = (seed: number): (() => number) => {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};

/**
 * A reproducible geometric random walk of `length` bars: open = previous close, high and low a
 * random distance beyond the body, integer volumes. With `flatRunChance` it also produces runs
 * of flat zero-volume bars, the degenerate windows indicators must survive.
 */
export const randomBars = (length: number, seed: number, options: RandomBarsOptions = {}): Bars => {
  const { start = 100, volatility = 0.01, tick = 0, flatRunChance = 0 } = options;
  const random = seededRandom(seed);
  const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const round = (price: number) => (tick > 0 ? Math.max(tick, Math.round(price / tick) * tick) : price);
  const bars: Bars = {
    open: new Float64Array(length),
    high: new Float64Array(length),
    low: new Float64Array(length),
    close: new Float64Array(length),
    volume: new Float64Array(length),
  };
  let previous = round(start);
  let flatLeft = 0;
  for (let i = 0; i < length; i++) {
    if (flatLeft === 0 && random() < flatRunChance) flatLeft = 1 + Math.floor(random() * 40);
    if (flatLeft > 0) {
      flatLeft--;
      bars.open[i] = bars.high[i] = bars.low[i] = bars.close[i] = previous;
      continue;
    }
    const open = previous;
    const close = round(open * Math.exp(volatility * normal()));
    const high = round(Math.max(open, close) * (1 + volatility * Math.abs(normal()) * 0.5));
    const low = round(Math.min(open, close) * (1 - volatility * Math.abs(normal()) * 0.5));
    bars.open[i] = open;
    bars.high[i] = Math.max(high, open, close);
    bars.low[i] = Math.min(low, open, close);
    bars.close[i] = close;
    bars.volume[i] = 1000 + Math.floor(random() * 99_000);
    previous = close;
  }
  return bars;
};

/** The seeds of the series the indicators are checked on against other libraries and direct definitions. */
export const REFERENCE_SEEDS = [11, 202, 3003];

/** The reference checks' series of `seed`: 1,500 bars at 1.5 % volatility. */
export const referenceBars = (seed: number): Bars => randomBars(1500, seed, { volatility: 0.015 });
