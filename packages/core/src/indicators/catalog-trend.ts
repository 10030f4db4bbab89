/**
 * The indicator catalog's entries for the trend indicators (the SMA, EMA and WMA moving averages, ADX,
 * Parabolic SAR, Ichimoku and SuperTrend): each entry's description, formula, parameters, outputs and
 * usage notes. catalog.ts lists them, with the other categories', in presentation order.
 */
import type { IndicatorMetadata } from "./metadata";
import { integer, number, single, VERSION } from "./catalog-parts";
import { ACCELERATION_BOUNDS, MULTIPLIER_BOUNDS, OPTIONAL_PERIOD_BOUNDS } from "./parameters";

export const sma: IndicatorMetadata = {
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
};

export const ema: IndicatorMetadata = {
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
};

export const wma: IndicatorMetadata = {
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
};

export const adx: IndicatorMetadata = {
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
};

export const parabolicSar: IndicatorMetadata = {
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
};

export const ichimoku: IndicatorMetadata = {
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
};

export const supertrend: IndicatorMetadata = {
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
};
