import fc from "fast-check";
import * as Library from "../index";
import type { Bars } from "./random-bars";

/** Named outputs of one bar (single-output indicators use `value`). */
export type Outputs = Record<string, number>;

/** A streaming indicator driven bar by bar from a `Bars` series. */
export interface StreamDriver {
  update(bars: Bars, index: number): Outputs;
  readonly isReady: boolean;
  reset(): void;
}

/** How the shared tests build, feed and check one indicator. */
export interface IndicatorCase {
  /** Catalog id. */
  id: string;
  /** Positional constructor / batch parameters to explore, small enough to warm up on short series. */
  parameters: fc.Arbitrary<number[]>;
  /** Batch form: every output line over the whole series. */
  batch(bars: Bars, parameters: number[]): Record<string, Float64Array>;
  /** Streaming form. */
  stream(parameters: number[]): StreamDriver;
  /** Index of the first defined value of each output (TA-Lib lookback where TA-Lib has the function). */
  firstIndex(parameters: number[]): Record<string, number>;
}

const period = (max = 40) => fc.integer({ min: 1, max });
const multiplier = fc.double({ min: 0, max: 5, noNaN: true });

type Streaming<TArgs extends unknown[], TOut> = {
  update(...args: TArgs): TOut;
  readonly isReady: boolean;
  reset(): void;
};

const single = <TArgs extends unknown[]>(indicator: Streaming<TArgs, number>, pick: (bars: Bars, index: number) => TArgs): StreamDriver => ({
  update: (bars, index) => ({ value: indicator.update(...pick(bars, index)) }),
  get isReady() {
    return indicator.isReady;
  },
  reset: () => indicator.reset(),
});

const multi = <TArgs extends unknown[], TOut extends object>(indicator: Streaming<TArgs, TOut>, pick: (bars: Bars, index: number) => TArgs): StreamDriver => ({
  update: (bars, index) => ({ ...indicator.update(...pick(bars, index)) }) as Outputs,
  get isReady() {
    return indicator.isReady;
  },
  reset: () => indicator.reset(),
});

const close = (bars: Bars, i: number): [number] => [bars.close[i]];
const hl = (bars: Bars, i: number): [number, number] => [bars.high[i], bars.low[i]];
const hlc = (bars: Bars, i: number): [number, number, number] => [bars.high[i], bars.low[i], bars.close[i]];
const hlcv = (bars: Bars, i: number): [number, number, number, number] => [bars.high[i], bars.low[i], bars.close[i], bars.volume[i]];
const all = (keys: string[], index: number) => Object.fromEntries(keys.map((key) => [key, index]));

/** Every indicator of the library, in catalog order. */
export const indicatorCases: IndicatorCase[] = [
  {
    id: "sma",
    parameters: fc.tuple(period()),
    batch: (b, [p]) => ({ value: Library.sma(b.close, p) }),
    stream: ([p]) => single(new Library.Sma(p), close),
    firstIndex: ([p]) => ({ value: p - 1 }),
  },
  {
    id: "ema",
    parameters: fc.tuple(period()),
    batch: (b, [p]) => ({ value: Library.ema(b.close, p) }),
    stream: ([p]) => single(new Library.Ema(p), close),
    firstIndex: ([p]) => ({ value: p - 1 }),
  },
  {
    id: "wma",
    parameters: fc.tuple(period()),
    batch: (b, [p]) => ({ value: Library.wma(b.close, p) }),
    stream: ([p]) => single(new Library.Wma(p), close),
    firstIndex: ([p]) => ({ value: p - 1 }),
  },
  {
    id: "rsi",
    parameters: fc.tuple(period()),
    batch: (b, [p]) => ({ value: Library.rsi(b.close, p) }),
    stream: ([p]) => single(new Library.Rsi(p), close),
    firstIndex: ([p]) => ({ value: p }),
  },
  {
    id: "macd",
    parameters: fc.tuple(period(20), period(20), period(15)).map(([fast, extra, signal]) => [fast, fast + extra, signal]),
    batch: (b, [f, s, g]) => ({ ...Library.macd(b.close, f, s, g) }),
    stream: ([f, s, g]) => multi(new Library.Macd(f, s, g), close),
    firstIndex: ([, s, g]) => all(["macd", "signal", "histogram"], s + g - 2),
  },
  {
    id: "bollinger_bands",
    parameters: fc.tuple(period(), multiplier),
    batch: (b, [p, k]) => ({ ...Library.bollingerBands(b.close, p, k) }),
    stream: ([p, k]) => multi(new Library.BollingerBands(p, k), close),
    firstIndex: ([p]) => all(["upper", "middle", "lower"], p - 1),
  },
  {
    id: "atr",
    parameters: fc.tuple(period()),
    batch: (b, [p]) => ({ value: Library.atr(b.high, b.low, b.close, p) }),
    stream: ([p]) => single(new Library.Atr(p), hlc),
    firstIndex: ([p]) => ({ value: p }),
  },
  {
    id: "stochastic",
    parameters: fc.tuple(period(), period(8), period(8)),
    batch: (b, [k, s, d]) => ({ ...Library.stochastic(b.high, b.low, b.close, k, s, d) }),
    stream: ([k, s, d]) => multi(new Library.Stochastic(k, s, d), hlc),
    firstIndex: ([k, s, d]) => all(["k", "d"], k + s + d - 3),
  },
  {
    id: "adx",
    parameters: fc.tuple(period()),
    batch: (b, [p]) => ({ ...Library.adx(b.high, b.low, b.close, p) }),
    stream: ([p]) => multi(new Library.Adx(p), hlc),
    firstIndex: ([p]) => ({ adx: 2 * p - 1, plusDi: p, minusDi: p }),
  },
  {
    id: "cci",
    parameters: fc.tuple(period()),
    batch: (b, [p]) => ({ value: Library.cci(b.high, b.low, b.close, p) }),
    stream: ([p]) => single(new Library.Cci(p), hlc),
    firstIndex: ([p]) => ({ value: p - 1 }),
  },
  {
    id: "obv",
    parameters: fc.constant([]),
    batch: (b) => ({ value: Library.obv(b.close, b.volume) }),
    stream: () => single(new Library.Obv(), (bars, i) => [bars.close[i], bars.volume[i]] as [number, number]),
    firstIndex: () => ({ value: 0 }),
  },
  {
    id: "vwap",
    parameters: fc.tuple(fc.integer({ min: 0, max: 40 })),
    batch: (b, [p]) => ({ value: Library.vwap(b.high, b.low, b.close, b.volume, p) }),
    stream: ([p]) => single(new Library.Vwap(p), hlcv),
    firstIndex: ([p]) => ({ value: Math.max(p - 1, 0) }),
  },
  {
    id: "mfi",
    parameters: fc.tuple(period()),
    batch: (b, [p]) => ({ value: Library.mfi(b.high, b.low, b.close, b.volume, p) }),
    stream: ([p]) => single(new Library.Mfi(p), hlcv),
    firstIndex: ([p]) => ({ value: p }),
  },
  {
    id: "williams_r",
    parameters: fc.tuple(period()),
    batch: (b, [p]) => ({ value: Library.williamsR(b.high, b.low, b.close, p) }),
    stream: ([p]) => single(new Library.WilliamsR(p), hlc),
    firstIndex: ([p]) => ({ value: p - 1 }),
  },
  {
    id: "roc",
    parameters: fc.tuple(period()),
    batch: (b, [p]) => ({ value: Library.roc(b.close, p) }),
    stream: ([p]) => single(new Library.Roc(p), close),
    firstIndex: ([p]) => ({ value: p }),
  },
  {
    id: "keltner_channels",
    parameters: fc.tuple(period(), multiplier, period()),
    batch: (b, [p, k, a]) => ({ ...Library.keltnerChannels(b.high, b.low, b.close, p, k, a) }),
    stream: ([p, k, a]) => multi(new Library.KeltnerChannels(p, k, a), hlc),
    firstIndex: ([p, , a]) => all(["upper", "middle", "lower"], Math.max(p - 1, a)),
  },
  {
    id: "donchian_channels",
    parameters: fc.tuple(period()),
    batch: (b, [p]) => ({ ...Library.donchianChannels(b.high, b.low, p) }),
    stream: ([p]) => multi(new Library.DonchianChannels(p), hl),
    firstIndex: ([p]) => all(["upper", "middle", "lower"], p - 1),
  },
  {
    id: "parabolic_sar",
    parameters: fc
      .tuple(fc.double({ min: 0.001, max: 0.2, noNaN: true }), fc.double({ min: 0, max: 0.5, noNaN: true }))
      .map(([step, extra]) => [step, Math.min(1, step + extra)]),
    batch: (b, [a, m]) => ({ value: Library.parabolicSar(b.high, b.low, a, m) }),
    stream: ([a, m]) => single(new Library.ParabolicSar(a, m), hl),
    firstIndex: () => ({ value: 1 }),
  },
  {
    id: "ichimoku",
    parameters: fc.tuple(period(20), period(30), period(60), fc.integer({ min: 0, max: 30 })),
    batch: (b, [t, k, s, d]) => ({ ...Library.ichimoku(b.high, b.low, b.close, t, k, s, d) }),
    stream: ([t, k, s, d]) => multi(new Library.Ichimoku(t, k, s, d), hlc),
    firstIndex: ([t, k, s, d]) => ({
      tenkan: t - 1,
      kijun: k - 1,
      senkouA: Math.max(t, k) - 1 + d,
      senkouB: s - 1 + d,
      chikou: 0,
    }),
  },
  {
    id: "supertrend",
    parameters: fc.tuple(period(), multiplier),
    batch: (b, [p, k]) => ({ ...Library.superTrend(b.high, b.low, b.close, p, k) }),
    stream: ([p, k]) => multi(new Library.SuperTrend(p, k), hlc),
    firstIndex: ([p]) => all(["value", "direction"], p),
  },
];

/** Runs the streaming form over the whole series, one output object per bar. */
export const streamAll = (driver: StreamDriver, bars: Bars): Outputs[] => {
  const outputs: Outputs[] = [];
  for (let i = 0; i < bars.close.length; i++) outputs.push(driver.update(bars, i));
  return outputs;
};

/** Index of the first non-NaN value, or -1. */
export const firstDefined = (values: ArrayLike<number>): number => {
  for (let i = 0; i < values.length; i++) if (!Number.isNaN(values[i])) return i;
  return -1;
};
