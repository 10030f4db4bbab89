import { flowChanged, type FlowStore, type StoredFlow } from "@tp/core/flows/flow-library";
import type { Db } from "../dynamo/db";
import { Keys } from "../dynamo/keys";
import { Repository } from "../dynamo/repository";

/**
 * Saved flows on the single table: one item per flow, listed per owner through gsi1
 * (`Keys.flowsOfUser`, sorted `created_at#id`, read backwards for newest first). Updates are
 * conditional puts on `version`.
 */
export class DynamoFlowStore implements FlowStore {
  private readonly flows: Repository<StoredFlow>;

  constructor(db: Db) {
    this.flows = new Repository<StoredFlow>(db, {
      type: "Flow",
      key: (flow) => Keys.flow(flow.id),
      indexes: { gsi1: (flow) => Keys.flowOfUser(flow.user_id, flow.created_at, flow.id) },
    });
  }

  async create(flow: StoredFlow): Promise<void> {
    await this.flows.put(flow, { ifAbsent: true, conflict: () => flowChanged(flow.id) });
  }

  get(id: string) {
    return this.flows.get(Keys.flow(id));
  }

  listByUser(userId: string) {
    return this.flows.queryAll(Keys.flowsOfUser(userId), { index: "gsi1", ascending: false });
  }

  async update(flow: StoredFlow, expectedVersion: number): Promise<void> {
    await this.flows.replaceIf(flow, "version", expectedVersion, () => flowChanged(flow.id));
  }

  async delete(id: string): Promise<void> {
    await this.flows.delete(Keys.flow(id));
  }
}
