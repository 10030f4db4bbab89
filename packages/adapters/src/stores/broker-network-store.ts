import type { BrokerNetworkSettings, BrokerNetworkStore } from "@tp/core/settings/broker-network";
import type { Db } from "../dynamo/db";
import { Keys } from "../dynamo/keys";
import { Repository } from "../dynamo/repository";

const BROKER_NETWORK = "BROKER_NETWORK";

/** The administrator's broker network allow-list: one service-wide settings item. */
export class DynamoBrokerNetworkStore implements BrokerNetworkStore {
  private readonly items: Repository<BrokerNetworkSettings>;

  constructor(db: Db) {
    this.items = new Repository<BrokerNetworkSettings>(db, { type: "BrokerNetworkSettings", key: () => Keys.serviceSettings(BROKER_NETWORK) });
  }

  get() {
    return this.items.get(Keys.serviceSettings(BROKER_NETWORK), { consistent: true });
  }

  async put(settings: BrokerNetworkSettings): Promise<void> {
    await this.items.put(settings);
  }
}
