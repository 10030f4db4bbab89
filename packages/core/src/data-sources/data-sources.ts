import { z } from "zod";
import { ValidationError, forbidden, notFound } from "../errors";
import type { Actor } from "../users";
import { Brokers, type BrokersDeps, type TestResponse } from "../brokers/index";

/**
 * What a data source supplies: `realtime` quotes and pushes, `historical` candles for imports
 * and backtests, or `both`.
 */
export const DataSourceType = z.enum(["realtime", "historical", "both"]).meta({ id: "DataSourceType" });
export type DataSourceType = z.infer<typeof DataSourceType>;

/** `active`: used; `inactive`: switched off by an administrator; `error`: its broker's last test failed. */
export const DataSourceStatus = z.enum(["active", "inactive", "error"]).meta({ id: "DataSourceStatus" });
export type DataSourceStatus = z.infer<typeof DataSourceStatus>;

/** Lower numbers come first; equal priorities are ordered by name. */
export const MAX_PRIORITY = 999_999;
const Priority = z.number().int().min(0).max(MAX_PRIORITY).describe("0 comes first; ties are ordered by name");
const Name = z.string().trim().min(1).max(100);
const BrokerId = z.string().trim().min(1).max(64);

export const DataSourceCreate = z
  .object({
    name: Name,
    type: DataSourceType,
    broker_id: BrokerId,
    status: DataSourceStatus.optional(),
    priority: Priority.optional().describe("Default 0; 0 comes first; ties are ordered by name"),
  })
  .meta({ id: "DataSourceCreate" });
export type DataSourceCreate = z.infer<typeof DataSourceCreate>;

export const DataSourceUpdate = z
  .object({
    name: Name.optional(),
    type: DataSourceType.optional(),
    broker_id: BrokerId.optional(),
    status: DataSourceStatus.optional(),
    priority: Priority.optional(),
  })
  .meta({ id: "DataSourceUpdate" });
export type DataSourceUpdate = z.infer<typeof DataSourceUpdate>;

export const DataSource = z
  .object({
    id: z.string(),
    name: z.string(),
    type: DataSourceType,
    broker_id: z.string(),
    status: DataSourceStatus,
    priority: z.number().int(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "DataSource" });
export type DataSource = z.infer<typeof DataSource>;

/** Storage port for data sources. */
export interface DataSourceStore {
  create(source: DataSource): Promise<void>;
  get(id: string): Promise<DataSource | undefined>;
  /** Every data source by priority, then name. */
  list(): Promise<DataSource[]>;
  update(before: DataSource, after: DataSource): Promise<void>;
  delete(source: DataSource): Promise<void>;
  /** Ids of the data sources that read from a broker. */
  idsUsingBroker(brokerId: string): Promise<string[]>;
}

export interface DataSourcesDeps {
  dataSources: DataSourceStore;
  brokers: BrokersDeps;
  now: () => number;
  newId: () => string;
}

const requireAdmin = (actor: Actor) => {
  if (actor.user_type !== "admin") throw forbidden("Administrator access is required");
};

/** A `broker_id` that names no broker is invalid input (422), located at the field. */
async function requireBroker(deps: DataSourcesDeps, brokerId: string): Promise<void> {
  if (!(await deps.brokers.brokers.get(brokerId))) {
    throw new ValidationError([{ loc: ["body", "broker_id"], msg: `broker ${brokerId} does not exist`, type: "not_found" }]);
  }
}

const dataSourceNotFound = (id: string) => notFound("DATA_SOURCE_NOT_FOUND", `Data source ${id} does not exist`);

export const DataSources = {
  /** Every data source, by priority then name; any signed-in user may read them. */
  list(deps: DataSourcesDeps): Promise<DataSource[]> {
    return deps.dataSources.list();
  },

  async get(deps: DataSourcesDeps, id: string): Promise<DataSource> {
    const source = await deps.dataSources.get(id);
    if (!source) throw dataSourceNotFound(id);
    return source;
  },

  async create(deps: DataSourcesDeps, actor: Actor, input: DataSourceCreate): Promise<DataSource> {
    requireAdmin(actor);
    await requireBroker(deps, input.broker_id);
    const now = new Date(deps.now()).toISOString();
    const source: DataSource = {
      id: deps.newId(),
      name: input.name,
      type: input.type,
      broker_id: input.broker_id,
      status: input.status ?? "active",
      priority: input.priority ?? 0,
      created_at: now,
      updated_at: now,
    };
    await deps.dataSources.create(source);
    return source;
  },

  async update(deps: DataSourcesDeps, actor: Actor, id: string, input: DataSourceUpdate): Promise<DataSource> {
    requireAdmin(actor);
    const before = await DataSources.get(deps, id);
    if (input.broker_id !== undefined && input.broker_id !== before.broker_id) await requireBroker(deps, input.broker_id);
    const after: DataSource = {
      ...before,
      name: input.name ?? before.name,
      type: input.type ?? before.type,
      broker_id: input.broker_id ?? before.broker_id,
      status: input.status ?? before.status,
      priority: input.priority ?? before.priority,
      updated_at: new Date(deps.now()).toISOString(),
    };
    await deps.dataSources.update(before, after);
    return after;
  },

  async delete(deps: DataSourcesDeps, actor: Actor, id: string): Promise<DataSource> {
    requireAdmin(actor);
    const source = await DataSources.get(deps, id);
    await deps.dataSources.delete(source);
    return source;
  },

  /** Tests the connection of the data source's broker (without revealing its config). */
  async test(deps: DataSourcesDeps, id: string): Promise<TestResponse> {
    const source = await DataSources.get(deps, id);
    const broker = await deps.brokers.brokers.get(source.broker_id);
    const result = broker
      ? await Brokers.testConnection(deps.brokers, broker)
      : { success: false, message: `Broker ${source.broker_id} of this data source no longer exists`, response_time: 0 };
    // Same rule as the broker's own status: a failure marks an active source, a success clears an error.
    const status = result.success ? (source.status === "error" ? "active" : source.status) : source.status === "active" ? "error" : source.status;
    if (status !== source.status) {
      await deps.dataSources.update(source, { ...source, status, updated_at: new Date(deps.now()).toISOString() });
    }
    return result;
  },
};
