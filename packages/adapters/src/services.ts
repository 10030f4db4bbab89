import { randomUUID } from "node:crypto";
import type { AuthDeps } from "@tp/core/auth";
import type { CandleStore } from "@tp/core/candles/index";
import type { ImportDeps } from "@tp/core/imports/index";
import type { DataSyncDeps } from "@tp/core/data-sync/index";
import type { TradingCalendarDeps } from "@tp/core/trading-calendar/index";
import type { JobQueue } from "@tp/core/jobs";
import type { MarketData } from "@tp/core/provider/market-data";
import type { RealtimeDeps } from "@tp/core/realtime";
import type { FlowLibraryDeps } from "@tp/core/flows/flow-library";
import type { UsersDeps } from "@tp/core/users";
import { ReadThroughCache } from "./cache";
import type { ServiceConfig } from "./config";
import { createDb, type Db } from "./dynamo/db";
import { PrincipalCache } from "./principal-cache";
import { DynamoCaptchaStore, DynamoLoginAttemptStore, DynamoRevocationStore } from "./stores/auth-stores";
import { DynamoUserStore } from "./stores/user-store";
import { DynamoFlowStore } from "./stores/flow-store";
import { DynamoConnectionStore } from "./stores/connection-store";
import { ApiGatewayPusher } from "./realtime/api-gateway-pusher";
import { SqsJobQueue } from "./queues/sqs-queue";
import { SfnWorkflowStarter } from "./workflows/sfn-starter";
import { DynamoCandleStore } from "./stores/candle-store";
import { DynamoImportTaskStore } from "./stores/import-task-store";
import { DynamoCalendarStore } from "./stores/calendar-store";
import { DynamoSyncStore } from "./stores/sync-store";
import { SimulatedMarketData } from "./provider/simulated";
import { createPaperBroker, type PaperOrderGateway } from "./provider/paper";
import { createProviderServices, type ProviderRegistry } from "./provider/registry";
import type { SettingsDeps } from "@tp/core/settings/index";
import { TableQueue } from "./queues/table-queue";
import { BrokerAccountReader, type BrokerAccount } from "./stores/broker-accounts";
import { Keys } from "./dynamo/keys";
import { Repository } from "./dynamo/repository";
import { createBrokerServices, type BrokerAdapterOverrides, type BrokerServices } from "./accounts/compose";
import { serviceUnavailable } from "@tp/core/errors";
import type { WorkflowStarter } from "@tp/core/workflows";
import { createTradingServices, type TradingServices } from "./trading";
import { owned as ownedSession } from "@tp/core/trading/sessions";

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
  candles: CandleStore;
  /** The market-data provider currently selected (the simulated market unless settings choose LongPort). */
  marketData: () => Promise<MarketData>;
  /** The paper broker (the default trade adapter) for one account id; the api-test endpoints use the caller's user id. */
  paperBroker: (accountId: string) => PaperOrderGateway;
  /** Service-wide provider settings (selection, sealed credentials, token refresh) and users' asset modes. */
  settings: SettingsDeps;
  /** The settings-driven provider selection: market data and order gateway of the selected provider. */
  providers: ProviderRegistry;
  imports: ImportDeps;
  /** Per-symbol trading calendars and the data readiness read against the candle store. */
  calendar: TradingCalendarDeps;
  /** The data sync service: its state in the table, backfills through the import worker, logs to its stream. */
  dataSync: DataSyncDeps;
  /** Where work for queue-fed workers goes: SQS when configured, else the table-backed queue. */
  jobs: JobQueue;
  /** A user's broker accounts (their brokers, summarised). */
  brokerAccounts: (userId: string) => Promise<BrokerAccount[]>;
  /** Brokers (credentials sealed), their fees and connection tests. */
  brokers: BrokerServices["brokers"];
  brokerNetwork: BrokerServices["brokerNetwork"];
  dataSources: BrokerServices["dataSources"];
  /** Real and simulated cash accounts, positions, overviews and sync. */
  assets: BrokerServices["assets"];
  /** Flows saved by users (the flow editor's documents). */
  flows: FlowLibraryDeps;
  /** Trading sessions, their views and backtests. */
  trading: TradingServices;
  /** Where workflow executions (backtests) are started: Step Functions when configured, else the runtime's local runner. */
  workflows: WorkflowStarter;
  /** Times one read of the table; throws when the database is unreachable. */
  pingDatabase: () => Promise<number>;
}

export interface ServiceOverrides {
  now?: () => number;
  db?: Db;
  /** Stand-ins for the broker-facing adapters (connection tests, account reads, prices). */
  brokerAdapters?: BrokerAdapterOverrides;
  /** The runtime's own workflow runner, used when no state machine ARN is configured (the embedded runtime's local Step Functions). */
  workflows?: WorkflowStarter;
}

/** Without a configured workflow runner, starting a workflow is a 503 rather than a silent no-op. */
const noWorkflows: WorkflowStarter = {
  async start() {
    throw serviceUnavailable("No workflow runner is configured for this instance", 30);
  },
};

/** Wires the adapters for a configuration. No I/O happens here. */
export function createServices(config: ServiceConfig, overrides: ServiceOverrides = {}): Services {
  const now = overrides.now ?? Date.now;
  const newId = () => randomUUID();
  const db = overrides.db ?? createDb({ tableName: config.tableName, endpoint: config.dynamoEndpoint });
  const userStore = new DynamoUserStore(db);
  const revocations = new DynamoRevocationStore(db);
  const candles = new DynamoCandleStore(db);
  const jobs = Object.keys(config.queueUrls).length > 0 ? new SqsJobQueue(config.queueUrls) : new TableQueue(db, now);
  const simulated = new SimulatedMarketData({ clock: { now } });
  const { settings, providers } = createProviderServices(config, db, { now }, simulated);
  const marketData = (): Promise<MarketData> => providers.marketData();
  const paperBroker = createPaperBroker(db, { clock: { now }, marketData, initialCash: config.paperInitialCash });
  const probe = new Repository<object>(db, { type: "HealthProbe", key: () => Keys.healthProbe() });
  const principals = new PrincipalCache(config.auth, revocations, now, config.principalRecheckMs);
  const imports: ImportDeps = { tasks: new DynamoImportTaskStore(db), candles, marketData, jobs, now, newId };
  const calendar: TradingCalendarDeps = { entries: new DynamoCalendarStore(db), candles, marketData, now };
  const realtime: RealtimeDeps = {
    connections: new DynamoConnectionStore(db),
    pusher: new ApiGatewayPusher(() => config.websocketManagementEndpoint),
    now,
    authenticate: async (token) => ({ userId: (await principals.resolve(token)).user.id }),
    // Someone else's session: 403; an unknown one: 404 (the same rules as the session endpoints).
    authorizeSession: async (userId, sessionId) => {
      const principal = { id: userId, user_type: (await userStore.get(userId))?.user_type ?? "user" };
      await ownedSession(trading.sessions, principal, sessionId);
    },
  };
  const workflows =
    Object.keys(config.stateMachineArns).length > 0 ? new SfnWorkflowStarter(config.stateMachineArns) : (overrides.workflows ?? noWorkflows);
  const trading = createTradingServices(config, db, { now, newId }, { candles, imports, marketData, workflows, realtime });
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
    jobs,
    candles,
    marketData,
    paperBroker,
    settings,
    providers,
    imports,
    calendar,
    dataSync: { store: new DynamoSyncStore(db), workerBeat: trading.sessions.workerBeat, imports, calendar, jobs, realtime, now },
    realtime,
    brokerAccounts: (userId) => new BrokerAccountReader(db).list(userId),
    ...createBrokerServices(
      config,
      db,
      { now, newId },
      userStore,
      marketData,
      { paperAccount: paperBroker, activeProvider: () => providers.active() },
      overrides.brokerAdapters,
    ),
    flows: { flows: new DynamoFlowStore(db), now, newId },
    trading,
    workflows,
    pingDatabase: async () => {
      const started = performance.now();
      await probe.get(Keys.healthProbe(), { consistent: false });
      return performance.now() - started;
    },
  };
}
