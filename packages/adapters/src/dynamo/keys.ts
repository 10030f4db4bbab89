import type { Key } from "./entity";

/**
 * The partitions a per-session list is spread over (the live sessions' markers, the worker's
 * leases): a session's writes land on one of them, chosen by its id, so at 10,000 sessions a
 * partition takes about 600 of them, far from DynamoDB's 1,000 write units a second per key;
 * a reader lists them all in one PartiQL statement (`Repository.queryPartitions`).
 */
export const LIVE_SHARDS = 16;

/** The shard of a session's id: FNV-1a of its characters, modulo `LIVE_SHARDS` (stable across processes and versions). */
export function shardOf(id: string): number {
  let hash = 0x811c9dc5;
  for (let at = 0; at < id.length; at++) hash = Math.imul(hash ^ id.charCodeAt(at), 0x01000193);
  return (hash >>> 0) % LIVE_SHARDS;
}

const shards = (prefix: string): readonly string[] => Array.from({ length: LIVE_SHARDS }, (_, shard) => `${prefix}#${shard}`);

/**
 * Every key string of the single table is built here and nowhere else. Each entry names an
 * access pattern; docs/data-model.md lists them with their index and paging.
 */
export const Keys = {
  user: (userId: string): Key => ({ pk: `USER#${userId}`, sk: "PROFILE" }),
  /** gsi1: all users, in creation order. */
  usersByCreation: (createdAt: string, userId: string): Key => ({ pk: "USERS", sk: `${createdAt}#${userId}` }),
  usersPartition: "USERS",
  /** Unique claims: one item per taken username or email, written in the user's transaction. */
  uniqueUsername: (username: string): Key => ({ pk: `UNIQUE#USERNAME#${username.toLowerCase()}`, sk: "UNIQUE" }),
  uniqueEmail: (email: string): Key => ({ pk: `UNIQUE#EMAIL#${email.toLowerCase()}`, sk: "UNIQUE" }),

  captcha: (captchaId: string): Key => ({ pk: `CAPTCHA#${captchaId}`, sk: "CAPTCHA" }),
  loginAttempts: (username: string): Key => ({ pk: `LOGIN#${username.toLowerCase()}`, sk: "ATTEMPTS" }),
  revokedToken: (jti: string): Key => ({ pk: `REVOKED#${jti}`, sk: "TOKEN" }),
  /** An API key by its id (the key carries its id, so a request reads its item at once). */
  apiKey: (keyId: string): Key => ({ pk: `APIKEY#${keyId}`, sk: "APIKEY" }),
  /** A key's requests in one rate window (`floor(epoch ms / window length)`), one counter item each that expires after it. */
  apiKeyRate: (keyId: string, window: number): Key => ({ pk: `APIKEY#${keyId}#RATE`, sk: String(window) }),
  /** gsi1: a user's API keys by creation (`created_at#id`); read backwards for newest first. */
  apiKeysOfUser: (userId: string) => `USER#${userId}#APIKEYS`,
  apiKeyOfUser: (userId: string, createdAt: string, keyId: string): Key => ({ pk: `USER#${userId}#APIKEYS`, sk: `${createdAt}#${keyId}` }),
  /**
   * Audit entries: one partition per user per UTC day, sorted by entry id (its instant first), so a
   * user's busy bot writes to its own partition and no key takes every command; gsi1 lists a
   * session's entries; gsi2 a day's entries over `AUDIT_DAY_SHARDS` partitions (by entry id), for
   * an administrator's view of everyone.
   */
  auditOfUserDay: (userId: string, day: string) => `AUDIT#USER#${userId}#${day}`,
  auditEntry: (userId: string, day: string, entryId: string): Key => ({ pk: `AUDIT#USER#${userId}#${day}`, sk: entryId }),
  auditOfSession: (sessionId: string) => `AUDIT#SESSION#${sessionId}`,
  auditBySession: (sessionId: string, entryId: string): Key => ({ pk: `AUDIT#SESSION#${sessionId}`, sk: entryId }),
  auditOfDayShard: (day: string, shard: number) => `AUDIT#DAY#${day}#${shard}`,
  auditByDay: (day: string, shard: number, entryId: string): Key => ({ pk: `AUDIT#DAY#${day}#${shard}`, sk: entryId }),

  /** A kill switch's state (docs/security.md "Kill switch"): `STAGE` or `USER#<id>`, kept after release (its last trip). */
  killSwitch: (name: string): Key => ({ pk: "KILLSWITCH", sk: name }),
  /** The tripped switches, one small item each while tripped: every process reads them in one Query. */
  killSwitchesTripped: "KILLSWITCH#TRIPPED",
  killSwitchTripped: (name: string): Key => ({ pk: "KILLSWITCH#TRIPPED", sk: name }),

  broker: (brokerId: string): Key => ({ pk: `BROKER#${brokerId}`, sk: "BROKER" }),
  /** gsi1: a user's brokers (their broker accounts), in creation order. */
  brokersOfUser: (userId: string) => `USER#${userId}#BROKERS`,
  brokerOfUser: (userId: string, createdAt: string, brokerId: string): Key => ({
    pk: `USER#${userId}#BROKERS`,
    sk: `${createdAt}#${brokerId}`,
  }),

  /** A user's webhooks, one partition per user (at most 20), so the notifier reads them in one Query. */
  webhooksOfUser: (userId: string) => `USER#${userId}#WEBHOOKS`,
  webhook: (userId: string, webhookId: string): Key => ({ pk: `USER#${userId}#WEBHOOKS`, sk: webhookId }),
  /** A webhook's deliveries by id (its creation instant first), read backwards for newest first; each expires (ttl). */
  webhookDeliveries: (webhookId: string) => `WEBHOOK#${webhookId}#DELIVERIES`,
  webhookDelivery: (webhookId: string, deliveryId: string): Key => ({ pk: `WEBHOOK#${webhookId}#DELIVERIES`, sk: deliveryId }),

  dataSource: (dataSourceId: string): Key => ({ pk: `DATASOURCE#${dataSourceId}`, sk: "DATASOURCE" }),
  /** gsi1: every data source by priority (zero-padded) then name, so one Query returns them in list order. */
  dataSourcesPartition: "DATASOURCES",
  dataSourceByPriority: (priority: number, name: string, dataSourceId: string): Key => ({
    pk: "DATASOURCES",
    sk: `${String(priority).padStart(6, "0")}#${name.toLowerCase()}#${dataSourceId}`,
  }),
  /** gsi2: the data sources reading from a broker (a broker in use cannot be deleted). */
  dataSourcesOfBroker: (brokerId: string) => `BROKER#${brokerId}#DATASOURCES`,
  dataSourceOfBroker: (brokerId: string, dataSourceId: string): Key => ({ pk: `BROKER#${brokerId}#DATASOURCES`, sk: dataSourceId }),

  /** A user's cash account, one per mode (`real`, `simulated`). */
  assetAccount: (userId: string, mode: string): Key => ({ pk: `USER#${userId}#ASSETS`, sk: `ACCOUNT#${mode.toUpperCase()}` }),
  position: (positionId: string): Key => ({ pk: `POSITION#${positionId}`, sk: "POSITION" }),
  /** gsi1: a user's positions in one mode, in creation order; positions created together (a sync) by symbol. */
  positionsOfUser: (userId: string, mode: string) => `USER#${userId}#POSITIONS#${mode.toUpperCase()}`,
  positionOfUser: (userId: string, mode: string, createdAt: string, symbol: string, positionId: string): Key => ({
    pk: `USER#${userId}#POSITIONS#${mode.toUpperCase()}`,
    sk: `${createdAt}#${symbol}#${positionId}`,
  }),

  /** The data sync service's one record (state, lookback, subscriptions). */
  dataSync: (): Key => ({ pk: "SYNC", sk: "STATE" }),
  /** The per-symbol sequence counter of the data sync log stream. */
  syncLogSequence: (symbol: string): Key => ({ pk: `SYNC#LOG#${symbol}`, sk: "SEQUENCE" }),

  /** A probe key that never exists: the health check reads it to time the database. */
  healthProbe: (): Key => ({ pk: "HEALTH", sk: "PROBE" }),

  connection: (connectionId: string): Key => ({ pk: `CONN#${connectionId}`, sk: "CONN" }),
  /** gsi1: the connections listening to a topic. */
  connectionsOfTopic: (topic: string) => `TOPIC#${topic}`,
  connectionByTopic: (topic: string, connectionId: string): Key => ({ pk: `TOPIC#${topic}`, sk: connectionId }),

  /** Local queue messages, ordered by when they become visible. */
  queuePartition: (queue: string) => `QUEUE#${queue}`,
  queuedMessage: (queue: string, visibleAt: number, messageId: string): Key => ({
    pk: `QUEUE#${queue}`,
    sk: `${String(visibleAt).padStart(15, "0")}#${messageId}`,
  }),
  queueVisibleRange: (from: number, to: number): [string, string] => [String(from).padStart(15, "0"), `${String(to).padStart(15, "0")}#~`],
  deadLetterQueue: (queue: string) => `${queue}-dlq`,

  /** Candles of one symbol and period, one item per bucket (day, month or year), in time order. */
  candlePartition: (code: string, period: string) => `CANDLES#${code}#${period}`,
  candleBucket: (code: string, period: string, bucket: string): Key => ({ pk: `CANDLES#${code}#${period}`, sk: bucket }),
  /**
   * Each bucket's counts, one small item per bucket written right after the bucket (never over a
   * newer one), so coverage and totals are one query of small items; the marker says every bucket
   * has one.
   */
  candleSummaryPartition: (code: string, period: string) => `CANDLESUMS#${code}#${period}`,
  candleSummary: (code: string, period: string, bucket: string): Key => ({ pk: `CANDLESUMS#${code}#${period}`, sk: bucket }),
  /** Sorts after every bucket name, so no range of buckets reaches it. */
  candleSummariesComplete: (code: string, period: string): Key => ({ pk: `CANDLESUMS#${code}#${period}`, sk: "~complete" }),
  /** Every symbol with candles: one item per code in one partition. */
  stockCodesPartition: "STOCK_CODES",
  stockCode: (code: string): Key => ({ pk: "STOCK_CODES", sk: code }),

  importTask: (taskId: string): Key => ({ pk: `IMPORT#${taskId}`, sk: "TASK" }),
  /** The one running import of a symbol: held from creation until the task ends. */
  importLock: (symbol: string): Key => ({ pk: `IMPORT_LOCK#${symbol}`, sk: "LOCK" }),

  /** A symbol's corporate actions (learnt by imports): one item per symbol, guarded by its version. */
  corporateActions: (symbol: string): Key => ({ pk: `CORPORATE_ACTIONS#${symbol}`, sk: "ACTIONS" }),

  /** A symbol's trading calendar: one entry per exchange-local date, so a date range is one Query. */
  calendarPartition: (symbol: string) => `CALENDAR#${symbol}`,
  calendarEntry: (symbol: string, date: string): Key => ({ pk: `CALENDAR#${symbol}`, sk: date }),

  cacheEntry: (cacheKey: string): Key => ({ pk: `CACHE#${cacheKey}`, sk: "CACHE" }),

  flow: (flowId: string): Key => ({ pk: `FLOW#${flowId}`, sk: "FLOW" }),
  /** gsi1: a user's saved flows by creation (`created_at#id`); read backwards for newest first. */
  flowsOfUser: (userId: string) => `USER#${userId}#FLOWS`,
  flowOfUser: (userId: string, createdAt: string, flowId: string): Key => ({
    pk: `USER#${userId}#FLOWS`,
    sk: `${createdAt}#${flowId}`,
  }),

  /** Service-wide settings, one item per name (`PROVIDER`: the selected provider and its sealed credentials). */
  serviceSettings: (name: string): Key => ({ pk: "SETTINGS", sk: name }),
  /** A user's own setting (`ASSET_MODE`), in the user's partition beside the profile. */
  userSetting: (userId: string, name: string): Key => ({ pk: `USER#${userId}`, sk: `SETTING#${name}` }),
  /** Paper broker: one account item per account (cash by currency, holdings, working order ids, version). */
  paperAccount: (accountId: string): Key => ({ pk: `PAPER#${accountId}`, sk: "ACCOUNT" }),
  /** A paper account's orders by id; ids begin with the 13-digit submission time (ms), so the partition sorts by submission. */
  paperOrdersOf: (accountId: string) => `PAPER#${accountId}#ORDERS`,
  paperOrder: (accountId: string, orderId: string): Key => ({ pk: `PAPER#${accountId}#ORDERS`, sk: orderId }),
  paperOrdersSubmittedBetween: (fromMs: number, toMs: number): [string, string] => [String(fromMs).padStart(13, "0"), `${String(toMs).padStart(13, "0")}~`],
  /** A paper account's executions by fill time (15-digit ms) then trade id. */
  paperExecutionsOf: (accountId: string) => `PAPER#${accountId}#EXECUTIONS`,
  paperExecution: (accountId: string, doneMs: number, tradeId: string): Key => ({
    pk: `PAPER#${accountId}#EXECUTIONS`,
    sk: `${String(doneMs).padStart(15, "0")}#${tradeId}`,
  }),
  paperExecutionsBetween: (fromMs: number, toMs: number): [string, string] => [String(fromMs).padStart(15, "0"), `${String(toMs).padStart(15, "0")}#~`],
  /** A paper account's adjustments (deposits, withdrawals, holdings set by hand) by id, which begins with its 13-digit time. */
  paperAdjustmentsOf: (accountId: string) => `PAPER#${accountId}#ADJUSTMENTS`,
  paperAdjustment: (accountId: string, adjustmentId: string): Key => ({ pk: `PAPER#${accountId}#ADJUSTMENTS`, sk: adjustmentId }),

  /** A trading session. */
  tradingSession: (sessionId: string): Key => ({ pk: `SESSION#${sessionId}`, sk: "SESSION" }),
  /**
   * One marker per simulation or live session that is running or paused, carrying the session's
   * version: the session worker lists them and reads again only the sessions whose version moved.
   * Spread over `LIVE_SHARDS` partitions by the session's id, so no key takes every session's writes.
   */
  liveSessionsPartitions: shards("SESSIONS#LIVE"),
  liveSession: (sessionId: string): Key => ({ pk: `SESSIONS#LIVE#${shardOf(sessionId)}`, sk: sessionId }),
  /** The live list's change stamp: replaced after each replacement of a session listed before or after it (`SessionStore.liveStamp`). */
  liveSessionsStamp: { pk: "SESSIONS#LIVE#STAMP", sk: "STAMP" } as Key,
  /** One marker per playing driven run (a replay, a running historical MTF session): the session worker's playing loop lists them. */
  playingReplaysPartition: "REPLAYS#PLAYING",
  playingReplay: (runId: string): Key => ({ pk: "REPLAYS#PLAYING", sk: runId }),
  /** The session workers' heartbeat: the live tasks' beats combined, read by the status endpoints. */
  workerHeartbeat: (): Key => ({ pk: "WORKER", sk: "HEARTBEAT" }),
  /** Each worker task's own heartbeat, which keeps its leases (docs/session-worker.md "More than one worker"). */
  workerTasksPartition: "WORKER",
  workerTaskPrefix: "HEARTBEAT#",
  workerTask: (taskId: string): Key => ({ pk: "WORKER", sk: `HEARTBEAT#${taskId}` }),
  /**
   * The quote relay (docs/live-trading.md "One quote connection"): requests for the quote
   * connection's owner by time then id, each answer by request id, and the closed bars it publishes.
   */
  quoteRelayRequestsPartition: "QUOTE_RELAY#REQUESTS",
  quoteRelayRequest: (id: string): Key => ({ pk: "QUOTE_RELAY#REQUESTS", sk: id }),
  quoteRelayAnswer: (id: string): Key => ({ pk: `QUOTE_RELAY#ANSWER#${id}`, sk: "ANSWER" }),
  quoteRelayBars: (): Key => ({ pk: "QUOTE_RELAY", sk: "BARS" }),
  /** The quote lease: the worker task that holds the provider's quote connection. */
  quoteLease: (): Key => ({ pk: "WORKER#QUOTE", sk: "LEASE" }),
  /** One lease per live session: the worker task that feeds it (spread over `LIVE_SHARDS` partitions as the live markers are). */
  workerLeasesPartitions: shards("WORKER#LEASES"),
  workerLease: (sessionId: string): Key => ({ pk: `WORKER#LEASES#${shardOf(sessionId)}`, sk: sessionId }),
  /** gsi1: a user's sessions by creation (`created_at#id`), read backwards for newest first. */
  sessionsOfUser: (userId: string) => `USER#${userId}#SESSIONS`,
  sessionOfUser: (userId: string, createdAt: string, sessionId: string): Key => ({ pk: `USER#${userId}#SESSIONS`, sk: `${createdAt}#${sessionId}` }),
  /** gsi2: a user's sessions of one status, by creation. */
  sessionsOfUserByStatus: (userId: string, status: string) => `USER#${userId}#SESSIONS#${status}`,
  sessionOfUserByStatus: (userId: string, status: string, createdAt: string, sessionId: string): Key => ({
    pk: `USER#${userId}#SESSIONS#${status}`,
    sk: `${createdAt}#${sessionId}`,
  }),

  /** A run's state item (latest snapshot and progress, compressed: the commit point of its saves) and its setup item. */
  runState: (runId: string): Key => ({ pk: `RUN#${runId}`, sk: "STATE" }),
  runSetup: (runId: string): Key => ({ pk: `RUN#${runId}`, sk: "SETUP" }),
  /** An item per event, as runs were written before their log of blocks: read only by the `run-log` migration, which moves them. */
  runEvents: (runId: string) => `RUN#${runId}#EVENTS`,
  runEvent: (runId: string, sequence: number): Key => ({ pk: `RUN#${runId}#EVENTS`, sk: String(sequence).padStart(12, "0") }),
  /**
   * A run's blocks: its events (each save's in one item, or a few: a backtest's chunk) and the order
   * records of a save with more than one transaction holds, gzipped, many to an item; sorted by the first sequence they hold and the
   * run version that wrote them (12 digits each).
   */
  runBlocks: (runId: string) => `RUN#${runId}#BLOCKS`,
  runEventBlock: (runId: string, first: number, version: number): Key => ({
    pk: `RUN#${runId}#BLOCKS`,
    sk: `E#${String(first).padStart(12, "0")}#${String(version).padStart(12, "0")}`,
  }),
  /** Event blocks up to (inclusive) the one whose first sequence is `sequence`. */
  runEventBlocksUpTo: (sequence: number): [string, string] => ["E#", `E#${String(sequence).padStart(12, "0")}#~`],
  /** Event blocks from the one whose first sequence is `sequence` on. */
  runEventBlocksFrom: (sequence: number): [string, string] => [`E#${String(sequence).padStart(12, "0")}`, "E#~"],
  runOrderBlock: (runId: string, first: number, version: number, part: number): Key => ({
    pk: `RUN#${runId}#BLOCKS`,
    sk: `O#${String(first).padStart(12, "0")}#${String(version).padStart(12, "0")}#${String(part).padStart(4, "0")}`,
  }),
  runOrderBlocksPrefix: "O#",
  /** An order of a run, by id; gsi1 lists a run's orders by the sequence that created them, gsi2 by status. */
  runOrder: (orderId: string): Key => ({ pk: `ORDER#${orderId}`, sk: "ORDER" }),
  runOrders: (runId: string) => `RUN#${runId}#ORDERS`,
  runOrderBySequence: (runId: string, sequence: number): Key => ({ pk: `RUN#${runId}#ORDERS`, sk: String(sequence).padStart(12, "0") }),
  runOrdersByStatus: (runId: string, status: string) => `RUN#${runId}#ORDERS#${status}`,
  runOrderByStatus: (runId: string, status: string, sequence: number): Key => ({ pk: `RUN#${runId}#ORDERS#${status}`, sk: String(sequence).padStart(12, "0") }),

  /** Multi-channel sessions: which configuration version is current and which pending (one item beside the session). */
  channelConfigPointer: (sessionId: string): Key => ({ pk: `SESSION#${sessionId}`, sk: "CONFIG#POINTER" }),
  /** Every configuration version of a session, in version order (6-digit version). */
  channelConfigVersions: (sessionId: string) => `SESSION#${sessionId}#CONFIG`,
  channelConfigVersion: (sessionId: string, version: number): Key => ({ pk: `SESSION#${sessionId}#CONFIG`, sk: String(version).padStart(6, "0") }),
  /** The short-lived feed of what a session's socket pushed, by push time (15-digit ms, unique per session). */
  sessionUpdates: (sessionId: string) => `SESSION#${sessionId}#UPDATES`,
  sessionUpdate: (sessionId: string, atMs: number): Key => ({ pk: `SESSION#${sessionId}#UPDATES`, sk: String(atMs).padStart(15, "0") }),
  /** The feed's items keyed after an instant (every one for null), then its head. */
  sessionUpdatesAfter: (atMs: number | null): [string, string] => [String(Math.max(0, (atMs ?? -1) + 1)).padStart(15, "0"), "HEAD"],
  /** The newest instant of a session's feed and its newest records (sorts after every record's 15 digits). */
  sessionUpdatesHead: (sessionId: string): Key => ({ pk: `SESSION#${sessionId}#UPDATES`, sk: "HEAD" }),

  /** A backtest; gsi1 lists a session's backtests by creation; gsi2 (sparse) holds the active ones. */
  backtest: (backtestId: string): Key => ({ pk: `BACKTEST#${backtestId}`, sk: "BACKTEST" }),
  backtestsOfSession: (sessionId: string) => `SESSION#${sessionId}#BACKTESTS`,
  backtestOfSession: (sessionId: string, createdAt: string, backtestId: string): Key => ({
    pk: `SESSION#${sessionId}#BACKTESTS`,
    sk: `${createdAt}#${backtestId}`,
  }),
  activeBacktests: "BACKTESTS#ACTIVE",
  activeBacktest: (createdAt: string, backtestId: string): Key => ({ pk: "BACKTESTS#ACTIVE", sk: `${createdAt}#${backtestId}` }),

  /** A parameter sweep; gsi1 lists a session's sweeps by creation; gsi2 (sparse) holds the active ones. Its runs are backtests. */
  sweep: (sweepId: string): Key => ({ pk: `SWEEP#${sweepId}`, sk: "SWEEP" }),
  sweepOfSession: (sessionId: string, createdAt: string, sweepId: string): Key => ({ pk: `SESSION#${sessionId}#SWEEPS`, sk: `${createdAt}#${sweepId}` }),
  activeSweeps: "SWEEPS#ACTIVE",
  activeSweep: (createdAt: string, sweepId: string): Key => ({ pk: "SWEEPS#ACTIVE", sk: `${createdAt}#${sweepId}` }),
  /** A sweep's control flags, written with it: what its runs read at every checkpoint (a few bytes, not the plan of every run). */
  sweepFlags: (sweepId: string): Key => ({ pk: `SWEEP#${sweepId}`, sk: "FLAGS" }),
  /** One chunk of a walk-forward's in-sample grid: its points' figures, in the sweep's partition (a Query on the prefix reads them all). */
  sweepGridChunk: (sweepId: string, window: number, chunk: number): Key => ({
    pk: `SWEEP#${sweepId}`,
    sk: `GRID#${String(window).padStart(3, "0")}#${String(chunk).padStart(4, "0")}`,
  }),
  sweepGridPrefix: "GRID#",

  /** A bias check's report (docs/backtests.md "Bias checks"), read back by its id. */
  biasCheck: (checkId: string): Key => ({ pk: `BIASCHECK#${checkId}`, sk: "BIASCHECK" }),
};
