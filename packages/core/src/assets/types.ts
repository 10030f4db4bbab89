import { z } from "zod";
import { Dec } from "../money/decimal";
import type { CurrencyType } from "../money/currency";
import { CalendarDate, isRealDate } from "../util/time";

/** Markets as LongPort names them: `US`, `HK`, `CN` (Shanghai `.SH` and Shenzhen `.SZ`), `SG`. */
export const MarketType = z.enum(["US", "HK", "CN", "SG"]).meta({ id: "MarketType" });
export type MarketType = z.infer<typeof MarketType>;

/** What a position holds. Options carry `option_type`, `strike_price`, `expiry_date` and usually a multiplier of 100. */
export const AssetType = z.enum(["stock", "etf", "option", "warrant", "cbbc", "fund", "bond"]).meta({ id: "AssetType" });
export type AssetType = z.infer<typeof AssetType>;

export const OptionType = z.enum(["call", "put"]).meta({ id: "OptionType" });
export type OptionType = z.infer<typeof OptionType>;

/** The usual trading currency of each market (a position still names its own: HK lists some CNY counters). */
export const marketCurrency: Record<MarketType, CurrencyType> = { US: "USD", HK: "HKD", CN: "CNY", SG: "SGD" };

const suffixMarket: Record<string, MarketType> = { US: "US", HK: "HK", SH: "CN", SZ: "CN", SG: "SG" };
const marketSuffix: Partial<Record<MarketType, string>> = { US: "US", HK: "HK", SG: "SG" };

const TICKER = /^[A-Z0-9][A-Z0-9.-]{0,31}$/;

/**
 * The canonical `TICKER.REGION` form of a symbol held in `market`, or the reason it is not one.
 * A bare ticker gets its market's suffix (CN needs `.SH` or `.SZ` spelled out); HK codes lose
 * leading zeros (`00700` → `700.HK`), as LongPort spells them.
 */
export function canonicalSymbol(symbol: string, market: MarketType): { symbol: string } | { problem: string } {
  let text = symbol.trim().toUpperCase();
  const dot = text.lastIndexOf(".");
  const suffix = dot > 0 ? text.slice(dot + 1) : "";
  if (!suffixMarket[suffix]) {
    const implied = marketSuffix[market];
    if (!implied) return { problem: `a ${market} symbol needs its exchange suffix, e.g. 600519.SH or 000001.SZ` };
    text = `${text}.${implied}`;
  } else if (suffixMarket[suffix] !== market) {
    return { problem: `the symbol's suffix .${suffix} belongs to market ${suffixMarket[suffix]}, not ${market}` };
  }
  const split = text.lastIndexOf(".");
  let ticker = text.slice(0, split);
  const region = text.slice(split + 1);
  if (!TICKER.test(ticker)) return { problem: "must be a ticker such as AAPL.US or 700.HK" };
  if (region === "HK" && /^\d+$/.test(ticker)) ticker = String(Number(ticker));
  return { symbol: `${ticker}.${region}` };
}

/** The market of a `TICKER.REGION` symbol, when its suffix is one the service knows. */
export function marketOfSymbol(symbol: string): MarketType | undefined {
  const dot = symbol.lastIndexOf(".");
  return dot > 0 ? suffixMarket[symbol.slice(dot + 1).toUpperCase()] : undefined;
}

const OCC_OPTION = /^([A-Z]{1,6})(\d{2})(\d{2})(\d{2})([CP])(\d+)\.US$/;

/**
 * The option terms spelled in a LongPort US option symbol (`AAPL260417C110000.US`: expiry
 * 2026-04-17, call, strike 110, the strike given in thousandths), or undefined for other symbols.
 */
export function parseOptionSymbol(symbol: string): { option_type: OptionType; strike_price: string; expiry_date: string } | undefined {
  const match = OCC_OPTION.exec(symbol.trim().toUpperCase());
  if (!match) return undefined;
  const [, , yy, mm, dd, side, strike] = match;
  const expiry = `20${yy}-${mm}-${dd}`;
  if (!isRealDate(expiry)) return undefined;
  return {
    option_type: side === "C" ? "call" : "put",
    strike_price: new Dec(strike).dividedBy(1000).toFixed(),
    expiry_date: expiry,
  };
}

/** A calendar date `YYYY-MM-DD` that exists, within the supported years. */
export const DateInput = CalendarDate;
