/**
 * What every service is built over (`ServiceContext`: the configuration, the clocks, ids, the
 * table, the services built so far), the runtime's stand-ins (`ServiceOverrides`), and `once`,
 * which makes each builder of `compose/` build its adapters once per context. The builders, one
 * per field of `Services`, live beside this file by concern and import only what they construct,
 * so a Lambda function's bundle is what its builders reach.
 */
import { randomUUID } from "node:crypto";
import type { ServiceConfig } from "../config";
import { createDb, type Db } from "../dynamo/db";
import type { OrderGateway } from "@tp/core/provider/order-gateway";
import type { BrokerAdapterOverrides } from "../accounts/compose";
import type { WorkflowStarter } from "@tp/core/workflows";

export interface ServiceOverrides {
  now?: () => number;
  db?: Db;
  /** Stand-ins for the broker-facing adapters (connection tests, account reads, prices). */
  brokerAdapters?: BrokerAdapterOverrides;
  /** The runtime's own workflow runner, used when no state machine ARN is configured (the embedded runtime's local Step Functions). */
  workflows?: WorkflowStarter;
  /**
   * The market's time, when it is not the wall clock (the embedded runtime's accelerated simulated
   * clock): the simulated market, the paper broker, imports, calendars, data sync and trading
   * sessions read it; sign-in, tokens, caches and queues keep `now`.
   */
  marketNow?: () => number;
}

/**
 * What every service is built over: the configuration, the clock, ids and the table. Each
 * service (a builder of `compose/`) is a function of the context that builds its adapters once
 * per context (and the services it depends on through the same context), so a runtime that asks
 * for two of them gets them wired to each other and builds nothing else. A Lambda function asks for what its
 * handler uses, and its bundle holds only those adapters (each function's import graph is the
 * graph of the services it names: no store, provider, broker or AWS client it never calls).
 */
export interface ServiceContext {
  readonly config: ServiceConfig;
  readonly overrides: ServiceOverrides;
  readonly now: () => number;
  /** The market's clock (`ServiceOverrides.marketNow`, else `now`): the market side's services read it. */
  readonly marketNow: () => number;
  readonly newId: () => string;
  readonly db: Db;
  /** The services built so far, by their builder. */
  readonly built: Map<(context: ServiceContext) => unknown, unknown>;
  /** The paper broker, once a service that trades has built it: the simulated provider's order gateway. */
  paperGateway?: (accountId: string) => OrderGateway;
}

/** The context of one runtime. No I/O happens here. */
export function serviceContext(config: ServiceConfig, overrides: ServiceOverrides = {}): ServiceContext {
  return {
    config,
    overrides,
    now: overrides.now ?? Date.now,
    marketNow: overrides.marketNow ?? overrides.now ?? Date.now,
    newId: () => randomUUID(),
    db: overrides.db ?? createDb({ tableName: config.tableName, endpoint: config.dynamoEndpoint }),
    built: new Map(),
  };
}

/** `build()` the first time `service` is asked for on this context, the same value after. */
export function once<T>(context: ServiceContext, service: (context: ServiceContext) => T, build: () => T): T {
  if (!context.built.has(service)) context.built.set(service, build());
  return context.built.get(service) as T;
}
