import type { DataSource, DataSourceStore } from "@tp/core/data-sources/index";
import type { Db } from "../dynamo/db";
import { Keys } from "../dynamo/keys";
import { Repository } from "../dynamo/repository";

/**
 * Data sources: one item each, listed in order (priority, then name) through gsi1 and by the
 * broker they read from through gsi2. Both listings are bounded (a handful of sources).
 */
export class DynamoDataSourceStore implements DataSourceStore {
  private readonly sources: Repository<DataSource>;

  constructor(db: Db) {
    this.sources = new Repository<DataSource>(db, {
      type: "DataSource",
      key: (source) => Keys.dataSource(source.id),
      indexes: {
        gsi1: (source) => Keys.dataSourceByPriority(source.priority, source.name, source.id),
        gsi2: (source) => Keys.dataSourceOfBroker(source.broker_id, source.id),
      },
    });
  }

  async create(source: DataSource): Promise<void> {
    await this.sources.put(source, { ifAbsent: true });
  }

  get(id: string) {
    return this.sources.get(Keys.dataSource(id));
  }

  list() {
    return this.sources.queryAll(Keys.dataSourcesPartition, { index: "gsi1" });
  }

  async update(_before: DataSource, after: DataSource): Promise<void> {
    // The index keys are rebuilt from the new item, so a new priority, name or broker moves it.
    await this.sources.put(after);
  }

  async delete(source: DataSource): Promise<void> {
    await this.sources.delete(Keys.dataSource(source.id));
  }

  async idsUsingBroker(brokerId: string): Promise<string[]> {
    const sources = await this.sources.queryAll(Keys.dataSourcesOfBroker(brokerId), { index: "gsi2" });
    return sources.map((source) => source.id);
  }
}
