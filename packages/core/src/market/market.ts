import { z } from "zod";
import { badRequest } from "../errors";

/**
 * Markets, as LongPort names them (`Market` enum, `market` strings on the wire).
 *
 * - `US`: US equities and ETFs (NYSE, Nasdaq, NYSE Arca), symbols `TICKER.US`, USD.
 * - `HK`: Hong Kong Exchanges (SEHK), symbols `CODE.HK`, HKD.
 * - `CN`: mainland A-shares, symbols `CODE.SH` (Shanghai) and `CODE.SZ` (Shenzhen), CNY.
 * - `SG`: Singapore Exchange, symbols `CODE.SG`, SGD.
 *
 * The service has exchange calendars and a simulated market for US and HK only; CN and SG are
 * recognised so that their symbols get a precise "not supported" answer instead of a vague one.
 */
export const Market = z.enum(["US", "HK", "CN", "SG"]);
export type Market = z.infer<typeof Market>;

/** Accepted spellings of a market in requests: the LongPort names and their lower-case forms. */
export const MarketInput = z.enum(["US", "HK", "CN", "SG", "us", "hk", "cn", "sg"]).transform((value) => value.toUpperCase() as Market);

/** What the service knows about each market. */
export interface MarketInfo {
  market: Market;
  name: string;
  timeZone: string;
  currency: string;
  /** Symbol suffixes (after the last dot) that belong to this market. */
  suffixes: readonly string[];
  /** Whether the service has a calendar and a simulated market for it. */
  supported: boolean;
}

export const Markets: Readonly<Record<Market, MarketInfo>> = {
  US: { market: "US", name: "United States", timeZone: "America/New_York", currency: "USD", suffixes: ["US"], supported: true },
  HK: { market: "HK", name: "Hong Kong", timeZone: "Asia/Hong_Kong", currency: "HKD", suffixes: ["HK"], supported: true },
  CN: { market: "CN", name: "Mainland China", timeZone: "Asia/Shanghai", currency: "CNY", suffixes: ["SH", "SZ"], supported: false },
  SG: { market: "SG", name: "Singapore", timeZone: "Asia/Singapore", currency: "SGD", suffixes: ["SG"], supported: false },
};

const marketBySuffix = new Map<string, Market>(Object.values(Markets).flatMap((info) => info.suffixes.map((suffix) => [suffix, info.market] as const)));

const SYMBOL = /^([A-Za-z0-9][A-Za-z0-9.-]*)\.([A-Za-z]{2})$/;

/**
 * Canonical form of a `ticker.region` symbol: upper case, HK codes without leading zeros
 * (`00700.hk` → `700.HK`), as LongPort spells them. Malformed symbols are a 400 `INVALID_SYMBOL`.
 */
export function normalizeSymbol(symbol: string): string {
  const trimmed = symbol.trim();
  const match = SYMBOL.exec(trimmed);
  if (!match) {
    throw badRequest("INVALID_SYMBOL", `'${symbol}' is not a symbol in ticker.region form, e.g. AAPL.US or 700.HK`);
  }
  const region = match[2].toUpperCase();
  let ticker = match[1].toUpperCase();
  if (region === "HK" && /^\d+$/.test(ticker)) ticker = String(Number(ticker));
  if (!marketBySuffix.has(region)) {
    throw badRequest("INVALID_SYMBOL", `'${symbol}' has an unknown region '.${region}'; expected .US, .HK, .SH, .SZ or .SG`);
  }
  return `${ticker}.${region}`;
}

/** The market a symbol trades in, from its suffix: `.US` → US, `.HK` → HK, `.SH`/`.SZ` → CN, `.SG` → SG. */
export function marketOf(symbol: string): Market {
  const normalized = normalizeSymbol(symbol);
  return marketBySuffix.get(normalized.slice(normalized.lastIndexOf(".") + 1))!;
}

/** Throws a 400 `MARKET_NOT_SUPPORTED` unless the service has a calendar and data for `market`. */
export function assertSupportedMarket(market: Market, context = "market"): void {
  if (!Markets[market].supported) {
    throw badRequest("MARKET_NOT_SUPPORTED", `${context} ${market} is not supported: calendars and simulated data cover US and HK only`, { market });
  }
}
