/**
 * The composition root's record: `Services`, every adapter a runtime uses, and `allServices` /
 * `createServices`, which build all of them on one context (the embedded runtime, the session
 * worker, the docs function, the tests). The builders themselves, one per field, live under
 * `compose/` by concern (`context.ts` holds the context they share): a Lambda function imports the
 * few it composes from there, and its bundle holds only what those reach.
 */
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
import type { ReadThroughCache } from "./cache";
import type { ServiceConfig } from "./config";
import type { Db } from "./dynamo/db";
import type { PrincipalCache } from "./principal-cache";
import type { OutsideOrderDesk } from "@tp/core/kill-switch";
import type { ApiKeyDeps } from "@tp/core/api-keys";
import type { AuditDeps } from "@tp/core/audit";
import type { PaperBrokerHandle } from "./provider/paper";
import type { ProviderRegistry } from "./provider/registry";
import type { SettingsDeps } from "@tp/core/settings/index";
import type { BrokerAccount } from "./stores/broker-accounts";
import type { BrokerServices } from "./accounts/compose";
import type { WorkflowStarter } from "@tp/core/workflows";
import type { TradingServices } from "./trading";
import type { SessionCommandSink, SessionCommandSource } from "@tp/core/trading/worker/commands";
import type { DeliveryDeps, NotifierDeps, WebhookDeps } from "@tp/core/webhooks/index";
import { type ServiceOverrides, type ServiceContext, serviceContext } from "./compose/context";
import { principals, apiKeys, audit, auth, users, flows } from "./compose/users";
import { cache, jobs, workflows, realtime, pingDatabase } from "./compose/platform";
import { candles, settings, marketData, paperBroker, providers, imports, calendar, dataSync } from "./compose/market";
import { type KillSwitchServices, killSwitch, outsideOrders } from "./compose/kill-switch";
import { brokerAccounts, brokers, brokerNetwork, dataSources, assets } from "./compose/brokers";
import { webhooks, webhookDelivery, notifier } from "./compose/webhooks";
import { sessionCommands, trading } from "./compose/trading";

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
