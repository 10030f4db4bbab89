/**
 * The builders of the broker side (`accounts/compose.ts` composed once per context): a user's
 * broker accounts, brokers and their credentials and fees, the broker network's egress settings,
 * data sources, and the real and simulated cash accounts and positions (`assets`).
 */
import { BrokerAccountReader, type BrokerAccount } from "../stores/broker-accounts";
import { createBrokerServices, type BrokerServices } from "../accounts/compose";
import { type ServiceContext, once } from "./context";
import { userStore } from "./users";
import { marketData, paperAccounts, paperBroker, providers } from "./market";

export function brokerAccounts(c: ServiceContext): (userId: string) => Promise<BrokerAccount[]> {
  return once(c, brokerAccounts, () => {
    const reader = new BrokerAccountReader(c.db);
    return (userId: string) => reader.list(userId);
  });
}

function brokerServices(c: ServiceContext): BrokerServices {
  return once(c, brokerServices, () =>
    createBrokerServices(
      c.config,
      c.db,
      { now: c.now, marketNow: c.marketNow, newId: c.newId },
      userStore(c),
      marketData(c),
      { paperAccount: paperBroker(c), activeProvider: () => providers(c).active(), paper: paperAccounts(c) },
      c.overrides.brokerAdapters,
    ),
  );
}

export function brokers(c: ServiceContext): BrokerServices["brokers"] {
  return brokerServices(c).brokers;
}

export function brokerNetwork(c: ServiceContext): BrokerServices["brokerNetwork"] {
  return brokerServices(c).brokerNetwork;
}

export function dataSources(c: ServiceContext): BrokerServices["dataSources"] {
  return brokerServices(c).dataSources;
}

export function assets(c: ServiceContext): BrokerServices["assets"] {
  return brokerServices(c).assets;
}
