import type { PriceSource } from "@tp/core/assets/index";
import type { MarketData } from "@tp/core/provider/index";

/** LongPort's quote API takes at most 500 symbols per request. */
const SYMBOLS_PER_REQUEST = 500;

/**
 * Overview prices from the selected market-data provider: each symbol's `last_done`. A batch
 * fails as a whole when one symbol is unknown to the provider (an option, a CN listing), so a
 * failed batch is retried symbol by symbol and the unknown ones are left out: they fall back
 * to their stored prices.
 */
export class MarketDataPrices implements PriceSource {
  constructor(private readonly marketData: () => Promise<MarketData>) {}

  async lastPrices(symbols: string[]): Promise<Record<string, string>> {
    const provider = await this.marketData();
    const prices: Record<string, string> = {};
    for (let start = 0; start < symbols.length; start += SYMBOLS_PER_REQUEST) {
      const batch = symbols.slice(start, start + SYMBOLS_PER_REQUEST);
      const quotes = await provider.quote(batch).catch(async () => {
        const single = await Promise.all(batch.map((symbol) => provider.quote([symbol]).catch(() => [])));
        return single.flat();
      });
      for (const quote of quotes) if (Number(quote.last_done) > 0) prices[quote.symbol] = quote.last_done;
    }
    return prices;
  }
}
