import type { AccountSource } from "@tp/core/assets/index";
import type { Broker, BrokerConfig, BrokerType } from "@tp/core/brokers/index";
import { DomainError } from "@tp/core/errors";
import type { OrderGateway } from "@tp/core/provider/order-gateway";
import { LongportOrderGateway } from "../provider/longport/index";
import { LongportRateLimits, PacingQueue } from "../provider/rate-limit";
import type { ActiveProvider } from "../provider/registry";

export interface GatewayAccountSourceOptions {
  /** The paper broker's gateway of an account (the account id is the user id, as for the api-test trade endpoints). */
  paperAccount: (accountId: string) => OrderGateway;
  /** The provider the settings select now (the provider registry). */
  activeProvider: () => Promise<ActiveProvider>;
  /** Longest wait for a LongPort connection or call (ms). */
  timeoutMs: number;
}

/**
 * The accounts asset sync reads, each as an `OrderGateway`:
 * - a `longport` broker: a LongPort gateway built from the broker's own config (credentials,
 *   language, region or hosts);
 * - a `paper` or `simulated` broker: the paper account of the broker's owner, whatever provider is
 *   selected (the broker names the service's paper broker, not "the current provider");
 * - the selected provider: `ProviderRegistry` decides (the caller's paper account for the
 *   simulated provider, the LongPort account of the provider settings for LongPort).
 */
export class GatewayAccountSource implements AccountSource {
  // Broker accounts are read seldom (two calls a sync); one trade queue paces all of them in the
  // process, which is conservative when they are different LongPort accounts.
  private readonly longportPacing = new PacingQueue(LongportRateLimits.trade);

  constructor(private readonly options: GatewayAccountSourceOptions) {}

  supports(type: BrokerType): boolean {
    return type === "longport" || type === "paper" || type === "simulated";
  }

  async ofBroker(broker: Broker, config: BrokerConfig): Promise<OrderGateway> {
    switch (broker.type) {
      case "longport":
        return new LongportOrderGateway({
          settings: {
            app_key: config.app_key ?? "",
            app_secret: config.app_secret ?? "",
            access_token: config.access_token ?? "",
            language: config.language ?? "en",
            enable_overnight: config.enable_overnight ?? false,
            region: config.region,
            http_url: config.http_url,
            quote_ws_url: config.quote_ws_url,
            trade_ws_url: config.trade_ws_url,
          },
          timeoutMs: this.options.timeoutMs,
          limiter: this.longportPacing,
        });
      case "paper":
      case "simulated":
        return this.options.paperAccount(broker.user_id);
      case "futu":
        throw new DomainError(400, "ACCOUNT_NOT_READABLE", `Broker '${broker.name}' is of type futu, whose accounts the service cannot read`);
    }
  }

  async ofProvider(userId: string): Promise<{ name: string; gateway: OrderGateway }> {
    const provider = await this.options.activeProvider();
    const name = provider.type === "longport" ? "the LongPort account of the provider settings" : "your paper account (the simulated provider)";
    return { name, gateway: await provider.orderGateway(userId) };
  }
}
