import { randomUUID } from "node:crypto";
import type { AuthDeps } from "@tp/core/auth";
import type { CandleStore } from "@tp/core/candles/index";
import type { ImportDeps } from "@tp/core/imports/index";
import { importProgress, type DataSyncDeps } from "@tp/core/data-sync/index";
import type { TradingCalendarDeps } from "@tp/core/trading-calendar/index";
import type { JobQueue } from "@tp/core/jobs";
import type { MarketData } from "@tp/core/provider/market-data";
import type { RealtimeDeps } from "@tp/core/realtime";
import type { FlowLibraryDeps } from "@tp/core/flows/flow-library";
import type { Actor, UserStore, UsersDeps } from "@tp/core/users";
import { ReadThroughCache } from "./cache";
import type { ServiceConfig } from "./config";
import { createDb, type Db } from "./dynamo/db";
import { PrincipalCache } from "./principal-cache";
import { withSharedGets } from "./dynamo/shared-reads";
import { DynamoApiKeyStore, DynamoCaptchaStore, DynamoKeyRateStore, DynamoLoginAttemptStore, DynamoRevocationStore } from "./stores/auth-stores";
import { DynamoAuditStore } from "./stores/audit-store";
import { DynamoKillSwitchStore } from "./stores/kill-switch-store";
import { KillSwitchGuard, type KillSwitchOrder, type KillSwitchStore, type OutsideOrderDesk } from "@tp/core/kill-switch";
import { PaperBroker } from "@tp/core/paper/broker";
import { isDone } from "@tp/core/paper/types";
import { simulatedAccountOf } from "@tp/core/trading/accounts";
import type { ApiKeyDeps } from "@tp/core/api-keys";
import { AUDIT_RETENTION_DAYS, type AuditDeps } from "@tp/core/audit";
import { DynamoUserStore } from "./stores/user-store";
import { DynamoFlowStore } from "./stores/flow-store";
import { DynamoConnectionStore } from "./stores/connection-store";
import { ApiGatewayPusher } from "./realtime/api-gateway-pusher";
import { SqsJobQueue } from "./queues/sqs-queue";
import { SfnWorkflowStarter } from "./workflows/sfn-starter";
import { DynamoCandleStore } from "./stores/candle-store";
import { DynamoImportTaskStore } from "./stores/import-task-store";
import { DynamoCalendarStore } from "./stores/calendar-store";
import { DynamoCorporateActionStore } from "./stores/corporate-action-store";
import { DynamoSyncStore } from "./stores/sync-store";
import { SimulatedMarketData } from "./provider/simulated";
import { createPaperBroker, paperBrokerDeps, type PaperBrokerHandle } from "./provider/paper";
import type { PaperBrokerDeps } from "@tp/core/paper/broker";
import { Sleeves } from "@tp/core/paper/sleeves";
import type { OrderGateway } from "@tp/core/provider/order-gateway";
import { createProviderServices, paperGatewayUnavailable, type ProviderRegistry } from "./provider/registry";
import type { SettingsDeps } from "@tp/core/settings/index";
import { TableQueue } from "./queues/table-queue";
import { SqsSessionCommands, TableSessionCommands } from "./queues/session-commands";
import { BrokerAccountReader, type BrokerAccount } from "./stores/broker-accounts";
import { Keys } from "./dynamo/keys";
import { Repository } from "./dynamo/repository";
import { createBrokerServices, type BrokerAdapterOverrides, type BrokerServices } from "./accounts/compose";
import { serviceUnavailable } from "@tp/core/errors";
import type { WorkflowStarter } from "@tp/core/workflows";
import { createBacktestControl, createBacktestServices, createSessionServices, withChannels, withDrivers, type TradingServices } from "./trading";
import type { SweepControlDeps } from "@tp/core/backtests/sweeps";
import type { BiasCheckDeps } from "@tp/core/backtests/bias-check-control";
import { createBiasChecks } from "./trading";
import { DynamoRunStore } from "./stores/run-store";
import { DynamoSessionStore } from "./stores/session-store";
import { DynamoWorkerStore } from "./stores/worker-store";
import { owned as ownedSession } from "@tp/core/trading/sessions";
import { CoalescingCommandSink, type SessionCommandSink, type SessionCommandSource } from "@tp/core/trading/commands";
import type { DeliveryDeps, NotifierDeps, SessionNotifier, WebhookDeps } from "@tp/core/webhooks/index";
import { notifyUser, sessionNotifier, workflowEnded } from "@tp/core/webhooks/notify";
import type { StoredBacktest } from "@tp/core/backtests/backtest-model";
import { AesGcmSecretBox } from "./crypto/aes-gcm-secret-box";
import { EgressPolicy } from "./net/egress";
import { EgressDestinations, HttpWebhookSender } from "./net/webhook-sender";
import { DynamoBrokerNetworkStore } from "./stores/broker-network-store";
import { CachedWebhookLists, DynamoWebhookStore } from "./stores/webhook-store";
import { Lru } from "./lru";

/** The record of adapters every runtime builds the same way (the composition root's output). */
export interface Services {
  config: ServiceConfig;
  db: Db;
  now: () => number;
  newId: () => string;
  auth: AuthDeps;
  users: UsersDeps;
  principals: PrincipalCache;
  /** Users' API keys (docs/security.md "API keys"). */
  apiKeys: ApiKeyDeps;
  /** The audit trail of commands (docs/security.md "Audit trail"). */
  audit: AuditDeps;
  /** The kill switches: their state in the table and this process's view of the tripped ones (docs/security.md "Kill switch"). */
  killSwitch: KillSwitchServices;
  /** The simulated venue's orders outside any session, which a trip withdraws (a builder of its own: only the switch's function and the worker bundle the paper broker for it). */
  outsideOrders: OutsideOrderDesk;
  cache: ReadThroughCache;
  realtime: RealtimeDeps;
  candles: CandleStore;
  /** The market-data provider currently selected (the simulated market unless settings choose LongPort). */
  marketData: () => Promise<MarketData>;
  /** The paper broker (the default trade adapter) for one account id; the api-test endpoints use the caller's user id. */
  paperBroker: PaperBrokerHandle;
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
  /** The session worker's command queue: the API sends, the worker receives (SQS FIFO when configured, else the table-backed queue). */
  sessionCommands: SessionCommandSink & SessionCommandSource;
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
  /** Users' webhooks: the API's side (docs/security.md "Webhooks"). */
  webhooks: WebhookDeps;
  /** The webhook delivery worker's side: signing, sending through the egress rules, recording, retrying. */
  webhookDelivery: DeliveryDeps;
  /** Where notification events go: the users' matching webhooks' queue. */
  notifier: NotifierDeps;
  /** Trading sessions, their views and backtests. */
  trading: TradingServices;
  /** Where workflow executions (backtests) are started: Step Functions when configured, else the runtime's local runner. */
  workflows: WorkflowStarter;
  /** Times one read of the table; throws when the database is unreachable. */
  pingDatabase: () => Promise<number>;
}

/** The kill switches' store and the process's guard over it (one per process: a trip made here holds here at once). */
export interface KillSwitchServices {
  store: KillSwitchStore;
  guard: KillSwitchGuard;
}

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
 * service below is a function of the context that builds its adapters once per context (and
 * the services it depends on through the same context), so a runtime that asks for two of them
 * gets them wired to each other and builds nothing else. A Lambda function asks for what its
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
function once<T>(context: ServiceContext, service: (context: ServiceContext) => T, build: () => T): T {
  if (!context.built.has(service)) context.built.set(service, build());
  return context.built.get(service) as T;
}

/** Without a configured workflow runner, starting a workflow is a 503 rather than a silent no-op. */
const noWorkflows: WorkflowStarter = {
  async start() {
    throw serviceUnavailable("No workflow runner is configured for this instance", 30);
  },
};

/*
 * The services, one builder each (named as the field of `Services` they fill). Builders import
 * only what they construct; a function's bundle is what its builders reach.
 */

export function userStore(c: ServiceContext): UserStore {
  return once(c, userStore, () => new DynamoUserStore(c.db));
}

function revocations(c: ServiceContext): DynamoRevocationStore {
  return once(c, revocations, () => new DynamoRevocationStore(c.db));
}

function apiKeyStore(c: ServiceContext): DynamoApiKeyStore {
  return once(c, apiKeyStore, () => new DynamoApiKeyStore(c.db));
}

export function principals(c: ServiceContext): PrincipalCache {
  return once(
    c,
    principals,
    () => new PrincipalCache(c.config.auth, revocations(c), c.now, c.config.principalRecheckMs, undefined, apiKeyStore(c), new DynamoKeyRateStore(c.db)),
  );
}

export function apiKeys(c: ServiceContext): ApiKeyDeps {
  return once(c, apiKeys, () => ({ keys: apiKeyStore(c), now: c.now }));
}

export function audit(c: ServiceContext): AuditDeps {
  return once(c, audit, () => ({ store: new DynamoAuditStore(c.db), now: c.now, retentionDays: c.config.auditRetentionDays ?? AUDIT_RETENTION_DAYS }));
}

export function killSwitch(c: ServiceContext): KillSwitchServices {
  return once(c, killSwitch, () => {
    const store = new DynamoKillSwitchStore(c.db);
    return { store, guard: new KillSwitchGuard(store, c.now) };
  });
}

/**
 * The simulated venue's orders outside any session (docs/security.md "Kill switch"): a trip
 * withdraws each working order of the owners' simulated accounts that trades no session's sleeve.
 * The kill switch's function and the session worker (a risk trip) build it.
 */
export function outsideOrders(c: ServiceContext): OutsideOrderDesk {
  return once(c, outsideOrders, () => ({
    async withdraw(userIds) {
      const paper = paperAccounts(c);
      const owners = userIds ?? (await userStore(c).list()).map((user) => user.id);
      const out: KillSwitchOrder[] = [];
      for (const userId of owners) {
        const accountId = simulatedAccountOf(userId);
        for (const order of (await paper.store.load(accountId))?.working ?? []) {
          if (order.sleeve !== undefined || isDone(order)) continue;
          const listed = { session_id: null, account_id: accountId, order_id: order.order_id, symbol: order.symbol, side: order.side };
          try {
            await PaperBroker.cancelOrder(paper, accountId, order.order_id);
            out.push({ ...listed, status: "cancelled", cancel_requested: false, cancel_failed: null });
          } catch (error) {
            // Filled or ended meanwhile, or the account busy: listed with why (a second trip tries again).
            const message = error instanceof Error ? error.message : String(error);
            out.push({
              ...listed,
              status: order.status,
              cancel_requested: false,
              cancel_failed: { error: message, attempts: 1, at: new Date(c.marketNow()).toISOString() },
            });
          }
        }
      }
      return out;
    },
  }));
}

export function auth(c: ServiceContext): AuthDeps {
  return once(c, auth, () => ({
    config: c.config.auth,
    users: userStore(c),
    captchas: new DynamoCaptchaStore(c.db),
    attempts: new DynamoLoginAttemptStore(c.db, c.now),
    revocations: revocations(c),
    now: c.now,
  }));
}

export function users(c: ServiceContext): UsersDeps {
  return once(c, users, () => ({ users: userStore(c), now: c.now, newId: c.newId, onUserChanged: (userId: string) => principals(c).invalidateUser(userId) }));
}

export function cache(c: ServiceContext): ReadThroughCache {
  return once(c, cache, () => new ReadThroughCache(c.db, c.now));
}

export function jobs(c: ServiceContext): JobQueue {
  return once(c, jobs, () => (Object.keys(c.config.queueUrls).length > 0 ? new SqsJobQueue(c.config.queueUrls) : new TableQueue(c.db, c.now)));
}

export function candles(c: ServiceContext): CandleStore {
  return once(c, candles, () => new DynamoCandleStore(c.db, { cacheCandles: c.config.candleCacheCandles }));
}

/**
 * Settings and the provider registry. The simulated provider's orders go to the paper broker
 * when a service that trades has built it (`paperBroker`); functions that only read market data
 * never load it, and an order there would be a 503.
 */
function providerServices(c: ServiceContext): { settings: SettingsDeps; providers: ProviderRegistry } {
  return once(c, providerServices, () =>
    createProviderServices(c.config, c.db, { now: c.marketNow }, new SimulatedMarketData({ clock: { now: c.marketNow } }), {
      paperGateway: (accountId) => {
        if (!c.paperGateway) throw paperGatewayUnavailable();
        return c.paperGateway(accountId);
      },
    }),
  );
}

export function settings(c: ServiceContext): SettingsDeps {
  return providerServices(c).settings;
}

export function marketData(c: ServiceContext): () => Promise<MarketData> {
  return once(c, marketData, () => () => providerServices(c).providers.marketData());
}

/** The paper broker's deps: its accounts (the simulated accounts and sessions' sleeves) without its order gateway. */
export function paperAccounts(c: ServiceContext): PaperBrokerDeps {
  return once(c, paperAccounts, () =>
    paperBrokerDeps(c.db, { clock: { now: c.marketNow }, marketData: marketData(c), initialCash: c.config.paperInitialCash }),
  );
}

/** The paper broker; building it makes it the simulated provider's order gateway. */
export function paperBroker(c: ServiceContext): PaperBrokerHandle {
  return once(c, paperBroker, () => {
    const broker = createPaperBroker(paperAccounts(c));
    c.paperGateway = broker;
    return broker;
  });
}

/** The provider registry for market data: orders under the simulated provider are a 503 unless `paperBroker` is built too. */
export function marketProviders(c: ServiceContext): ProviderRegistry {
  return providerServices(c).providers;
}

/** The provider registry with orders: the selected provider's gateway, the paper broker's under the simulated provider. */
export function providers(c: ServiceContext): ProviderRegistry {
  paperBroker(c);
  return providerServices(c).providers;
}

export function imports(c: ServiceContext): ImportDeps {
  return once(c, imports, () => {
    // An import's progress goes to its symbol's data-sync log stream.
    const stream = { store: new DynamoSyncStore(c.db), realtime: realtime(c), now: c.marketNow };
    return {
      tasks: new DynamoImportTaskStore(c.db),
      candles: candles(c),
      corporateActions: new DynamoCorporateActionStore(c.db),
      marketData: marketData(c),
      jobs: jobs(c),
      now: c.marketNow,
      newId: c.newId,
      progress: (view) => importProgress(stream, view),
    };
  });
}

export function calendar(c: ServiceContext): TradingCalendarDeps {
  return once(c, calendar, () => ({ entries: new DynamoCalendarStore(c.db), candles: candles(c), marketData: marketData(c), now: c.marketNow }));
}

export function realtime(c: ServiceContext): RealtimeDeps {
  return once(c, realtime, () => {
    const sessions = new DynamoSessionStore(c.db, new DynamoRunStore(c.db));
    return {
      connections: new DynamoConnectionStore(c.db),
      pusher: new ApiGatewayPusher(() => c.config.websocketManagementEndpoint),
      now: c.now,
      marketNow: c.marketNow,
      authenticate: async (token: string) => {
        const { user, key } = await principals(c).resolve(token);
        return { actor: user, ...(key ? { key } : {}) };
      },
      // Someone else's session or one outside a key's sessions: 403; an unknown one: 404 (the same rules as the session endpoints).
      authorizeSession: (actor: Actor, sessionId: string) => ownedSession({ sessions, now: c.now, newId: c.newId }, actor, sessionId).then(() => undefined),
    };
  });
}

export function workflows(c: ServiceContext): WorkflowStarter {
  return once(c, workflows, () =>
    Object.keys(c.config.stateMachineArns).length > 0 ? new SfnWorkflowStarter(c.config.stateMachineArns) : (c.overrides.workflows ?? noWorkflows),
  );
}

/** Trading sessions, their runs and views. */
export function tradingSessions(c: ServiceContext): TradingServices["sessions"] {
  // A burst of commands into one session shares its reads and its messages to the worker (docs/session-worker.md "Commands from the API").
  return once(c, tradingSessions, () => {
    const views = sessionViews(c);
    return Object.assign(views, { commands: new CoalescingCommandSink(sessionCommands(c)), sessions: withSharedGets(views.sessions) });
  });
}

/**
 * The session views without the session worker's command queue: the same record `tradingSessions`
 * completes where both are built. Functions that build only this (the channel and MTF routes, the
 * day rollover) leave the SQS client out of their bundles; the worker picks up the sessions they
 * start or stop on its next refresh (docs/session-worker.md).
 */
export function sessionViews(c: ServiceContext): TradingServices["sessions"] {
  return once(c, sessionViews, () =>
    createSessionServices(
      c.config,
      c.db,
      { now: c.marketNow, newId: c.newId },
      {
        marketData: marketData(c),
        paper: paperAccounts(c),
        // A live session trades the account at the selected provider: LongPort's, or under the simulated provider the user's paper account.
        async buyingPower(userId, currency) {
          const active = await marketProviders(c).active();
          if (active.type === "longport") return (await (await active.orderGateway(userId)).accountBalance(currency))[0]?.buy_power ?? null;
          return (await Sleeves.freeCash(paperAccounts(c), userId, currency))?.toFixed() ?? null;
        },
        killSwitch: killSwitch(c).guard,
      },
    ),
  );
}

/** The session worker's command queue (docs/session-worker.md): SQS FIFO when configured, the table-backed queue otherwise. */
export function sessionCommands(c: ServiceContext): SessionCommandSink & SessionCommandSource {
  return once(c, sessionCommands, () =>
    c.config.sessionCommandsUrl ? new SqsSessionCommands(c.config.sessionCommandsUrl) : new TableSessionCommands(new TableQueue(c.db, c.now)),
  );
}

/** Starting, controlling and reading backtests (the HTTP endpoints; the workflow's tasks need `tradingBacktests`). */
export function backtestControl(c: ServiceContext): SweepControlDeps {
  return once(c, backtestControl, () =>
    createBacktestControl(c.config, c.db, { now: c.marketNow, newId: c.newId }, { candles: candles(c), marketData: marketData(c), workflows: workflows(c) }),
  );
}

/** Bias checks of a strategy over stored candles (docs/backtests.md "Bias checks"): synchronous runs, reports stored. */
export function biasChecks(c: ServiceContext): BiasCheckDeps {
  return once(c, biasChecks, () => createBiasChecks(c.config, c.db, { now: c.marketNow, newId: c.newId }, { candles: candles(c), marketData: marketData(c) }));
}

/** Backtests and their workflow tasks. */
export function tradingBacktests(c: ServiceContext): TradingServices["backtests"] {
  return once(c, tradingBacktests, () =>
    createBacktestServices(
      c.config,
      c.db,
      { now: c.marketNow, newId: c.newId },
      { candles: candles(c), imports: imports(c), marketData: marketData(c), workflows: workflows(c) },
    ),
  );
}

/**
 * Multi-channel sessions: the session views (the same record) with configuration versions, the
 * update feed, the socket and the webhooks' notification hook on the sessions' streams (docs/operations.md
 * "Where events come from"): every runtime that publishes notifies.
 */
export function tradingChannels(c: ServiceContext): TradingServices["channels"] {
  return once(c, tradingChannels, () => Object.assign(withChannels(sessionViews(c), c.db, realtime(c)), { notify: sessionNotifications(c) }));
}

/** Runs driven over stored candles (replays, historical MTF sessions): the session views (the same record) with the candles; their speed counts seconds of `now`, the wall clock, not of the market's (accelerated) one. */
export function tradingDrivers(c: ServiceContext): TradingServices["drivers"] {
  return once(c, tradingDrivers, () => withDrivers(sessionViews(c), c.db, candles(c), c.now));
}

/** Every trading service (the session worker, `npm start`, the docs function). */
export function trading(c: ServiceContext): TradingServices {
  return once(c, trading, () => ({
    sessions: tradingSessions(c),
    backtests: notifyingBacktests(c),
    channels: tradingChannels(c),
    drivers: tradingDrivers(c),
    biasChecks: biasChecks(c),
  }));
}

export function dataSync(c: ServiceContext): DataSyncDeps {
  return once(c, dataSync, () => {
    const workers = new DynamoWorkerStore(c.db);
    return {
      store: new DynamoSyncStore(c.db),
      workerBeat: () => workers.last(),
      imports: imports(c),
      calendar: calendar(c),
      jobs: jobs(c),
      realtime: realtime(c),
      now: c.marketNow,
    };
  });
}

export function brokerAccounts(c: ServiceContext): (userId: string) => Promise<BrokerAccount[]> {
  return once(c, brokerAccounts, () => {
    const reader = new BrokerAccountReader(c.db);
    return (userId: string) => reader.list(userId);
  });
}

function brokerServices(c: ServiceContext): BrokerServices {
  return once(c, brokerServices, () =>
    createBrokerServices(
      c.config,
      c.db,
      { now: c.now, marketNow: c.marketNow, newId: c.newId },
      userStore(c),
      marketData(c),
      { paperAccount: paperBroker(c), activeProvider: () => providers(c).active(), paper: paperAccounts(c) },
      c.overrides.brokerAdapters,
    ),
  );
}

export function brokers(c: ServiceContext): BrokerServices["brokers"] {
  return brokerServices(c).brokers;
}

export function brokerNetwork(c: ServiceContext): BrokerServices["brokerNetwork"] {
  return brokerServices(c).brokerNetwork;
}

export function dataSources(c: ServiceContext): BrokerServices["dataSources"] {
  return brokerServices(c).dataSources;
}

export function assets(c: ServiceContext): BrokerServices["assets"] {
  return brokerServices(c).assets;
}

export function flows(c: ServiceContext): FlowLibraryDeps {
  return once(c, flows, () => ({ flows: new DynamoFlowStore(c.db), now: c.now, newId: c.newId }));
}

function webhookStore(c: ServiceContext): DynamoWebhookStore {
  return once(c, webhookStore, () => new DynamoWebhookStore(c.db));
}

function webhookLists(c: ServiceContext): CachedWebhookLists {
  return once(c, webhookLists, () => new CachedWebhookLists(webhookStore(c)));
}

/** The broker tests' egress rules (docs/security.md "Outbound connections"): the deployment's allowed hosts and the administrator's, read at each check. */
function egress(c: ServiceContext): EgressPolicy {
  return once(c, egress, () => {
    const network = new DynamoBrokerNetworkStore(c.db);
    return new EgressPolicy(async () => [...c.config.brokerAllowedHosts, ...((await network.get())?.allowed_hosts ?? [])]);
  });
}

function webhookSecrets(c: ServiceContext): AesGcmSecretBox {
  return once(c, webhookSecrets, () => new AesGcmSecretBox(c.config.encryptionKey));
}

export function webhooks(c: ServiceContext): WebhookDeps {
  return once(c, webhooks, () => ({
    store: webhookStore(c),
    secrets: webhookSecrets(c),
    destinations: new EgressDestinations(egress(c)),
    queue: jobs(c),
    now: c.now,
    onChanged: (userId: string) => webhookLists(c).forget(userId),
  }));
}

export function webhookDelivery(c: ServiceContext): DeliveryDeps {
  return once(c, webhookDelivery, () => ({
    store: webhookStore(c),
    secrets: webhookSecrets(c),
    sender: new HttpWebhookSender(egress(c)),
    queue: jobs(c),
    now: c.now,
  }));
}

/** The notification hook's deps: users' enabled webhooks from a short-lived cache, deliveries to their queue (timestamps on the wall clock). */
export function notifier(c: ServiceContext): NotifierDeps {
  return once(c, notifier, () => ({ enabledWebhooks: (userId: string) => webhookLists(c).enabledOf(userId), queue: jobs(c), now: c.now }));
}

/** The sessions' streams' hook: a session's owner read once per process (it never changes), then `notifier`. */
export function sessionNotifications(c: ServiceContext): SessionNotifier {
  return once(c, sessionNotifications, () => {
    const owners = new Lru<string, string>(50_000);
    return sessionNotifier(notifier(c), async (sessionId) => {
      const known = owners.get(sessionId);
      if (known) return known;
      const owner = (await sessionViews(c).sessions.get(sessionId))?.user_id;
      if (owner) owners.set(sessionId, owner);
      return owner;
    });
  });
}

/** Backtests whose end (not a sweep's run's) is told to the owner's webhooks (`backtest_completed`): the workflow's tasks' services. */
export function notifyingBacktests(c: ServiceContext): TradingServices["backtests"] {
  return once(c, notifyingBacktests, () =>
    Object.assign(tradingBacktests(c), {
      onEnded: async (backtest: StoredBacktest) => {
        const data = {
          strategy_name: backtest.strategy_name,
          symbols: backtest.symbols,
          final_capital: backtest.result?.final_capital ?? null,
          error: backtest.error,
        };
        await notifyUser(notifier(c), backtest.user_id, [workflowEnded("backtest_completed", backtest, c.now(), data)]);
      },
    }),
  );
}

export function pingDatabase(c: ServiceContext): () => Promise<number> {
  return once(c, pingDatabase, () => {
    const probe = new Repository<object>(c.db, { type: "HealthProbe", key: () => Keys.healthProbe() });
    return async () => {
      const started = performance.now();
      await probe.get(Keys.healthProbe(), { consistent: false });
      return performance.now() - started;
    };
  });
}

/** Every service: what the embedded runtime, the docs function, the session worker and the tests use. No I/O happens here. */
export function createServices(config: ServiceConfig, overrides: ServiceOverrides = {}): Services {
  return allServices(serviceContext(config, overrides));
}

/** Every service on a context (built once each: asking again gives the same adapters). */
export function allServices(c: ServiceContext): Services {
  return {
    config: c.config,
    db: c.db,
    now: c.now,
    newId: c.newId,
    auth: auth(c),
    users: users(c),
    principals: principals(c),
    apiKeys: apiKeys(c),
    audit: audit(c),
    killSwitch: killSwitch(c),
    outsideOrders: outsideOrders(c),
    cache: cache(c),
    jobs: jobs(c),
    sessionCommands: sessionCommands(c),
    candles: candles(c),
    marketData: marketData(c),
    paperBroker: paperBroker(c),
    settings: settings(c),
    providers: providers(c),
    imports: imports(c),
    calendar: calendar(c),
    dataSync: dataSync(c),
    realtime: realtime(c),
    brokerAccounts: brokerAccounts(c),
    brokers: brokers(c),
    brokerNetwork: brokerNetwork(c),
    dataSources: dataSources(c),
    assets: assets(c),
    flows: flows(c),
    webhooks: webhooks(c),
    webhookDelivery: webhookDelivery(c),
    notifier: notifier(c),
    trading: trading(c),
    workflows: workflows(c),
    pingDatabase: pingDatabase(c),
  };
}
