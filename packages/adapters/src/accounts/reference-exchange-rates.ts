import type { ExchangeRates } from "@tp/core/assets/index";
import { CurrencyType } from "@tp/core/money/currency";
import { Dec } from "@tp/core/money/decimal";

/**
 * Units of each currency per US dollar when none are configured: HKD at the centre of its
 * 7.75–7.85 peg band; CNY and SGD float, so these are reference values to be replaced through
 * FX_RATES_PER_USD (or a market-data feed) wherever the conversion matters.
 */
export const REFERENCE_RATES_PER_USD: Record<CurrencyType, string> = { USD: "1", HKD: "7.8", CNY: "7.2", SGD: "1.35" };

/** Parses `HKD=7.8,CNY=7.1` into rates per USD; throws on an unknown currency or a non-positive rate. */
export function parseRatesPerUsd(text: string | undefined): Partial<Record<CurrencyType, string>> {
  const rates: Partial<Record<CurrencyType, string>> = {};
  for (const entry of (text ?? "")
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean)) {
    const [code, value] = entry.split("=").map((part) => part.trim());
    const currency = CurrencyType.safeParse(code?.toUpperCase());
    if (!currency.success) throw new Error(`FX_RATES_PER_USD: unknown currency '${code}'`);
    let rate: InstanceType<typeof Dec>;
    try {
      rate = new Dec(value ?? "");
    } catch {
      throw new Error(`FX_RATES_PER_USD: '${entry}' is not CURRENCY=rate`);
    }
    if (!rate.greaterThan(0)) throw new Error(`FX_RATES_PER_USD: the rate of ${currency.data} must be positive`);
    rates[currency.data] = rate.toFixed();
  }
  return rates;
}

/** Exchange rates from configuration over the reference table; the answer names which were configured. */
export class ConfiguredExchangeRates implements ExchangeRates {
  private readonly rates: Record<CurrencyType, string>;
  private readonly source: string;

  constructor(configured: Partial<Record<CurrencyType, string>>) {
    this.rates = { ...REFERENCE_RATES_PER_USD, ...configured, USD: "1" };
    const named = Object.keys(configured).filter((code) => code !== "USD");
    this.source = named.length ? `configured (${named.join(", ")}); reference values for the rest` : "reference rates (configure FX_RATES_PER_USD)";
  }

  async perUsd() {
    return { source: this.source, rates: this.rates };
  }
}
