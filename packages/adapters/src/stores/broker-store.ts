import { brokerChanged, type Broker, type BrokerStore } from "@tp/core/brokers/index";
import type { Db } from "../dynamo/db";
import { Keys } from "../dynamo/keys";
import { Repository } from "../dynamo/repository";

/**
 * Brokers on the single table: one item per broker (config sealed), listed per owner through
 * gsi1 (`Keys.brokersOfUser`, sorted `created_at#id`), the index `/users/{id}/accounts` reads too.
 */
export class DynamoBrokerStore implements BrokerStore {
  private readonly brokers: Repository<Broker>;

  constructor(db: Db) {
    this.brokers = new Repository<Broker>(db, {
      type: "Broker",
      key: (broker) => Keys.broker(broker.id),
      indexes: { gsi1: (broker) => Keys.brokerOfUser(broker.user_id, broker.created_at, broker.id) },
    });
  }

  async create(broker: Broker): Promise<void> {
    await this.brokers.put(broker, { ifAbsent: true, conflict: () => brokerChanged(broker.id) });
  }

  get(id: string) {
    return this.brokers.get(Keys.broker(id));
  }

  listByUser(userId: string) {
    return this.brokers.queryAll(Keys.brokersOfUser(userId), { index: "gsi1" });
  }

  async update(broker: Broker, expectedVersion: number): Promise<void> {
    await this.brokers.replaceIf(broker, "version", expectedVersion, () => brokerChanged(broker.id));
  }

  async delete(id: string): Promise<void> {
    await this.brokers.delete(Keys.broker(id));
  }
}
