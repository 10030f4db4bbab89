import { z } from "zod";
import { StoredPeriods, type StoredPeriod } from "../candles/buckets";
import { badRequest, conflict, DomainError, notFound } from "../errors";
import { Imports, type ImportDeps, type StockImportStatus } from "../imports/index";
import type { JobQueue } from "../jobs";
import { Calendar } from "../market/calendar";
import { assertSupportedMarket, marketOf, normalizeSymbol } from "../market/market";
import { dayNumberOf, isoDateOf, type IsoDate } from "../market/zoned-time";
import { Realtime, type RealtimeDeps } from "../realtime";
import { TradingCalendar, type TradingCalendarDeps } from "../trading-calendar/index";
import type { Actor } from "../users";
import { workerStatus, type WorkerBeat } from "../trading/worker/status";
import type { ImportProgressMessage, SyncLogMessage } from "../streams";
import { WorkerStatusView } from "../trading/worker/status";
import { log } from "../log";
import { iso } from "../util/time";

/**
 * The data sync service (docs/data-sync.md): one service-wide record in the table holding the
 * `sync_state` machine of the interface, the lookback window and the subscribed symbols with the
 * sessions holding each. Starting it settles each symbol's calendar and backfills `lookback_days`
 * of every stored period through the import worker; a schedule fills gaps (polling). Every HTTP
 * instance, the queue worker and the schedule read and write the same record, conditionally on
 * its version, so they agree.
 */

export const SyncState = z.enum(["stopped", "initializing", "ready", "syncing"]).meta({ id: "SyncState" });
export type SyncState = z.infer<typeof SyncState>;

/** Where one symbol's backfill stands: `pending` (to settle), `importing` (an import task runs), `ready`, `failed`. */
export const SymbolSyncStatus = z.enum(["pending", "importing", "ready", "failed"]).meta({ id: "SymbolSyncStatus" });
export type SymbolSyncStatus = z.infer<typeof SymbolSyncStatus>;

export const DEFAULT_LOOKBACK_DAYS = 30;
export const MAX_LOOKBACK_DAYS = 365;
/** How long the worker waits before looking at a running backfill again. */
export const SYNC_RECHECK_SECONDS = 2;
/** How often the schedule looks for gaps (EventBridge locally: a timer). */
export const SYNC_POLL_MINUTES = 5;

export interface SymbolSync {
  status: SymbolSyncStatus;
  /** Session ids holding the subscription (reference counting: it ends when none is left). */
  sessions: string[];
  import_task_id: string | null;
  message: string;
  last_sync_time: string | null;
}

/** The service-wide record as stored. `generation` changes on every start and stop, so queued work of an earlier run is ignored. */
export interface SyncRecord {
  sync_state: SyncState;
  lookback_days: number;
  generation: number;
  symbols: Record<string, SymbolSync>;
  last_sync_time: string | null;
  message: string;
  /** Who started the current run: the backfill imports are theirs. */
  started_by: Actor | null;
  version: number;
  updated_at: string;
}

/** Storage port: the one record, replaced only if its version is unchanged. */
export interface SyncStore {
  get(): Promise<SyncRecord | undefined>;
  /** Writes `record` if the stored version is `expectedVersion` (0: nothing stored); false otherwise. */
  replace(record: SyncRecord, expectedVersion: number): Promise<boolean>;
  /** The next log sequence number of a symbol (an atomic counter). */
  nextSequence(symbol: string): Promise<number>;
}

export interface DataSyncDeps {
  store: SyncStore;
  /** The session worker's last heartbeat: it holds the provider subscriptions. */
  workerBeat: () => Promise<WorkerBeat | undefined>;
  imports: ImportDeps;
  calendar: TradingCalendarDeps;
  jobs: JobQueue;
  realtime: RealtimeDeps;
  now: () => number;
}

const SessionId = z.string().trim().min(1).max(128);
const SymbolInput = z.string().trim().min(1).max(32);

export const StartSyncRequest = z
  .object({
    symbols: z.array(SymbolInput).max(50).optional().describe("More symbols to subscribe for the same session, besides the one in the path"),
    session_id: SessionId,
  })
  .meta({ id: "StartSyncRequest" });
export type StartSyncRequest = z.infer<typeof StartSyncRequest>;

export const StopSyncRequest = z.object({ session_id: SessionId }).meta({ id: "StopSyncRequest" });
export type StopSyncRequest = z.infer<typeof StopSyncRequest>;

export const StartSyncResponse = z.object({ success: z.boolean(), message: z.string(), sync_state: SyncState }).meta({ id: "StartSyncResponse" });
export const StopSyncResponse = z
  .object({
    success: z.boolean(),
    message: z.string(),
    remaining_count: z.number().int().optional().describe("Symbol stop: sessions still holding the symbol"),
  })
  .meta({ id: "StopSyncResponse" });

export const SymbolSyncView = z
  .object({
    status: SymbolSyncStatus,
    sessions: z.array(z.string()),
    import_task_id: z.string().nullable(),
    message: z.string(),
    last_sync_time: z.string().nullable(),
  })
  .meta({ id: "SymbolSync" });

export const DataSyncStatusResponse = z
  .object({
    sync_state: SyncState,
    subscribed_symbols: z.array(z.string()),
    lookback_days: z.number().int(),
    last_sync_time: z.string().nullable(),
    subscription_counts: z.record(z.string(), z.number().int()),
    message: z.string(),
    symbols: z.record(z.string(), SymbolSyncView).describe("Each subscribed symbol's backfill (an addition to the interface)"),
    worker: WorkerStatusView.describe("The session worker holding the provider subscriptions (an addition)"),
  })
  .meta({ id: "DataSyncStatusResponse" });
export type DataSyncStatusResponse = z.infer<typeof DataSyncStatusResponse>;

export const LookbackDaysQuery = z.object({ days: z.coerce.number().int() });
export const LookbackDaysResponse = z
  .object({ success: z.boolean(), message: z.string(), lookback_days: z.number().int() })
  .meta({ id: "LookbackDaysResponse" });

/** A message of the `data-sync` queue: advance the run of `generation` (settle pending symbols, look at running imports). */
export const SyncMessage = z.object({ kind: z.literal("advance"), generation: z.number().int() });
export type SyncMessage = z.infer<typeof SyncMessage>;

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** The message of a ready service: how many symbols are in sync and which failed (kept current as symbols settle and go). */
function readyMessage(record: Pick<SyncRecord, "symbols">): string {
  const entries = Object.entries(record.symbols);
  const failed = entries.filter(([, entry]) => entry.status === "failed").map(([symbol]) => symbol);
  const inSync = `Ready: ${plural(entries.length - failed.length, "symbol")} in sync`;
  return failed.length > 0 ? `${inSync}; ${failed.length} failed (${failed.sort().join(", ")})` : inSync;
}

const initial = (now: number): SyncRecord => ({
  sync_state: "stopped",
  lookback_days: DEFAULT_LOOKBACK_DAYS,
  generation: 0,
  symbols: {},
  last_sync_time: null,
  message: "Stopped",
  started_by: null,
  version: 0,
  updated_at: iso(now),
});

const syncChanged = () => conflict("SYNC_STATE_CHANGED", "The data sync state changed during the request; try again");

async function read(deps: DataSyncDeps): Promise<SyncRecord> {
  return (await deps.store.get()) ?? initial(deps.now());
}

/** Applies `change` to the latest record (retrying on concurrent writes); `undefined` leaves it as it is. */
async function mutate(deps: DataSyncDeps, change: (record: SyncRecord) => SyncRecord | undefined): Promise<{ record: SyncRecord; changed: boolean }> {
  for (let attempt = 0; attempt < 8; attempt++) {
    const current = await read(deps);
    const next = change(structuredClone(current));
    if (!next) return { record: current, changed: false };
    const stamped = { ...next, version: current.version + 1, updated_at: iso(deps.now()) };
    if (await deps.store.replace(stamped, current.version)) return { record: stamped, changed: true };
  }
  throw syncChanged();
}

/** Symbols in the request, normalised (400 `INVALID_SYMBOL` / `MARKET_NOT_SUPPORTED`) and known to the provider (404 `SYMBOL_NOT_FOUND`). */
async function checkedSymbols(deps: DataSyncDeps, inputs: string[]): Promise<string[]> {
  const symbols = [...new Set(inputs.map((input) => normalizeSymbol(input)))];
  for (const symbol of symbols) assertSupportedMarket(marketOf(symbol), `symbol ${symbol}: market`);
  await (await deps.calendar.marketData()).staticInfo(symbols);
  return symbols;
}

/** The parts of the data sync a push to a symbol's log stream needs. */
export type LogStreamDeps = Pick<DataSyncDeps, "store" | "realtime" | "now">;

/** Pushes a message to the symbol's log stream with the stream's next `sequence`, when someone listens. */
async function pushLine(deps: LogStreamDeps, symbol: string, line: (sequence: number) => SyncLogMessage | ImportProgressMessage): Promise<void> {
  const topic = `logs:${symbol}`;
  // Only listeners get lines, so the counter moves only when someone listens (it still only increases).
  if ((await deps.realtime.connections.byTopic(topic)).length === 0) return;
  await Realtime.publish(deps.realtime, topic, line(await deps.store.nextSequence(symbol)));
}

/** Pushes a log line to the symbol's stream (`WS /api/v1/data-sync/logs?symbol=`) and to the operator's log. */
export async function syncLog(deps: LogStreamDeps, symbol: string, type: "log" | "status" | "error" | "success", message: string): Promise<void> {
  log[type === "error" ? "error" : "info"](message, { source: "data-sync", symbol, type });
  await pushLine(deps, symbol, (sequence) => ({ type, message, timestamp: iso(deps.now()), sequence }));
}

/**
 * Pushes an import's progress to its symbol's log stream as an `import_progress` message (the
 * task's status view in `data`), after each chunk and at its end. A push that fails is logged
 * and never fails the import: `GET /api/v1/stock-import/status/{task_id}` still answers.
 */
export async function importProgress(deps: LogStreamDeps, view: StockImportStatus): Promise<void> {
  try {
    const message = `Import ${view.task_id}: ${view.status}, ${view.progress}% (${view.message})`;
    await pushLine(deps, view.symbol, (sequence) => ({ type: "import_progress", message, timestamp: iso(deps.now()), sequence, data: view }));
  } catch (error) {
    log.error("Pushing an import's progress failed", { task_id: view.task_id, error: String(error) });
  }
}

const logAll = (deps: DataSyncDeps, symbols: string[], type: "log" | "status" | "error" | "success", message: string) =>
  Promise.all(symbols.map((symbol) => syncLog(deps, symbol, type, message)));

/** A run begins: every symbol is settled again. */
function beginRun(record: SyncRecord, actor: Actor, state: SyncState, message: string): SyncRecord {
  for (const entry of Object.values(record.symbols)) Object.assign(entry, { status: "pending", import_task_id: null, message: "Waiting to settle" });
  return { ...record, sync_state: state, generation: record.generation + 1, started_by: actor, message };
}

const advanceLater = (deps: DataSyncDeps, generation: number, delaySeconds = 0) =>
  deps.jobs.send("data-sync", { kind: "advance", generation } satisfies SyncMessage, delaySeconds > 0 ? { delaySeconds } : undefined);

export const DataSync = {
  async status(deps: DataSyncDeps): Promise<DataSyncStatusResponse> {
    const record = await read(deps);
    const symbols = Object.keys(record.symbols).sort();
    return {
      sync_state: record.sync_state,
      subscribed_symbols: symbols,
      lookback_days: record.lookback_days,
      last_sync_time: record.last_sync_time,
      subscription_counts: Object.fromEntries(symbols.map((symbol) => [symbol, record.symbols[symbol]!.sessions.length])),
      message: record.message,
      symbols: Object.fromEntries(symbols.map((symbol) => [symbol, record.symbols[symbol]!])),
      worker: workerStatus(await deps.workerBeat(), deps.now()),
    };
  },

  /** stopped → initializing (the worker settles calendars and backfills); a running service is left as it is. */
  async start(deps: DataSyncDeps, actor: Actor): Promise<z.infer<typeof StartSyncResponse>> {
    const { record, changed } = await mutate(deps, (current) =>
      current.sync_state === "stopped" ? beginRun(current, actor, "initializing", "Initializing: settling calendars and backfilling history") : undefined,
    );
    if (!changed) return { success: true, message: `Data sync is already ${record.sync_state}`, sync_state: record.sync_state };
    await advanceLater(deps, record.generation);
    await logAll(deps, Object.keys(record.symbols), "status", "Data sync starting: settling the calendar and backfilling history");
    return {
      success: true,
      message: `Data sync initializing ${plural(Object.keys(record.symbols).length, "subscribed symbol")}`,
      sync_state: record.sync_state,
    };
  },

  /** Any running state → stopped. Subscriptions stay registered for the next start; imports already queued finish. */
  async stop(deps: DataSyncDeps): Promise<z.infer<typeof StopSyncResponse>> {
    const { record, changed } = await mutate(deps, (current) =>
      current.sync_state === "stopped" ? undefined : { ...current, sync_state: "stopped", generation: current.generation + 1, message: "Stopped" },
    );
    if (!changed) return { success: true, message: "Data sync is already stopped" };
    await logAll(deps, Object.keys(record.symbols), "status", "Data sync stopped");
    return { success: true, message: `Data sync stopped (${plural(Object.keys(record.symbols).length, "subscription")} kept for the next start)` };
  },

  /**
   * `session_id` takes a hold on the symbol (and any in `symbols`): counted once per session.
   * A stopped service starts; a running one backfills a newly subscribed symbol.
   */
  async subscribe(deps: DataSyncDeps, actor: Actor, symbolInput: string, request: StartSyncRequest): Promise<z.infer<typeof StartSyncResponse>> {
    const symbols = await checkedSymbols(deps, [symbolInput, ...(request.symbols ?? [])]);
    let fresh: string[] = [];
    const { record } = await mutate(deps, (current) => {
      fresh = [];
      for (const symbol of symbols) {
        const entry = (current.symbols[symbol] ??= {
          status: "pending",
          sessions: [],
          import_task_id: null,
          message: "Waiting to settle",
          last_sync_time: null,
        });
        if (!entry.sessions.includes(request.session_id)) entry.sessions.push(request.session_id);
        if (entry.status === "failed") Object.assign(entry, { status: "pending", import_task_id: null, message: "Waiting to settle" });
        if (entry.status === "pending") fresh.push(symbol);
      }
      if (current.sync_state === "stopped") return beginRun(current, actor, "initializing", "Initializing: settling calendars and backfilling history");
      return current;
    });
    if (fresh.length > 0 || record.sync_state === "initializing") await advanceLater(deps, record.generation);
    const counts = symbols.map((symbol) => `${symbol} (${plural(record.symbols[symbol]!.sessions.length, "session")})`).join(", ");
    await logAll(deps, symbols, "status", `Session ${request.session_id} subscribed`);
    return {
      success: true,
      message: `Subscribed ${counts} for session ${request.session_id}; data sync is ${record.sync_state}`,
      sync_state: record.sync_state,
    };
  },

  /** Releases the session's hold; the subscription ends when no session holds the symbol. */
  async unsubscribe(deps: DataSyncDeps, symbolInput: string, request: StopSyncRequest): Promise<z.infer<typeof StopSyncResponse>> {
    const symbol = normalizeSymbol(symbolInput);
    const { record } = await mutate(deps, (current) => {
      const entry = current.symbols[symbol];
      if (!entry?.sessions.includes(request.session_id)) {
        throw notFound("SUBSCRIPTION_NOT_FOUND", `Session ${request.session_id} holds no subscription to ${symbol}`);
      }
      entry.sessions = entry.sessions.filter((id) => id !== request.session_id);
      if (entry.sessions.length === 0) delete current.symbols[symbol];
      return current.sync_state === "ready" ? { ...current, message: readyMessage(current) } : current;
    });
    const remaining = record.symbols[symbol]?.sessions.length ?? 0;
    const message =
      remaining === 0
        ? `Session ${request.session_id} released ${symbol}; no session holds it now, so the subscription ended`
        : `Session ${request.session_id} released ${symbol}; ${plural(remaining, "session")} still ${remaining === 1 ? "holds" : "hold"} it`;
    await syncLog(deps, symbol, "status", message);
    return { success: true, message, remaining_count: remaining };
  },

  /** 1 to 365 days (400 `INVALID_PARAMETER` otherwise); used by the next settle and gap fill. */
  async setLookback(deps: DataSyncDeps, days: number): Promise<z.infer<typeof LookbackDaysResponse>> {
    if (days < 1 || days > MAX_LOOKBACK_DAYS) {
      throw badRequest("INVALID_PARAMETER", `days must be between 1 and ${MAX_LOOKBACK_DAYS}, got ${days}`, { field: "days", min: 1, max: MAX_LOOKBACK_DAYS });
    }
    await mutate(deps, (current) => (current.lookback_days === days ? undefined : { ...current, lookback_days: days }));
    return { success: true, message: `Lookback set to ${plural(days, "day")}`, lookback_days: days };
  },

  /**
   * The queue worker's step for one run: settles each pending symbol (its calendar over the
   * lookback window, then one import of every gap, keeping stored candles), looks at running
   * imports, and moves the state: initializing → ready once every symbol is ready, → stopped if
   * one fails; syncing → ready once the gap fill ends. Asks to be called again while work runs.
   * Idempotent: a redelivered message finds the work done or an import already running.
   */
  async advance(deps: DataSyncDeps, message: SyncMessage): Promise<void> {
    const record = await read(deps);
    if (record.generation !== message.generation || record.sync_state === "stopped") return;
    const actor = record.started_by ?? { id: "system", user_type: "admin" as const };
    const outcomes = new Map<string, Partial<SymbolSync>>();
    for (const [symbol, entry] of Object.entries(record.symbols)) {
      if (entry.status === "pending") outcomes.set(symbol, await settle(deps, actor, symbol, record.lookback_days));
      else if (entry.status === "importing" && entry.import_task_id) outcomes.set(symbol, await importOutcome(deps, entry.import_task_id));
    }
    const now = iso(deps.now());
    const { record: next, changed } = await mutate(deps, (current) => {
      if (current.generation !== message.generation || current.sync_state === "stopped") return undefined;
      for (const [symbol, outcome] of outcomes) {
        const entry = current.symbols[symbol];
        // A symbol released (or re-settled) meanwhile keeps its newer state.
        if (!entry || entry.status !== record.symbols[symbol]!.status || entry.import_task_id !== record.symbols[symbol]!.import_task_id) continue;
        Object.assign(entry, outcome, outcome.status === "ready" ? { last_sync_time: now } : {});
      }
      const entries = Object.entries(current.symbols);
      const failed = entries.filter(([, entry]) => entry.status === "failed");
      const busy = entries.some(([, entry]) => entry.status === "pending" || entry.status === "importing");
      if (current.sync_state === "initializing" && failed.length > 0) {
        const reasons = failed.map(([symbol, entry]) => `${symbol}: ${entry.message}`).join("; ");
        return { ...current, sync_state: "stopped", generation: current.generation + 1, message: `Initialization failed: ${reasons}` };
      }
      if ((current.sync_state === "initializing" || current.sync_state === "syncing") && !busy) {
        return { ...current, sync_state: "ready", last_sync_time: now, message: readyMessage(current) };
      }
      // A symbol subscribed while ready settled: the service is in sync with one more.
      if (current.sync_state === "ready" && !busy && current.message !== readyMessage(current)) {
        return { ...current, last_sync_time: now, message: readyMessage(current) };
      }
      return current;
    });
    for (const [symbol, outcome] of outcomes) {
      if (outcome.message !== undefined) {
        await syncLog(deps, symbol, outcome.status === "ready" ? "success" : outcome.status === "failed" ? "error" : "log", outcome.message!);
      }
    }
    if (changed && (next.sync_state !== record.sync_state || next.message !== record.message))
      await logAll(deps, Object.keys(next.symbols), "status", next.message);
    const busy = Object.values(next.symbols).some((entry) => entry.status === "pending" || entry.status === "importing");
    if (next.sync_state !== "stopped" && next.generation === message.generation && busy) await advanceLater(deps, message.generation, SYNC_RECHECK_SECONDS);
  },

  /**
   * The schedule's polling gap fill: a ready service re-settles every symbol (ready → syncing →
   * ready), importing what the calendar says is missing. Anything else is left alone.
   */
  async poll(deps: DataSyncDeps): Promise<{ sync_state: SyncState; started: boolean }> {
    const { record, changed } = await mutate(deps, (current) => {
      if (current.sync_state !== "ready" || Object.keys(current.symbols).length === 0) return undefined;
      for (const entry of Object.values(current.symbols)) Object.assign(entry, { status: "pending", import_task_id: null, message: "Looking for gaps" });
      return { ...current, sync_state: "syncing", message: "Syncing: filling gaps" };
    });
    if (changed) {
      await advanceLater(deps, record.generation);
      // The stream says what the status says: ready → syncing (and back, when the worker is done).
      await logAll(deps, Object.keys(record.symbols), "status", record.message);
    }
    return { sync_state: record.sync_state, started: changed };
  },
};

/** The lookback window of a symbol: its exchange-local dates ending today. */
function windowOf(symbol: string, lookbackDays: number, now: number): { start: IsoDate; end: IsoDate } {
  const end = Calendar.for(marketOf(symbol)).localDateOf(now);
  return { start: isoDateOf(dayNumberOf(end) - (lookbackDays - 1)), end };
}

/** Settles one symbol: its calendar, then one import (keeping stored candles) over every period's gaps. */
async function settle(deps: DataSyncDeps, actor: Actor, symbol: string, lookbackDays: number): Promise<Partial<SymbolSync>> {
  const { start, end } = windowOf(symbol, lookbackDays, deps.now());
  try {
    await TradingCalendar.init(deps.calendar, symbol, { start_date: start, end_date: end });
    const gaps: IsoDate[] = [];
    const periods: StoredPeriod[] = [];
    for (const period of StoredPeriods) {
      const missing = await TradingCalendar.missing(deps.calendar, symbol, { period, start_date: start, end_date: end });
      if (missing.missing_dates.length === 0) continue;
      periods.push(period);
      gaps.push(...missing.missing_dates);
    }
    if (periods.length === 0) return { status: "ready", import_task_id: null, message: `Calendar settled and ${start}..${end} complete in every period` };
    gaps.sort();
    const task = await Imports.start(
      deps.imports,
      actor,
      { symbol, start_date: gaps[0]!, end_date: gaps[gaps.length - 1]!, periods, timezone: Calendar.for(marketOf(symbol)).timeZone },
      { keepExisting: true },
    );
    return {
      status: "importing",
      import_task_id: task.task_id,
      message: `Backfilling ${plural(new Set(gaps).size, "trading day")} of ${periods.join(", ")} (import ${task.task_id})`,
    };
  } catch (error) {
    // Someone's import of the symbol is running: look again on the next step.
    if (error instanceof DomainError && error.code === "IMPORT_ALREADY_RUNNING")
      return { status: "pending", message: "Waiting for a running import of the symbol" };
    if (error instanceof DomainError) return { status: "failed", import_task_id: null, message: error.message };
    throw error;
  }
}

async function importOutcome(deps: DataSyncDeps, taskId: string): Promise<Partial<SymbolSync>> {
  const task = await deps.imports.tasks.get(taskId);
  if (!task) return { status: "failed", import_task_id: null, message: `Import ${taskId} disappeared` };
  if (task.status === "pending" || task.status === "running") return { status: "importing" };
  if (task.status === "completed") return { status: "ready", message: `Backfilled: ${task.totals.added} new candles (import ${taskId})` };
  return { status: "failed", message: `Import ${taskId} ${task.status}: ${task.message}` };
}
