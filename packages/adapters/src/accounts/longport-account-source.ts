import type { AccountSnapshot, AccountSource, CurrencyType } from "@tp/core/assets/index";
import type { BrokerConfig, BrokerType } from "@tp/core/brokers/index";
import { errorText, loadLongport, longportConfig, withTimeout } from "./longport";

// The SDK's `Market` enum values (declared const, so not readable under isolated modules).
const markets: Record<number, string> = { 1: "US", 2: "HK", 3: "CN", 4: "SG" };

/**
 * Reads a LongPort account through the SDK's TradeContext: `accountBalance(currency)` for cash
 * and net assets, `stockPositions()` for holdings across channels.
 */
export class LongportAccountSource implements AccountSource {
  constructor(private readonly timeoutMs: number) {}

  supports(type: BrokerType): boolean {
    return type === "longport";
  }

  async snapshot(_type: BrokerType, config: BrokerConfig, currency: CurrencyType): Promise<AccountSnapshot> {
    const { TradeContext } = await loadLongport();
    try {
      const context = await withTimeout(TradeContext.new(await longportConfig(config)), this.timeoutMs, "LongPort");
      const [balances, holdings] = await Promise.all([
        withTimeout(context.accountBalance(currency), this.timeoutMs, "LongPort accountBalance"),
        withTimeout(context.stockPositions(), this.timeoutMs, "LongPort stockPositions"),
      ]);
      const balance = balances.find((entry) => entry.currency === currency) ?? balances[0];
      if (!balance) throw new Error("the account reported no balance");
      return {
        currency,
        cash: balance.totalCash.toString(),
        net_assets: balance.netAssets.toString(),
        positions: holdings.channels.flatMap((channel) =>
          channel.positions.map((position) => ({
            symbol: position.symbol,
            symbol_name: position.symbolName,
            quantity: position.quantity.toString(),
            available_quantity: position.availableQuantity.toString(),
            cost_price: position.costPrice.toString(),
            currency: position.currency,
            market: markets[position.market as unknown as number],
          })),
        ),
      };
    } catch (error) {
      throw new Error(`LongPort: ${errorText(error)}`);
    }
  }
}
