import { notFound } from "../errors";
import type { IndicatorMetadata, IndicatorParameter } from "./metadata";
import { ACCELERATION_BOUNDS, MULTIPLIER_BOUNDS, OPTIONAL_PERIOD_BOUNDS, PERIOD_BOUNDS, type ParameterBounds } from "./parameters";

/** Catalog entries describe the code in this folder; bump when a formula or warm-up changes. */
const VERSION = "1.0.0";

const integer = (name: string, defaultValue: number, description: string, bounds: ParameterBounds = PERIOD_BOUNDS): IndicatorParameter => ({
  name,
  type: "integer",
  default: defaultValue,
  ...bounds,
  description,
});

const number = (name: string, defaultValue: number, description: string, bounds: ParameterBounds): IndicatorParameter => ({
  name,
  type: "number",
  default: defaultValue,
  ...bounds,
  description,
});

const single = (description: string) => [{ name: "value", description }];

const bands = (upper: string, middle: string, lower: string) => [
  { name: "upper", description: upper },
  { name: "middle", description: middle },
  { name: "lower", description: lower },
];

const entries: IndicatorMetadata[] = [
  {
    id: "sma",
    name_cn: "简单移动平均线",
    name_en: "Simple Moving Average",
    category: "trend",
    description: {
      summary: "Arithmetic mean of the last `period` values; the baseline trend filter.",
      formula: "SMA_t = (x_t + x_{t-1} + ... + x_{t-period+1}) / period",
      interpretation:
        "Price above a rising SMA suggests an up trend, below a falling SMA a down trend. Crossovers of a short and a long SMA are classic trend-change signals.",
    },
    parameters: [integer("period", 20, "Number of values averaged")],
    outputs: single("Average of the last `period` values"),
    lib_ta: "SMA",
    usage_notes: [
      "Warm-up: NaN for the first period − 1 bars.",
      "Every value in the window weighs the same, so the SMA reacts slowly and jumps when an old outlier leaves the window.",
    ],
    related_indicators: ["ema", "wma", "bollinger_bands"],
    version: VERSION,
  },
  {
    id: "ema",
    name_cn: "指数移动平均线",
    name_en: "Exponential Moving Average",
    category: "trend",
    description: {
      summary: "Moving average whose weights decay geometrically, so recent values count more.",
      formula: "k = 2 / (period + 1); EMA_t = (x_t − EMA_{t−1}) · k + EMA_{t−1}; seeded with the SMA of the first `period` values",
      interpretation: "Reacts faster than an SMA of the same period; used for trend direction, dynamic support and crossovers.",
    },
    parameters: [integer("period", 20, "Smoothing period; k = 2 / (period + 1)")],
    outputs: single("Exponential moving average"),
    lib_ta: "EMA",
    usage_notes: [
      "Warm-up: NaN for the first period − 1 bars; the first value is the SMA of the first period values (TA-Lib seed).",
      "Libraries that seed with the first price instead agree after a few multiples of the period.",
    ],
    related_indicators: ["sma", "wma", "macd", "keltner_channels"],
    version: VERSION,
  },
  {
    id: "wma",
    name_cn: "加权移动平均线",
    name_en: "Weighted Moving Average",
    category: "trend",
    description: {
      summary: "Linearly weighted moving average: the newest value weighs `period`, the oldest 1.",
      formula: "WMA_t = Σ_{i=0}^{period−1} (period − i) · x_{t−i} / (period · (period + 1) / 2)",
      interpretation: "Follows price more closely than an SMA and, unlike an EMA, forgets values completely once they leave the window.",
    },
    parameters: [integer("period", 20, "Number of values averaged")],
    outputs: single("Weighted average of the last `period` values"),
    lib_ta: "WMA",
    usage_notes: ["Warm-up: NaN for the first period − 1 bars."],
    related_indicators: ["sma", "ema"],
    version: VERSION,
  },
  {
    id: "rsi",
    name_cn: "相对强弱指数",
    name_en: "Relative Strength Index",
    category: "momentum",
    description: {
      summary: "Wilder's oscillator comparing the size of recent gains with recent losses, from 0 to 100.",
      formula:
        "avgGain, avgLoss: means of the first `period` gains / losses, then avg = (avg · (period − 1) + move) / period; RSI = 100 · avgGain / (avgGain + avgLoss)",
      interpretation:
        "Above 70 is commonly read as overbought, below 30 as oversold; divergences from price warn of exhaustion; 50 splits bullish from bearish momentum.",
    },
    parameters: [integer("period", 14, "Wilder smoothing period")],
    outputs: single("RSI in [0, 100]"),
    lib_ta: "RSI",
    usage_notes: [
      "Warm-up: NaN for the first period bars (period price changes are needed).",
      "A window with no price change at all reads 0, as in TA-Lib.",
      "Wilder smoothing has a long memory: values depend on history well beyond `period` bars, so start a few hundred bars early for stable values.",
    ],
    related_indicators: ["stochastic", "mfi", "williams_r", "cci"],
    version: VERSION,
  },
  {
    id: "macd",
    name_cn: "指数平滑异同移动平均线",
    name_en: "Moving Average Convergence Divergence",
    category: "momentum",
    description: {
      summary: "Difference between a fast and a slow EMA, with an EMA of that difference as signal line.",
      formula: "macd = EMA(fast_period) − EMA(slow_period); signal = EMA(macd, signal_period); histogram = macd − signal",
      interpretation:
        "macd crossing above the signal (histogram turning positive) is a bullish signal, crossing below bearish; the zero line separates up from down momentum.",
    },
    parameters: [
      integer("fast_period", 12, "Fast EMA period; must be less than slow_period"),
      integer("slow_period", 26, "Slow EMA period"),
      integer("signal_period", 9, "EMA period of the signal line"),
    ],
    outputs: [
      { name: "macd", description: "Fast EMA minus slow EMA" },
      { name: "signal", description: "EMA of the macd line" },
      { name: "histogram", description: "macd minus signal" },
    ],
    lib_ta: "MACD",
    usage_notes: [
      "Warm-up: all three outputs are NaN for the first slow_period + signal_period − 2 bars (33 with defaults), as in TA-Lib.",
      "TA-Lib seeding: both EMAs start at bar slow_period − 1; the fast EMA is seeded with the SMA of the fast_period values ending there, not of the first fast_period values.",
    ],
    related_indicators: ["ema", "rsi", "roc"],
    version: VERSION,
  },
  {
    id: "bollinger_bands",
    name_cn: "布林带",
    name_en: "Bollinger Bands",
    category: "volatility",
    description: {
      summary: "An SMA with bands a number of standard deviations above and below it.",
      formula: "middle = SMA(period); σ = population standard deviation of the same window; upper/lower = middle ± std_dev · σ",
      interpretation: "Narrow bands (a squeeze) precede volatility expansions; closes outside the bands signal strong moves or, in ranges, likely reversals.",
    },
    parameters: [
      integer("period", 20, "Window of the SMA and the standard deviation"),
      number("std_dev", 2, "Band width in standard deviations", MULTIPLIER_BOUNDS),
    ],
    outputs: bands("middle + std_dev · σ", "SMA of the window", "middle − std_dev · σ"),
    lib_ta: "BBANDS",
    usage_notes: [
      "Warm-up: NaN for the first period − 1 bars.",
      "Population standard deviation (divides by period), as TA-Lib and Bollinger define it.",
      "The middle line equals the SMA indicator exactly.",
    ],
    related_indicators: ["sma", "keltner_channels", "donchian_channels", "atr"],
    version: VERSION,
  },
  {
    id: "atr",
    name_cn: "平均真实波幅",
    name_en: "Average True Range",
    category: "volatility",
    description: {
      summary: "Wilder's average of the true range, the bar's range extended to the previous close.",
      formula:
        "TR = max(high − low, |high − prev close|, |low − prev close|); ATR seeded with the mean of TR over bars 1..period, then ATR = (ATR · (period − 1) + TR) / period",
      interpretation: "Measures volatility in price units; used to size positions and to place stops a multiple of ATR away.",
    },
    parameters: [integer("period", 14, "Wilder smoothing period")],
    outputs: single("Average true range in price units"),
    lib_ta: "ATR",
    usage_notes: [
      "Warm-up: NaN for the first period bars; the first bar has no previous close and contributes no true range (TA-Lib).",
      "Libraries that count the first bar's high − low as a true range start one bar earlier and converge after a few hundred bars.",
    ],
    related_indicators: ["keltner_channels", "supertrend", "adx", "bollinger_bands"],
    version: VERSION,
  },
  {
    id: "stochastic",
    name_cn: "随机指标",
    name_en: "Stochastic Oscillator",
    category: "momentum",
    description: {
      summary: "Where the close sits within the recent high-low range, smoothed into slow %K and %D.",
      formula: "fast %K = 100 · (close − lowest low) / (highest high − lowest low) over k_period; k = SMA(fast %K, k_smoothing); d = SMA(k, d_period)",
      interpretation: "Above 80 is overbought, below 20 oversold; k crossing d gives entry signals, best taken in the direction of the trend.",
    },
    parameters: [
      integer("k_period", 14, "Look-back of the highest high and lowest low"),
      integer("k_smoothing", 3, "SMA period that turns fast %K into slow %K (1 = fast stochastic)"),
      integer("d_period", 3, "SMA period of %D"),
    ],
    outputs: [
      { name: "k", description: "Slow %K in [0, 100]" },
      { name: "d", description: "%D, the SMA of k" },
    ],
    lib_ta: "STOCH",
    usage_notes: [
      "Warm-up: both outputs NaN for the first k_period + k_smoothing + d_period − 3 bars, as in TA-Lib.",
      "A window whose highest high equals its lowest low gives fast %K = 0 (TA-Lib).",
      "Parameters follow TA-Lib order (fastk, slowk, slowd); use k_smoothing = 1 for the fast stochastic.",
    ],
    related_indicators: ["williams_r", "rsi", "donchian_channels"],
    version: VERSION,
  },
  {
    id: "adx",
    name_cn: "平均趋向指数",
    name_en: "Average Directional Index",
    category: "trend",
    description: {
      summary: "Wilder's measure of trend strength, with the +DI and −DI lines it is built from.",
      formula:
        "+DM/−DM from consecutive highs and lows, Wilder-smoothed with TR; ±DI = 100 · ±DM / TR; DX = 100 · |+DI − −DI| / (+DI + −DI); ADX = Wilder average of DX",
      interpretation: "ADX above 25 marks a trending market, below 20 a range; +DI above −DI says the trend is up. ADX measures strength, not direction.",
    },
    parameters: [integer("period", 14, "Wilder smoothing period")],
    outputs: [
      { name: "adx", description: "Average directional index in [0, 100]" },
      { name: "plusDi", description: "+DI in [0, 100]" },
      { name: "minusDi", description: "−DI in [0, 100]" },
    ],
    lib_ta: "ADX",
    usage_notes: [
      "Warm-up: plusDi and minusDi are defined from bar period (TA-Lib PLUS_DI / MINUS_DI), adx from bar 2 · period − 1 (TA-Lib ADX).",
      "Double Wilder smoothing gives a long memory; allow several hundred bars before comparing with other libraries.",
    ],
    related_indicators: ["atr", "parabolic_sar", "supertrend"],
    version: VERSION,
  },
  {
    id: "cci",
    name_cn: "顺势指标",
    name_en: "Commodity Channel Index",
    category: "momentum",
    description: {
      summary: "Distance of the typical price from its average, in units of its mean absolute deviation.",
      formula: "tp = (high + low + close) / 3; CCI = (tp − SMA(tp)) / (0.015 · mean |tp − SMA(tp)|) over `period` bars",
      interpretation: "Readings above +100 mark unusual strength, below −100 unusual weakness; the 0.015 constant puts most values within ±100.",
    },
    parameters: [integer("period", 20, "Window of the average and the mean deviation")],
    outputs: single("CCI (unbounded, mostly within ±200)"),
    lib_ta: "CCI",
    usage_notes: [
      "Warm-up: NaN for the first period − 1 bars.",
      "A flat window (mean deviation below 1e-12 of the mean) reads 0 rather than rounding noise.",
      "The default period is Lambert's 20; TA-Lib's default is 14.",
    ],
    related_indicators: ["rsi", "williams_r", "bollinger_bands"],
    version: VERSION,
  },
  {
    id: "obv",
    name_cn: "能量潮",
    name_en: "On-Balance Volume",
    category: "volume",
    description: {
      summary: "Running total of volume, added on up closes and subtracted on down closes.",
      formula: "OBV_0 = volume_0; OBV_t = OBV_{t−1} + volume_t if close rose, − volume_t if it fell, unchanged otherwise",
      interpretation: "Rising OBV confirms an up trend; OBV diverging from price warns that the move lacks volume support.",
    },
    parameters: [],
    outputs: single("Cumulative on-balance volume"),
    lib_ta: "OBV",
    usage_notes: [
      "No warm-up: the first bar's OBV is its volume (TA-Lib); libraries that start at 0 differ by that constant.",
      "Only the shape matters; the level depends on where the series starts.",
    ],
    related_indicators: ["vwap", "mfi"],
    version: VERSION,
  },
  {
    id: "vwap",
    name_cn: "成交量加权平均价",
    name_en: "Volume Weighted Average Price",
    category: "volume",
    description: {
      summary: "Average typical price weighted by volume, anchored at a session start or over a rolling window.",
      formula: "VWAP = Σ(tp · volume) / Σ volume, tp = (high + low + close) / 3, summed since the anchor (period 0) or over the last `period` bars",
      interpretation: "Institutional benchmark of fair price: trading above VWAP shows buyers in control; intraday pullbacks to VWAP are common entries.",
    },
    parameters: [integer("period", 0, "Rolling window in bars; 0 anchors at the first bar or the last reset", OPTIONAL_PERIOD_BOUNDS)],
    outputs: single("Volume weighted average price"),
    lib_ta: null,
    usage_notes: [
      "Anchored (period 0): defined from the first bar; call reset() on the streaming form at each session open for a session VWAP, or run the batch form per session.",
      "Rolling (period > 0): NaN for the first period − 1 bars.",
      "NaN while the bars counted carry no volume.",
    ],
    related_indicators: ["obv", "mfi", "sma"],
    version: VERSION,
  },
  {
    id: "mfi",
    name_cn: "资金流量指数",
    name_en: "Money Flow Index",
    category: "volume",
    description: {
      summary: "A volume-weighted RSI: the share of recent money flow that came on rising typical prices.",
      formula:
        "tp = (high + low + close) / 3; flow = tp · volume, positive when tp rose, negative when it fell; MFI = 100 · Σ positive / (Σ positive + Σ negative) over `period` bars",
      interpretation: "Above 80 overbought, below 20 oversold; divergences between MFI and price flag weakening moves.",
    },
    parameters: [integer("period", 14, "Number of money flows summed")],
    outputs: single("MFI in [0, 100]"),
    lib_ta: "MFI",
    usage_notes: [
      "Warm-up: NaN for the first period bars.",
      "A window without any money flow reads 0; TA-Lib returns 0 whenever the total flow is below 1.0, which this implementation does not copy.",
    ],
    related_indicators: ["rsi", "obv", "vwap"],
    version: VERSION,
  },
  {
    id: "williams_r",
    name_cn: "威廉指标",
    name_en: "Williams %R",
    category: "momentum",
    description: {
      summary: "Where the close sits below the recent highest high, as a percentage of the high-low range.",
      formula: "%R = −100 · (highest high − close) / (highest high − lowest low) over `period` bars",
      interpretation: "Above −20 is overbought, below −80 oversold; it is the fast stochastic shifted down by 100.",
    },
    parameters: [integer("period", 14, "Look-back of the highest high and lowest low")],
    outputs: single("%R in [−100, 0]"),
    lib_ta: "WILLR",
    usage_notes: ["Warm-up: NaN for the first period − 1 bars.", "A flat window reads 0 (TA-Lib)."],
    related_indicators: ["stochastic", "rsi", "cci"],
    version: VERSION,
  },
  {
    id: "roc",
    name_cn: "变动率指标",
    name_en: "Rate of Change",
    category: "momentum",
    description: {
      summary: "Percentage change of the value over `period` bars.",
      formula: "ROC = (x_t / x_{t−period} − 1) · 100",
      interpretation: "Positive and rising ROC shows accelerating up momentum; zero-line crossings and divergences are the usual signals.",
    },
    parameters: [integer("period", 10, "Number of bars looked back")],
    outputs: single("Change in percent"),
    lib_ta: "ROC",
    usage_notes: ["Warm-up: NaN for the first period bars.", "Reads 0 when the earlier value is 0 (TA-Lib)."],
    related_indicators: ["macd", "rsi"],
    version: VERSION,
  },
  {
    id: "keltner_channels",
    name_cn: "肯特纳通道",
    name_en: "Keltner Channels",
    category: "volatility",
    description: {
      summary: "An EMA of the close with bands a multiple of the ATR above and below it.",
      formula: "middle = EMA(close, period); upper/lower = middle ± multiplier · ATR(atr_period)",
      interpretation: "Closes outside the channel signal trend strength; Bollinger Bands inside the Keltner Channels mark a volatility squeeze.",
    },
    parameters: [
      integer("period", 20, "EMA period of the middle line"),
      number("multiplier", 2, "Band width in ATRs", MULTIPLIER_BOUNDS),
      integer("atr_period", 10, "ATR period"),
    ],
    outputs: bands("middle + multiplier · ATR", "EMA of the close", "middle − multiplier · ATR"),
    lib_ta: null,
    usage_notes: [
      "Warm-up: all lines NaN for the first max(period − 1, atr_period) bars.",
      "This is the modern (Raschke, StockCharts) form; Keltner's original used a 10-bar SMA of the typical price and the average high − low range.",
    ],
    related_indicators: ["bollinger_bands", "atr", "ema", "donchian_channels"],
    version: VERSION,
  },
  {
    id: "donchian_channels",
    name_cn: "唐奇安通道",
    name_en: "Donchian Channels",
    category: "volatility",
    description: {
      summary: "Highest high and lowest low of the last `period` bars, with their midpoint.",
      formula: "upper = max(high, period); lower = min(low, period); middle = (upper + lower) / 2",
      interpretation: "A close beyond the previous bar's channel is the classic breakout (Turtle) entry; the width measures the recent range.",
    },
    parameters: [integer("period", 20, "Look-back in bars, including the current bar")],
    outputs: bands("Highest high", "Midpoint of upper and lower", "Lowest low"),
    lib_ta: null,
    usage_notes: [
      "Warm-up: NaN for the first period − 1 bars.",
      "The channel includes the current bar, so the current high can never break above it; compare with the previous bar's channel for breakouts.",
    ],
    related_indicators: ["keltner_channels", "bollinger_bands", "stochastic"],
    version: VERSION,
  },
  {
    id: "parabolic_sar",
    name_cn: "抛物线转向指标",
    name_en: "Parabolic SAR",
    category: "trend",
    description: {
      summary: "Wilder's stop-and-reverse trailing stop that accelerates towards price as a trend extends.",
      formula:
        "SAR_{t+1} = SAR_t + af · (ep − SAR_t); af starts at `acceleration`, grows by it at each new extreme point ep, capped at `maximum`; on a cross the SAR jumps to the last ep and the trend reverses",
      interpretation: "SAR below price marks an up trend and a trailing stop; a flip to above price is an exit or reversal signal.",
    },
    parameters: [
      number("acceleration", 0.02, "Initial acceleration factor and its step; must not exceed maximum", ACCELERATION_BOUNDS),
      number("maximum", 0.2, "Ceiling of the acceleration factor", ACCELERATION_BOUNDS),
    ],
    outputs: single("Stop-and-reverse level for the bar"),
    lib_ta: "SAR",
    usage_notes: [
      "Warm-up: NaN on the first bar; the initial direction comes from TA-Lib's one-bar −DM test on bars 0 and 1.",
      "The streaming form also exposes `direction` (1 while SAR is below price, −1 while above).",
      "Implementations differ in their start-up; values agree with other libraries once both have reversed at the same bar.",
    ],
    related_indicators: ["supertrend", "adx", "atr"],
    version: VERSION,
  },
  {
    id: "ichimoku",
    name_cn: "一目均衡表",
    name_en: "Ichimoku Kinko Hyo",
    category: "trend",
    description: {
      summary: "Hosoda's system of range midpoints: conversion and base lines, a displaced cloud and a lagging close.",
      formula:
        "tenkan = mid(tenkan_period); kijun = mid(kijun_period); senkouA = (tenkan + kijun) / 2 and senkouB = mid(senkou_b_period), both shifted forward `displacement` bars; chikou = close shifted back; mid(n) = (highest high + lowest low) / 2 over n bars",
      interpretation:
        "Price above the cloud is bullish, below bearish, inside neutral; tenkan crossing kijun is the entry signal; a thick cloud is strong support or resistance.",
    },
    parameters: [
      integer("tenkan_period", 9, "Conversion line look-back"),
      integer("kijun_period", 26, "Base line look-back"),
      integer("senkou_b_period", 52, "Leading span B look-back"),
      integer("displacement", 26, "Bars the leading spans are shifted forward (and chikou back)", OPTIONAL_PERIOD_BOUNDS),
    ],
    outputs: [
      { name: "tenkan", description: "Conversion line at the current bar" },
      { name: "kijun", description: "Base line at the current bar" },
      { name: "senkouA", description: "Leading span A in force at the current bar (computed displacement bars ago)" },
      { name: "senkouB", description: "Leading span B in force at the current bar (computed displacement bars ago)" },
      { name: "chikou", description: "The current close, which charts draw displacement bars back" },
    ],
    lib_ta: null,
    usage_notes: [
      "No look-ahead: every output at a bar uses that bar and earlier ones only, so backtests cannot peek.",
      "senkouA/senkouB are returned already displaced: they are the cloud under the current bar. Warm-up: tenkan from bar tenkan_period − 1, kijun from kijun_period − 1, senkouA from max(tenkan_period, kijun_period) − 1 + displacement, senkouB from senkou_b_period − 1 + displacement (77 with defaults).",
      "chikou is the current close; the classic chikou signal compares it with the price displacement bars earlier.",
      "TradingView draws the spans displacement − 1 bars ahead; pass displacement 25 to match its charts.",
    ],
    related_indicators: ["donchian_channels", "supertrend", "sma"],
    version: VERSION,
  },
  {
    id: "supertrend",
    name_cn: "超级趋势指标",
    name_en: "SuperTrend",
    category: "trend",
    description: {
      summary: "An ATR trailing stop around the bar midpoint that flips sides when the close crosses it.",
      formula:
        "basic bands = (high + low) / 2 ± multiplier · ATR(period); the lower band may only rise and the upper band only fall while the trend holds; the line is the lower band in an up trend, the upper band in a down trend",
      interpretation: "Price above the line (direction 1) is an up trend and the line a trailing stop; a flip of direction is the trade signal.",
    },
    parameters: [integer("period", 10, "ATR period"), number("multiplier", 3, "Band distance in ATRs", MULTIPLIER_BOUNDS)],
    outputs: [
      { name: "value", description: "SuperTrend line (trailing stop level)" },
      { name: "direction", description: "1 in an up trend (line below price), −1 in a down trend" },
    ],
    lib_ta: null,
    usage_notes: [
      "Warm-up: NaN for the first period bars (the ATR's warm-up); the first defined bar starts in a down trend, as TradingView's ta.supertrend does, unless its close is already above the upper band.",
      "Direction signs are the reverse of TradingView's ta.supertrend, which returns −1 for up.",
      "Uses this library's ATR (TA-Lib seed); TradingView's ATR starts one bar earlier and converges after a few hundred bars.",
    ],
    related_indicators: ["atr", "parabolic_sar", "keltner_channels"],
    version: VERSION,
  },
];

const deepFreeze = <T>(value: T): T => {
  if (value !== null && typeof value === "object") {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
};

/** Every indicator the platform computes, in presentation order. */
export const catalog: readonly IndicatorMetadata[] = deepFreeze(entries);

const byId = new Map(catalog.map((entry) => [entry.id, entry]));

/** Identifiers of every indicator in the catalog. */
export const ids: readonly string[] = Object.freeze(catalog.map((entry) => entry.id));

/** The catalog entry for `id`; throws INDICATOR_NOT_FOUND (404) for an unknown id. */
export const get = (id: string): IndicatorMetadata => {
  const entry = byId.get(id);
  if (!entry) throw notFound("INDICATOR_NOT_FOUND", `Indicator '${id}' not found; known indicators: ${ids.join(", ")}`);
  return entry;
};
