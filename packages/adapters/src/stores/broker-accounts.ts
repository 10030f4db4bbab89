import type { Db } from "../dynamo/db";
import { Keys } from "../dynamo/keys";
import { Repository } from "../dynamo/repository";

/** A user's broker account as the users API shows it. */
export interface BrokerAccount {
  broker_id: string;
  name: string;
  code: string;
  type: string;
  status: string;
  created_at: string;
}

interface StoredBroker {
  id: string;
  user_id: string;
  name: string;
  code: string;
  type: string;
  status?: string;
  created_at: string;
}

/** Reads the brokers a user owns through the gsi1 listing the broker entity writes. */
export class BrokerAccountReader {
  private readonly brokers: Repository<StoredBroker>;
  constructor(db: Db) {
    this.brokers = new Repository<StoredBroker>(db, {
      type: "Broker",
      key: (broker) => Keys.broker(broker.id),
    });
  }
  async list(userId: string): Promise<BrokerAccount[]> {
    const brokers = await this.brokers.queryAll(Keys.brokersOfUser(userId), { index: "gsi1" });
    return brokers.map((broker) => ({
      broker_id: broker.id,
      name: broker.name,
      code: broker.code,
      type: broker.type,
      status: broker.status ?? "active",
      created_at: broker.created_at,
    }));
  }
}
