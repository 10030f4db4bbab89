import { randomUUID } from "node:crypto";
import type { AuthDeps } from "@tp/core/auth";
import type { RealtimeDeps } from "@tp/core/realtime";
import type { UsersDeps } from "@tp/core/users";
import { ReadThroughCache } from "./cache";
import type { ServiceConfig } from "./config";
import { createDb, type Db } from "./dynamo/db";
import { PrincipalCache } from "./principal-cache";
import { DynamoCaptchaStore, DynamoLoginAttemptStore, DynamoRevocationStore } from "./stores/auth-stores";
import { DynamoUserStore } from "./stores/user-store";
import { DynamoConnectionStore } from "./stores/connection-store";
import { ApiGatewayPusher } from "./realtime/api-gateway-pusher";
import { BrokerAccountReader, type BrokerAccount } from "./stores/broker-accounts";
import { Keys } from "./dynamo/keys";
import { Repository } from "./dynamo/repository";

/** The record of adapters every runtime builds the same way (the composition root's output). */
export interface Services {
  config: ServiceConfig;
  db: Db;
  now: () => number;
  newId: () => string;
  auth: AuthDeps;
  users: UsersDeps;
  principals: PrincipalCache;
  cache: ReadThroughCache;
  realtime: RealtimeDeps;
  /** A user's broker accounts (their brokers, summarised). */
  brokerAccounts: (userId: string) => Promise<BrokerAccount[]>;
  /** Times one read of the table; throws when the database is unreachable. */
  pingDatabase: () => Promise<number>;
}

export interface ServiceOverrides {
  now?: () => number;
  db?: Db;
}

/** Wires the adapters for a configuration. No I/O happens here. */
export function createServices(config: ServiceConfig, overrides: ServiceOverrides = {}): Services {
  const now = overrides.now ?? Date.now;
  const newId = () => randomUUID();
  const db = overrides.db ?? createDb({ tableName: config.tableName, endpoint: config.dynamoEndpoint });
  const userStore = new DynamoUserStore(db);
  const revocations = new DynamoRevocationStore(db);
  const probe = new Repository<object>(db, { type: "HealthProbe", key: () => Keys.healthProbe() });
  const principals = new PrincipalCache(config.auth, revocations, now, config.principalRecheckMs);
  return {
    config,
    db,
    now,
    newId,
    auth: {
      config: config.auth,
      users: userStore,
      captchas: new DynamoCaptchaStore(db),
      attempts: new DynamoLoginAttemptStore(db, now),
      revocations,
      now,
    },
    users: { users: userStore, now, newId, onUserChanged: (userId) => principals.invalidateUser(userId) },
    principals,
    cache: new ReadThroughCache(db, now),
    realtime: {
      connections: new DynamoConnectionStore(db),
      pusher: new ApiGatewayPusher(() => config.websocketManagementEndpoint),
      now,
      authenticate: async (token) => ({ userId: (await principals.resolve(token)).user.id }),
    },
    brokerAccounts: (userId) => new BrokerAccountReader(db).list(userId),
    pingDatabase: async () => {
      const started = performance.now();
      await probe.get(Keys.healthProbe(), { consistent: false });
      return performance.now() - started;
    },
  };
}
