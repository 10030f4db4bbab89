import type { Connection, ConnectionStore } from "@tp/core/realtime";
import type { Db } from "../dynamo/db";
import { Keys } from "../dynamo/keys";
import { Repository } from "../dynamo/repository";

/** Connections keyed by id, listed by topic through gsi1. */
export class DynamoConnectionStore implements ConnectionStore {
  private readonly repository: Repository<Connection>;
  constructor(db: Db) {
    this.repository = new Repository<Connection>(db, {
      type: "Connection",
      key: (connection) => Keys.connection(connection.connection_id),
      indexes: { gsi1: (connection) => Keys.connectionByTopic(connection.topic, connection.connection_id) },
      expiresAt: (connection) => connection.expires_at,
    });
  }
  async add(connection: Connection) {
    await this.repository.put(connection);
  }
  remove(connectionId: string) {
    return this.repository.delete(Keys.connection(connectionId));
  }
  byTopic(topic: string) {
    return this.repository.queryAll(Keys.connectionsOfTopic(topic), { index: "gsi1" });
  }
  async byTopics(topics: readonly string[]) {
    const found = await this.repository.queryPartitions(topics.map(Keys.connectionsOfTopic), { index: "gsi1" });
    const byTopic = new Map(topics.map((topic) => [topic, [] as Connection[]]));
    for (const connection of found) byTopic.get(connection.topic)?.push(connection);
    return byTopic;
  }
}
