import { z } from "zod";
import { CalendarDate } from "../util/time";
import { MarketInput } from "../market/market";
import { MarketDataLimits } from "./market-data";
import { AdjustTypeInput, CalcIndexInput, listInput, PeriodInput, SubTypeInput, TradeSessionsInput } from "./quote-enums";

/**
 * Bodies of the quote pass-through endpoints (`/api-test/pull/*`, `/api-test/subscription/*`),
 * with the service's defaults for the optional fields. Parsing yields canonical values ready for
 * the `MarketData` port.
 */

/** A `YYYY-MM-DD` date; a full ISO date-time is accepted and its date part kept. */
export const DateInput = z
  .string()
  .max(64)
  .regex(/^\d{4}-\d{2}-\d{2}(T.*)?$/, "must be a date in YYYY-MM-DD form")
  .transform((value) => value.slice(0, 10))
  .pipe(CalendarDate);

const SymbolField = z.string().trim().min(1);
const Symbols = listInput(SymbolField, { max: MarketDataLimits.symbolsPerRequest });
const Count = (fallback: number) => z.int().min(1).max(MarketDataLimits.count).default(fallback);

/** Defaults applied when a request leaves a field out. */
export const QuoteRequestDefaults = {
  period: "1d",
  count: 100,
  adjust_type: "NoAdjust",
  trade_sessions: "Intraday",
  is_first_push: false,
} as const;

export const SymbolsRequest = z.object({ symbols: Symbols });
export const SymbolRequest = z.object({ symbol: SymbolField });
export const TradesRequest = z.object({ symbol: SymbolField, count: Count(QuoteRequestDefaults.count) });
export const IntradayRequest = z.object({ symbol: SymbolField, trade_sessions: TradeSessionsInput.default(QuoteRequestDefaults.trade_sessions) });

export const CandlesticksRequest = z.object({
  symbol: SymbolField,
  period: PeriodInput.default(QuoteRequestDefaults.period),
  count: Count(QuoteRequestDefaults.count),
  adjust_type: AdjustTypeInput.default(QuoteRequestDefaults.adjust_type),
  trade_sessions: TradeSessionsInput.default(QuoteRequestDefaults.trade_sessions),
});

export const HistoryCandlesticksRequest = z.object({
  symbol: SymbolField,
  start: DateInput,
  end: DateInput,
  period: PeriodInput.default(QuoteRequestDefaults.period),
  adjust_type: AdjustTypeInput.default(QuoteRequestDefaults.adjust_type),
  trade_sessions: TradeSessionsInput.default(QuoteRequestDefaults.trade_sessions),
});

export const TradingDaysRequest = z.object({ market: MarketInput, begin: DateInput, end: DateInput });

export const CalcIndexesRequest = z.object({ symbols: Symbols, indexes: listInput(CalcIndexInput) });

export const SubscribeRequest = z.object({
  symbols: Symbols,
  sub_types: listInput(SubTypeInput),
  is_first_push: z.boolean().default(QuoteRequestDefaults.is_first_push),
});

export const UnsubscribeRequest = z.object({ symbols: Symbols, sub_types: listInput(SubTypeInput) });

export const RealtimeTradesRequest = TradesRequest;
