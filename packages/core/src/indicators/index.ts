/**
 * Technical indicators for backtests (batch functions over Float64Array) and live sessions
 * (streaming classes with O(1) work per bar), giving bit-identical values, plus the metadata
 * catalog served by the indicators endpoints. Conventions: docs/indicators.md.
 */
import { catalog, get, ids } from "./catalog";

/** The indicator catalog: `Indicators.catalog`, `Indicators.get(id)`, `Indicators.ids`. */
export const Indicators = { catalog, get, ids };

export { IndicatorCategory, IndicatorDescription, IndicatorMetadata, IndicatorOutput, IndicatorParameter } from "./metadata";
export type { BandSeries, BandValue } from "./types";

export { Adx, adx, type AdxSeries, type AdxValue } from "./adx";
export { Atr, atr, trueRange } from "./atr";
export { BollingerBands, bollingerBands } from "./bollinger-bands";
export { CCI_DIRECT_SCAN_LIMIT, Cci, cci } from "./cci";
export { DonchianChannels, donchianChannels } from "./donchian-channels";
export { Ema, ema } from "./ema";
export { Ichimoku, ichimoku, type IchimokuSeries, type IchimokuValue } from "./ichimoku";
export { KeltnerChannels, keltnerChannels } from "./keltner-channels";
export { Macd, macd, type MacdSeries, type MacdValue } from "./macd";
export { Mfi, mfi } from "./mfi";
export { Obv, obv } from "./obv";
export { ParabolicSar, parabolicSar } from "./parabolic-sar";
export { Roc, roc } from "./roc";
export { Rsi, rsi } from "./rsi";
export { Sma, sma } from "./sma";
export { Stochastic, stochastic, type StochasticSeries, type StochasticValue } from "./stochastic";
export { SuperTrend, superTrend, type SuperTrendSeries, type SuperTrendValue } from "./super-trend";
export { Vwap, vwap } from "./vwap";
export { WilliamsR, williamsR } from "./williams-r";
export { Wma, wma } from "./wma";
