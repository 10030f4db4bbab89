import type { SimulatedDeps } from "@tp/core/assets/simulated";
import type { PaperBrokerDeps } from "@tp/core/paper/broker";
import type { OverviewDeps, PriceSource, SyncDeps } from "@tp/core/assets/index";
import type { BrokerConnector, BrokersDeps } from "@tp/core/brokers/index";
import type { DataSourcesDeps } from "@tp/core/data-sources/index";
import type { MarketData } from "@tp/core/provider/index";
import type { UserStore } from "@tp/core/users";
import type { ServiceConfig } from "../config";
import { AesGcmSecretBox } from "../crypto/aes-gcm-secret-box";
import type { Db } from "../dynamo/db";
import { DynamoBrokerStore } from "../stores/broker-store";
import { DynamoDataSourceStore } from "../stores/data-source-store";
import { DynamoPortfolioStore } from "../stores/portfolio-store";
import { BrokerConnectionTester } from "./broker-connector";
import { EgressPolicy } from "../net/egress";
import { DynamoBrokerNetworkStore } from "../stores/broker-network-store";
import type { BrokerNetworkStore } from "@tp/core/settings/broker-network";
import { GatewayAccountSource, type GatewayAccountSourceOptions } from "./gateway-account-source";
import { MarketDataPrices } from "./market-data-prices";
import { ConfiguredExchangeRates, parseRatesPerUsd } from "./reference-exchange-rates";

/** What brokers, data sources and assets need from a runtime; each has a real default. */
export interface BrokerAdapterOverrides {
  /** Broker connection tests (default: LongPort SDK, TCP to Futu OpenD, config checks for paper). */
  brokerConnector?: BrokerConnector;
  /** Live prices for overviews (default: the selected market-data provider's quotes). */
  prices?: PriceSource;
}

export interface BrokerServices {
  brokers: BrokersDeps;
  /** The administrator's list of private hosts broker tests may reach. */
  brokerNetwork: BrokerNetworkStore;
  dataSources: DataSourcesDeps;
  assets: OverviewDeps & SyncDeps & SimulatedDeps;
}

/** Wires the broker, data-source and asset use cases onto the table. No I/O happens here. */
export function createBrokerServices(
  config: ServiceConfig,
  db: Db,
  /** `marketNow`: the market's clock (npm start's accelerated one), which the assets read: their positions and prices are the market's. */
  clock: { now: () => number; marketNow?: () => number; newId: () => string },
  users: UserStore,
  marketData: () => Promise<MarketData>,
  /** The accounts asset sync reads: the paper broker's, and the selected provider's. */
  accounts: Omit<GatewayAccountSourceOptions, "timeoutMs"> & { paper: PaperBrokerDeps },
  overrides: BrokerAdapterOverrides = {},
): BrokerServices {
  const { now, newId } = clock;
  const dataSourceStore = new DynamoDataSourceStore(db);
  const brokerNetwork = new DynamoBrokerNetworkStore(db);
  // The deployment's allowed hosts and the administrator's, read at each test (tests are rare).
  const allowedHosts = async () => [...config.brokerAllowedHosts, ...((await brokerNetwork.get())?.allowed_hosts ?? [])];
  const userExists = async (userId: string) => (await users.get(userId)) !== undefined;
  const brokers: BrokersDeps = {
    brokers: new DynamoBrokerStore(db),
    secrets: new AesGcmSecretBox(config.encryptionKey),
    connector: overrides.brokerConnector ?? new BrokerConnectionTester(config.brokerTimeoutMs, new EgressPolicy(allowedHosts), config.longportHosts),
    now,
    newId,
    userExists,
    dataSourcesUsing: (brokerId) => dataSourceStore.idsUsingBroker(brokerId),
  };
  return {
    brokers,
    brokerNetwork,
    dataSources: { dataSources: dataSourceStore, brokers, now, newId },
    assets: {
      portfolio: new DynamoPortfolioStore(db),
      brokers,
      accounts: new GatewayAccountSource({ paperAccount: accounts.paperAccount, activeProvider: accounts.activeProvider, timeoutMs: config.brokerTimeoutMs }),
      paper: accounts.paper,
      rates: new ConfiguredExchangeRates(parseRatesPerUsd(config.fxRatesPerUsd)),
      prices: overrides.prices ?? new MarketDataPrices(marketData),
      // An overview's as_of and a sync's times on the clock of the positions and prices they show.
      now: clock.marketNow ?? now,
      newId,
      userExists,
    },
  };
}
