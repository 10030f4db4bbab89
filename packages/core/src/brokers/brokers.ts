import { z } from "zod";
import { DomainError, ValidationError, conflict, evenWithIssues, forbidden, notFound } from "../errors";
import { Fees, FeeCalculateInput, type FeeCalculateResponse, type FeeConfig, type FeeConfigInput } from "../fees";
import type { Actor } from "../users";
import { LAST_WRITER_WINS, retrying } from "../util/backoff";
import { BrokerConfig, BrokerConfigUpdate, BrokerStatus, BrokerType, configIssues, maskConfig, mergeConfig } from "./config";
import type { SecretBox } from "./secret-box";

const Name = z.string().trim().min(1).max(100);
const Code = z.string().trim().min(1).max(64);
const UserId = z.string().trim().min(1).max(64);

/** Adds the type-dependent config problems to the same 422 as every other problem of the body. */
const checkConfigForType = (value: Record<string, unknown>, ctx: z.RefinementCtx) => {
  const type = BrokerType.safeParse(value.type);
  const config = value.config;
  if (!type.success || typeof config !== "object" || config === null) return;
  for (const issue of configIssues(type.data, config as BrokerConfig, ["config"])) {
    ctx.addIssue({ code: "custom", path: issue.loc, message: issue.msg });
  }
};

export const BrokerCreate = z
  .object({
    name: Name,
    code: Code,
    type: BrokerType,
    status: BrokerStatus.optional(),
    config: BrokerConfig,
    user_id: UserId.describe("Owner; a non-administrator may only name themself"),
  })
  .superRefine(checkConfigForType, evenWithIssues)
  .meta({ id: "BrokerCreate" });
export type BrokerCreate = z.infer<typeof BrokerCreate>;

export const BrokerUpdate = z
  .object({
    name: Name.optional(),
    code: Code.optional(),
    type: BrokerType.optional(),
    status: BrokerStatus.optional(),
    config: BrokerConfigUpdate.optional(),
  })
  .meta({ id: "BrokerUpdate" });
export type BrokerUpdate = z.infer<typeof BrokerUpdate>;

export const BrokerResponse = z
  .object({
    id: z.string(),
    name: z.string(),
    code: z.string(),
    type: BrokerType,
    status: BrokerStatus,
    config: z.record(z.string(), z.unknown()).describe("The BrokerConfig with every secret masked (`ab****yz`, or `****` when short)"),
    user_id: z.string(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "BrokerResponse" });
export type BrokerResponse = z.infer<typeof BrokerResponse>;

/** The outcome of a connection test; a failure is an answer (`success: false`), not an error. */
export const TestResponse = z
  .object({
    success: z.boolean(),
    message: z.string(),
    response_time: z.number().nonnegative().describe("Milliseconds the test took"),
  })
  .meta({ id: "TestResponse" });
export type TestResponse = z.infer<typeof TestResponse>;

/** The calculator's body: the interface's `broker_id` may be sent and must then name the broker of the path. */
export const FeeCalculateRequest = FeeCalculateInput.extend({ broker_id: z.string().trim().min(1).max(64).optional() }).meta({
  id: "FeeCalculateRequest",
});
export type FeeCalculateRequest = z.infer<typeof FeeCalculateRequest>;

/** A broker as stored: its config sealed (AES-256-GCM), its fee overrides, and a version for optimistic updates. */
export interface Broker {
  id: string;
  user_id: string;
  name: string;
  code: string;
  type: BrokerType;
  status: BrokerStatus;
  /** The BrokerConfig as JSON, sealed with the broker id as context. */
  config_sealed: string;
  /** `Fees.overrides(...)` of this broker; absent means the type's defaults. */
  fee_overrides?: FeeConfigInput;
  version: number;
  created_at: string;
  updated_at: string;
}

/** Storage port for brokers. */
export interface BrokerStore {
  create(broker: Broker): Promise<void>;
  get(id: string): Promise<Broker | undefined>;
  /** A user's brokers, oldest first. */
  listByUser(userId: string): Promise<Broker[]>;
  /** Replaces the broker if its stored version is still `expectedVersion`; otherwise throws `brokerChanged`. */
  update(broker: Broker, expectedVersion: number): Promise<void>;
  delete(id: string): Promise<void>;
}

/** Tries a broker's real connection. Never throws: failures come back as `success: false`. */
export interface BrokerConnector {
  test(type: BrokerType, config: BrokerConfig): Promise<TestResponse>;
}

export interface BrokersDeps {
  brokers: BrokerStore;
  secrets: SecretBox;
  connector: BrokerConnector;
  now: () => number;
  newId: () => string;
  /** Whether a user exists (an administrator may create brokers for others). */
  userExists: (userId: string) => Promise<boolean>;
  /** Ids of the data sources that read from a broker: a broker in use cannot be deleted. */
  dataSourcesUsing: (brokerId: string) => Promise<string[]>;
}

export const brokerChanged = (id: string) => conflict("BROKER_CHANGED", `Broker ${id} was changed by another request; read it again and retry`);
const brokerNotFound = (id: string) => notFound("BROKER_NOT_FOUND", `Broker ${id} does not exist`);

const isAdmin = (actor: Actor) => actor.user_type === "admin";
const timestamp = (deps: BrokersDeps) => new Date(deps.now()).toISOString();

function seal(deps: BrokersDeps, brokerId: string, config: BrokerConfig): string {
  return deps.secrets.seal(JSON.stringify(config), brokerId);
}

async function save(deps: BrokersDeps, before: Broker, changes: Partial<Broker>): Promise<Broker> {
  const after: Broker = { ...before, ...changes, version: before.version + 1, updated_at: timestamp(deps) };
  await deps.brokers.update(after, before.version);
  return after;
}

export const Brokers = {
  /** The decrypted config of a broker; for connection code only, never for answers. */
  openConfig(deps: BrokersDeps, broker: Broker): BrokerConfig {
    try {
      return JSON.parse(deps.secrets.open(broker.config_sealed, broker.id)) as BrokerConfig;
    } catch {
      throw new DomainError(
        409,
        "BROKER_CONFIG_UNREADABLE",
        `The stored credentials of broker ${broker.id} cannot be decrypted with the current key; enter them again with PUT`,
      );
    }
  },

  /**
   * The config, or an empty one when it cannot be decrypted (the key was replaced): the broker
   * still lists, and a PUT with fresh credentials repairs it.
   */
  readableConfig(deps: BrokersDeps, broker: Broker): BrokerConfig {
    try {
      return Brokers.openConfig(deps, broker);
    } catch (error) {
      if (error instanceof DomainError && error.code === "BROKER_CONFIG_UNREADABLE") return {};
      throw error;
    }
  },

  /** The public view: config with every secret masked. */
  toResponse(deps: BrokersDeps, broker: Broker): BrokerResponse {
    return {
      id: broker.id,
      name: broker.name,
      code: broker.code,
      type: broker.type,
      status: broker.status,
      config: maskConfig(Brokers.readableConfig(deps, broker)),
      user_id: broker.user_id,
      created_at: broker.created_at,
      updated_at: broker.updated_at,
    };
  },

  /** Only the owner or an administrator. */
  requireAccess(actor: Actor, broker: Broker): void {
    if (!isAdmin(actor) && broker.user_id !== actor.id) throw forbidden("This broker belongs to another user");
  },

  async create(deps: BrokersDeps, actor: Actor, input: BrokerCreate): Promise<Broker> {
    if (input.user_id !== actor.id) {
      if (!isAdmin(actor)) throw forbidden("You may only create brokers for yourself");
      if (!(await deps.userExists(input.user_id))) throw notFound("USER_NOT_FOUND", `User ${input.user_id} does not exist`);
    }
    const id = deps.newId();
    const now = timestamp(deps);
    const broker: Broker = {
      id,
      user_id: input.user_id,
      name: input.name,
      code: input.code,
      type: input.type,
      status: input.status ?? "active",
      config_sealed: seal(deps, id, input.config),
      version: 1,
      created_at: now,
      updated_at: now,
    };
    await deps.brokers.create(broker);
    return broker;
  },

  /** The brokers of `userId` (default: the caller); another user's only for an administrator. */
  async list(deps: BrokersDeps, actor: Actor, userId = actor.id): Promise<Broker[]> {
    if (userId !== actor.id && !isAdmin(actor)) throw forbidden("You may only list your own brokers");
    return deps.brokers.listByUser(userId);
  },

  async get(deps: BrokersDeps, actor: Actor, id: string): Promise<Broker> {
    const broker = await deps.brokers.get(id);
    if (!broker) throw brokerNotFound(id);
    Brokers.requireAccess(actor, broker);
    return broker;
  },

  /** Applies a partial update; the resulting config must still suit the (possibly new) type. */
  /**
   * Applies a partial update. With `ifMatch` (the version a PUT's `If-Match` named) the write is
   * conditional on that version: a concurrent writer that got there first makes it 409
   * `BROKER_CHANGED`. Without it the last writer wins: a lost race reads again and reapplies.
   */
  async update(deps: BrokersDeps, actor: Actor, id: string, input: BrokerUpdate, ifMatch?: number): Promise<Broker> {
    const attempt = async () => {
      const before = await Brokers.get(deps, actor, id);
      if (ifMatch !== undefined && before.version !== ifMatch) throw brokerChanged(id);
      const type = input.type ?? before.type;
      const merged = mergeConfig(Brokers.readableConfig(deps, before), input.config ?? {}, ["body", "config"]);
      const issues = [...merged.issues, ...configIssues(type, merged.config, ["body", "config"])];
      if (issues.length) throw new ValidationError(issues);
      return save(deps, before, {
        name: input.name ?? before.name,
        code: input.code ?? before.code,
        type,
        status: input.status ?? before.status,
        config_sealed: seal(deps, before.id, merged.config),
      });
    };
    return ifMatch !== undefined ? attempt() : retrying(attempt, LAST_WRITER_WINS);
  },

  async delete(deps: BrokersDeps, actor: Actor, id: string): Promise<Broker> {
    const broker = await Brokers.get(deps, actor, id);
    const users = await deps.dataSourcesUsing(id);
    if (users.length) {
      throw conflict("BROKER_IN_USE", `Broker ${id} is used by data sources ${users.join(", ")}; delete or repoint them first`, {
        data_source_ids: users,
      });
    }
    await deps.brokers.delete(id);
    return broker;
  },

  async test(deps: BrokersDeps, actor: Actor, id: string): Promise<TestResponse> {
    return Brokers.testConnection(deps, await Brokers.get(deps, actor, id));
  },

  /**
   * Tests a broker's connection and records the outcome in its status: a failure marks an
   * `active` broker `error`, a success returns an `error` broker to `active`; `inactive` stays.
   */
  async testConnection(deps: BrokersDeps, broker: Broker): Promise<TestResponse> {
    let result: TestResponse;
    try {
      result = await deps.connector.test(broker.type, Brokers.openConfig(deps, broker));
    } catch (error) {
      // The connector promises not to throw; a fault in it is still a failed test, not a 500.
      result = { success: false, message: `Connection test failed: ${error instanceof Error ? error.message : String(error)}`, response_time: 0 };
    }
    const status = result.success ? (broker.status === "error" ? "active" : broker.status) : broker.status === "active" ? "error" : broker.status;
    if (status !== broker.status) {
      try {
        await save(deps, broker, { status });
      } catch (error) {
        // Someone changed the broker meanwhile; their change wins over the test's status note.
        if (!(error instanceof DomainError && error.code === "BROKER_CHANGED")) throw error;
      }
    }
    return result;
  },

  /** The broker's effective fee configuration: its overrides over its type's defaults. */
  async feeConfig(deps: BrokersDeps, actor: Actor, id: string): Promise<FeeConfig> {
    const broker = await Brokers.get(deps, actor, id);
    return Fees.resolve(broker.type, broker.fee_overrides);
  },

  /** Replaces the broker's fee overrides (fields left out return to the defaults) and answers the effective config. */
  async setFeeConfig(deps: BrokersDeps, actor: Actor, id: string, body: unknown): Promise<FeeConfig> {
    const before = await Brokers.get(deps, actor, id);
    const overrides = Fees.overrides(before.type, body);
    const after = await save(deps, before, { fee_overrides: Object.keys(overrides).length ? overrides : undefined });
    return Fees.resolve(after.type, after.fee_overrides);
  },

  /** Prices one order with the broker's fees on today's trade date at the order's exchange. */
  async calculateFees(deps: BrokersDeps, actor: Actor, id: string, input: FeeCalculateRequest): Promise<FeeCalculateResponse> {
    if (input.broker_id !== undefined && input.broker_id !== id) {
      throw new ValidationError([{ loc: ["body", "broker_id"], msg: `must be the broker of the path (${id}) or omitted`, type: "value_error" }]);
    }
    const broker = await Brokers.get(deps, actor, id);
    const { broker_id: _ignored, ...order } = input;
    const tradeDate = Fees.tradeDateOf(order.market, new Date(deps.now()));
    return Fees.calculate(Fees.resolve(broker.type, broker.fee_overrides), order, tradeDate);
  },
};
