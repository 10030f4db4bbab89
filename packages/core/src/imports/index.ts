import { z } from "zod";
import { Buckets, CandleBatches, StoredPeriod, StoredPeriods, type CandleBatch, type CandleStore } from "../candles/index";
import { CorporateAction, CorporateActions, type CorporateActionStore } from "../candles/corporate-actions";
import { DomainError, ValidationError, conflict, forbidden, notFound } from "../errors";
import type { JobQueue } from "../jobs";
import { Calendar } from "../market/calendar";
import { marketOf, normalizeSymbol, type Market } from "../market/market";
import { TradeSessionCode } from "../market/trade-session";
import type { IsoDate } from "../market/zoned-time";
import { MarketDataLimits, type MarketData } from "../provider/market-data";
import type { Candlestick } from "../provider/quote-types";
import { DateInput, Instants, TimeZone } from "../time";
import type { Actor } from "../users";

/**
 * Import task states: `pending` (queued), `running`, then one of `completed`, `failed`
 * (the message says why) or `cancelled` (what was written stays). Terminal states never change.
 */
export const ImportStatus = z.enum(["pending", "running", "completed", "failed", "cancelled"]).meta({ id: "ImportStatus" });
export type ImportStatus = z.infer<typeof ImportStatus>;
const TERMINAL: ImportStatus[] = ["completed", "failed", "cancelled"];

/** The longest range one import may cover. */
export const MAX_IMPORT_DAYS = 3660;

export const StockImportRequest = z
  .object({
    symbol: z.string().trim().min(1).max(32),
    start_date: DateInput,
    end_date: DateInput,
    timezone: TimeZone.optional(),
    periods: z
      .array(StoredPeriod)
      .min(1)
      .refine((periods) => new Set(periods).size === periods.length, "periods must not repeat")
      .default([...StoredPeriods]),
  })
  .meta({ id: "StockImportRequest" });
export type StockImportRequest = z.infer<typeof StockImportRequest>;

const Count = z.number().int();
export const PeriodResult = z
  .object({
    status: z.enum(["pending", "running", "completed", "cancelled", "failed"]),
    data_count: Count.describe("Candles written (new plus overwritten)"),
    new_count: Count,
    overwritten_count: Count,
    filtered_count: Count.describe("Candles dropped: outside the sessions or with inconsistent OHLC/volume"),
    chunks_done: Count,
    total_chunks: Count,
  })
  .meta({ id: "ImportPeriodResult" });
export type PeriodResult = z.infer<typeof PeriodResult>;

export const StockImportStatus = z
  .object({
    task_id: z.string(),
    symbol: z.string(),
    status: ImportStatus,
    progress: z.number().int().min(0).max(100),
    message: z.string(),
    data_count: Count,
    overwritten_count: Count,
    new_count: Count,
    filtered_count: Count,
    avg_daily_count: Count.describe("data_count divided by the trading days in range"),
    periods: z.array(StoredPeriod),
    period_results: z.record(z.string(), PeriodResult),
    start_date: z.string(),
    end_date: z.string(),
    trading_days: Count,
    created_at: z.string(),
    updated_at: z.string(),
    finished_at: z.string().nullable(),
    price_adjustment: z
      .literal("none")
      .describe(
        'Which adjustment the stored prices carry: none, the prices actually traded (LongPort\'s NoAdjust), as live sessions see them. Splits and dividends are learnt as corporate_actions, which backtests apply (docs/candles-and-imports.md "Prices and corporate actions")',
      ),
    corporate_actions: z
      .array(CorporateAction)
      .describe(
        "The corporate actions this import learnt over its range, from the provider's forward-adjusted daily prices beside its actual ones (stored per symbol, merged with earlier imports'); empty until it completes, and for a provider whose prices need no adjustment",
      ),
  })
  .meta({ id: "StockImportStatus" });
export type StockImportStatus = z.infer<typeof StockImportStatus>;

/** A bounded unit of work: one period over a few trading days. */
export interface ImportChunk {
  period: StoredPeriod;
  start: IsoDate;
  end: IsoDate;
  days: number;
}

interface ChunkCounts {
  data: number;
  added: number;
  overwritten: number;
  filtered: number;
}

/** An import task as stored. `version` guards every update; `pending` makes a chunk's counts survive a crash. */
export interface ImportTask {
  task_id: string;
  user_id: string;
  symbol: string;
  market: Market;
  start_date: IsoDate;
  end_date: IsoDate;
  /** The requested window in UNIX seconds; candles outside it are not imported. */
  window: [number, number];
  periods: StoredPeriod[];
  status: ImportStatus;
  message: string;
  chunks: ImportChunk[];
  chunks_done: number;
  trading_days: number;
  totals: ChunkCounts;
  period_totals: Partial<Record<StoredPeriod, ChunkCounts>>;
  /** Counts of the chunk in flight, recorded before its candles are written so a redelivery reuses them. */
  pending?: ChunkCounts & { chunk: number };
  cancel_requested: boolean;
  /** Only candles whose timestamps are not stored yet are written (backtests filling gaps). */
  keep_existing?: boolean;
  version: number;
  created_at: string;
  updated_at: string;
  finished_at?: string;
  /** The corporate actions learnt when the chunks were done (absent before, and on tasks stored before imports learnt them). */
  corporate_actions?: CorporateAction[];
}

/** Storage port for import tasks; one running task per symbol is held by the store's conditional write. */
export interface ImportTaskStore {
  /** Creates the task and takes the symbol's lock; 409 `IMPORT_ALREADY_RUNNING` naming the running task otherwise. */
  create(task: ImportTask): Promise<void>;
  get(taskId: string): Promise<ImportTask | undefined>;
  /** Saves if the stored version is `task.version - 1`; false when someone else saved first. */
  save(task: ImportTask): Promise<boolean>;
  /** Saves a terminal task and releases the symbol's lock in one transaction; false on a version conflict. */
  finish(task: ImportTask): Promise<boolean>;
}

export interface ImportDeps {
  tasks: ImportTaskStore;
  candles: CandleStore;
  /** Where the corporate actions an import learns are kept (per symbol). */
  corporateActions: CorporateActionStore;
  marketData: () => Promise<MarketData>;
  jobs: JobQueue;
  now: () => number;
  newId: () => string;
  /**
   * Told a task's status view after each chunk it commits and when it ends (the data-sync log
   * stream of its symbol pushes it, `DataSync.importProgress`); it must not throw.
   */
  progress?: (view: StockImportStatus) => Promise<void>;
}

/** The queue message: which task, and which chunk the sender expects to be next. */
export const ImportMessage = z.object({ task_id: z.string(), chunk: z.number().int().nonnegative() });
export type ImportMessage = z.infer<typeof ImportMessage>;

/** Trading days per chunk, keeping each provider call and write to a few thousand candles. */
const DAYS_PER_CHUNK: Record<StoredPeriod, number> = { "1m": 20, "5m": 60, "1h": 250, "1d": 1000 };
/** Relative work per trading day, so progress moves evenly across periods. */
const WEIGHT_PER_DAY: Record<StoredPeriod, number> = { "1m": 390, "5m": 78, "1h": 7, "1d": 1 };
const PERIOD_SECONDS: Record<StoredPeriod, number> = { "1m": 60, "5m": 300, "1h": 3600, "1d": 86_400 };

const zero = (): ChunkCounts => ({ data: 0, added: 0, overwritten: 0, filtered: 0 });
const add = (a: ChunkCounts, b: ChunkCounts): ChunkCounts => ({
  data: a.data + b.data,
  added: a.added + b.added,
  overwritten: a.overwritten + b.overwritten,
  filtered: a.filtered + b.filtered,
});

function progressOf(task: ImportTask): number {
  if (task.status === "completed") return 100;
  const weight = (chunk: ImportChunk) => chunk.days * WEIGHT_PER_DAY[chunk.period];
  const total = task.chunks.reduce((sum, chunk) => sum + weight(chunk), 0);
  const done = task.chunks.slice(0, task.chunks_done).reduce((sum, chunk) => sum + weight(chunk), 0);
  return total === 0 ? 0 : Math.min(99, Math.floor((done / total) * 100));
}

/** Splits the trading days of the range into chunks, period by period. */
function planChunks(tradingDays: IsoDate[], periods: StoredPeriod[]): ImportChunk[] {
  const chunks: ImportChunk[] = [];
  for (const period of periods) {
    for (let start = 0; start < tradingDays.length; start += DAYS_PER_CHUNK[period]) {
      const days = tradingDays.slice(start, start + DAYS_PER_CHUNK[period]);
      chunks.push({ period, start: days[0]!, end: days[days.length - 1]!, days: days.length });
    }
  }
  return chunks;
}

/**
 * Converts provider candlesticks to a batch, dropping (and counting) those outside the
 * requested window, outside the exchange's sessions, or with inconsistent values.
 */
export function screenCandles(
  candles: readonly Candlestick[],
  period: StoredPeriod,
  calendar: Calendar,
  window: [number, number],
): { batch: CandleBatch; filtered: number } {
  const batch = CandleBatches.empty(candles.length);
  let kept = 0;
  let filtered = 0;
  // Candles come in time order: the session the last one fell in answers most of the next ones.
  let known: { start: number; end: number } | null = null;
  const inSession = (ms: number) => {
    if (known !== null && ms >= known.start && ms < known.end) return true;
    const session = calendar.sessionAt(ms, { overnight: true });
    if (session !== null) known = session;
    return session !== null;
  };
  for (const candle of candles) {
    const timestamp = Math.floor(Date.parse(candle.timestamp) / 1000);
    if (timestamp < window[0] || timestamp > window[1]) continue;
    const open = Number(candle.open);
    const high = Number(candle.high);
    const low = Number(candle.low);
    const close = Number(candle.close);
    const turnover = Number(candle.turnover);
    const consistent =
      open > 0 &&
      low > 0 &&
      Number.isFinite(high) &&
      Number.isFinite(turnover) &&
      turnover >= 0 &&
      high >= Math.max(open, close) &&
      low <= Math.min(open, close) &&
      Number.isInteger(candle.volume) &&
      candle.volume >= 0;
    const traded =
      period === "1d"
        ? calendar.isTradingDay(calendar.localDateOf(timestamp * 1000))
        : inSession(timestamp * 1000) ||
          // Bars stamped at their close end exactly on a session's end.
          inSession(timestamp * 1000 - PERIOD_SECONDS[period] * 1000);
    if (!consistent || !traded) {
      filtered++;
      continue;
    }
    batch.timestamp[kept] = timestamp;
    batch.open[kept] = open;
    batch.high[kept] = high;
    batch.low[kept] = low;
    batch.close[kept] = close;
    batch.volume[kept] = candle.volume;
    batch.turnover[kept] = turnover;
    batch.session[kept] = TradeSessionCode[candle.trade_session];
    kept++;
  }
  return { batch: CandleBatches.slice(batch, 0, kept), filtered };
}

/** A period is done when its chunks are; otherwise it shares the task's ending, or is running once its first chunk is under way. */
function periodStatus(task: ImportTask, progress: { finished: boolean; started: boolean }): PeriodResult["status"] {
  if (progress.finished) return "completed";
  if (task.status === "failed" || task.status === "cancelled") return task.status;
  return progress.started ? "running" : "pending";
}

const timestampOf = (deps: ImportDeps) => new Date(deps.now()).toISOString();

export const Imports = {
  /** Creates a task (409 when the symbol already has one running) and queues its first chunk. */
  async start(deps: ImportDeps, actor: Actor, request: StockImportRequest, options: { keepExisting?: boolean } = {}): Promise<ImportTask> {
    const symbol = normalizeSymbol(request.symbol);
    const market = marketOf(symbol);
    const calendar = Calendar.for(market);
    const timeZone = request.timezone ?? calendar.timeZone;
    const window: [number, number] = [
      Instants.parseSeconds(request.start_date, timeZone),
      Instants.parseSeconds(request.end_date, timeZone, { endOfDay: true }),
    ];
    const issues = [];
    if (window[1] < window[0]) issues.push({ loc: ["body", "end_date"], msg: "end_date is before start_date", type: "value_error" });
    if (window[1] - window[0] > MAX_IMPORT_DAYS * 86_400)
      issues.push({ loc: ["body", "end_date"], msg: `a range of at most ${MAX_IMPORT_DAYS} days`, type: "value_error" });
    if (issues.length) throw new ValidationError(issues);
    // The first trading date can start the evening before (US overnight), so plan from the local date of the window's edges.
    const startDate = calendar.localDateOf(window[0] * 1000);
    const endDate = calendar.localDateOf(window[1] * 1000);
    let tradingDays: IsoDate[];
    try {
      tradingDays = calendar.tradingDays(startDate, endDate);
    } catch (error) {
      if (error instanceof DomainError) throw new ValidationError([{ loc: ["body", "start_date"], msg: error.message, type: "value_error" }]);
      throw error;
    }
    // The symbol must exist before a task is queued for it.
    await (await deps.marketData()).staticInfo([symbol]);
    const timestamp = timestampOf(deps);
    const task: ImportTask = {
      task_id: deps.newId(),
      user_id: actor.id,
      symbol,
      market,
      start_date: startDate,
      end_date: endDate,
      window,
      periods: request.periods,
      status: "pending",
      message: `Queued: ${tradingDays.length} trading days of ${request.periods.join(", ")}`,
      chunks: planChunks(tradingDays, request.periods),
      chunks_done: 0,
      trading_days: tradingDays.length,
      totals: zero(),
      period_totals: {},
      cancel_requested: false,
      ...(options.keepExisting ? { keep_existing: true } : {}),
      version: 1,
      created_at: timestamp,
      updated_at: timestamp,
    };
    await deps.tasks.create(task);
    await deps.jobs.send("stock-import", { task_id: task.task_id, chunk: 0 } satisfies ImportMessage);
    return task;
  },

  async get(deps: ImportDeps, actor: Actor, taskId: string): Promise<ImportTask> {
    const task = await deps.tasks.get(taskId);
    if (!task) throw notFound("IMPORT_TASK_NOT_FOUND", `Import task ${taskId} does not exist`);
    if (task.user_id !== actor.id && actor.user_type !== "admin") throw forbidden("This import task belongs to another user");
    return task;
  },

  /** The interface's status view of a task. */
  view(task: ImportTask): StockImportStatus {
    const periodResults: Record<string, PeriodResult> = {};
    for (const period of task.periods) {
      const chunks = task.chunks.filter((chunk) => chunk.period === period);
      const firstIndex = task.chunks.findIndex((chunk) => chunk.period === period);
      const done = Math.max(0, Math.min(chunks.length, task.chunks_done - firstIndex));
      const counts = task.period_totals[period] ?? zero();
      const finished = done === chunks.length;
      periodResults[period] = {
        status: periodStatus(task, { finished, started: done > 0 || (task.chunks_done === firstIndex && task.status === "running") }),
        data_count: counts.data,
        new_count: counts.added,
        overwritten_count: counts.overwritten,
        filtered_count: counts.filtered,
        chunks_done: done,
        total_chunks: chunks.length,
      };
    }
    return {
      task_id: task.task_id,
      symbol: task.symbol,
      status: task.status,
      progress: progressOf(task),
      message: task.message,
      data_count: task.totals.data,
      overwritten_count: task.totals.overwritten,
      new_count: task.totals.added,
      filtered_count: task.totals.filtered,
      avg_daily_count: task.trading_days === 0 ? 0 : Math.round(task.totals.data / task.trading_days),
      periods: task.periods,
      period_results: periodResults,
      start_date: task.start_date,
      end_date: task.end_date,
      trading_days: task.trading_days,
      created_at: task.created_at,
      updated_at: task.updated_at,
      finished_at: task.finished_at ?? null,
      price_adjustment: "none",
      corporate_actions: task.corporate_actions ?? [],
    };
  },

  /** Asks a task to stop: a pending one stops at once, a running one at its next chunk; what was written stays. */
  async cancel(deps: ImportDeps, actor: Actor, taskId: string): Promise<ImportTask> {
    for (;;) {
      const task = await Imports.get(deps, actor, taskId);
      if (TERMINAL.includes(task.status)) {
        throw conflict("IMPORT_NOT_ACTIVE", `Import task ${taskId} is already ${task.status}`, { status: task.status });
      }
      const next: ImportTask = { ...task, cancel_requested: true, version: task.version + 1, updated_at: timestampOf(deps) };
      if (task.status === "pending") {
        const cancelled = { ...next, status: "cancelled" as const, message: "Cancelled before it started", finished_at: next.updated_at };
        if (await deps.tasks.finish(cancelled)) return cancelled;
      } else if (await deps.tasks.save({ ...next, message: "Cancelling: stops after the current chunk" })) {
        return { ...next, message: "Cancelling: stops after the current chunk" };
      }
    }
  },

  /**
   * The worker: processes chunks of the task from `message.chunk` until the task ends or the
   * deadline nears, then queues a follow-up. Redelivered or stale messages do nothing twice:
   * a chunk is committed together with the task's version, and its counts are fixed before
   * its candles are written.
   */
  async work(deps: ImportDeps, message: ImportMessage, deadline: number, receiveCount: number): Promise<void> {
    let task = await deps.tasks.get(message.task_id);
    // A redelivered message may find chunks it already committed: it carries on from the task's checkpoint.
    // A duplicate racing the real follow-up does the same; version-guarded commits let each chunk count once.
    if (!task || TERMINAL.includes(task.status) || message.chunk > task.chunks_done) return;
    const calendar = Calendar.for(task.market);
    let processed = 0;
    let upcoming: { index: number; candles: Promise<Candlestick[]> } | undefined;
    const fetchChunk = async (current: ImportTask, index: number) => {
      const chunk = current.chunks[index]!;
      const marketData = await deps.marketData();
      return marketData.historyCandlesticksByDate(current.symbol, chunk.period, "NoAdjust", chunk.start, chunk.end, "All");
    };
    try {
      while (task.chunks_done < task.chunks.length) {
        if (task.cancel_requested) {
          await Imports.finish(
            deps,
            task,
            "cancelled",
            `Cancelled after ${task.chunks_done} of ${task.chunks.length} chunks; ${task.totals.data} candles kept`,
          );
          return;
        }
        // At least one chunk per message, so a follow-up always makes progress.
        if (processed > 0 && deps.now() >= deadline) {
          await deps.jobs.send("stock-import", { task_id: task.task_id, chunk: task.chunks_done } satisfies ImportMessage);
          return;
        }
        const index = task.chunks_done;
        const chunk = task.chunks[index]!;
        const candles = await (upcoming?.index === index ? upcoming.candles : fetchChunk(task, index));
        const screened = screenCandles(candles, chunk.period, calendar, task.window);
        const batch = task.keep_existing ? await unstored(deps.candles, task.symbol, chunk.period, screened.batch) : screened.batch;
        const filtered = screened.filtered;
        const prepared = await deps.candles.prepareUpsert(task.symbol, chunk.period, batch);
        if (task.pending?.chunk !== index) {
          const counts = { chunk: index, data: batch.length, added: prepared.added, overwritten: prepared.overwritten, filtered };
          // The first counts recorded for a chunk stand: a later attempt would see its own writes as overwrites.
          const recorded = await Imports.update(deps, task, (current) =>
            current.chunks_done !== index
              ? undefined
              : current.pending?.chunk === index
                ? current
                : { ...current, pending: counts, status: "running", message: `Importing ${chunk.period} ${chunk.start} to ${chunk.end}` },
          );
          if (!recorded) return;
          task = recorded;
        }
        // Start the writes, then fetch the next chunk while the database works on them.
        const writing = prepared.commit();
        upcoming = index + 1 < task.chunks.length ? { index: index + 1, candles: fetchChunk(task, index + 1) } : undefined;
        // A prefetch left unused (cancel, deadline, failure) must not become an unhandled rejection.
        upcoming?.candles.catch(() => undefined);
        await writing;
        const committed = await Imports.update(deps, task, (current) => {
          if (current.chunks_done !== index) return undefined;
          const { chunk: _chunk, ...chunkCounts } = current.pending!;
          return {
            ...current,
            pending: undefined,
            chunks_done: index + 1,
            totals: add(current.totals, chunkCounts),
            period_totals: { ...current.period_totals, [chunk.period]: add(current.period_totals[chunk.period] ?? zero(), chunkCounts) },
            message: `Imported ${chunk.period} ${chunk.start} to ${chunk.end}`,
          };
        });
        if (!committed) return;
        task = committed;
        processed++;
        await deps.progress?.(Imports.view(task));
      }
      // After the candles: a retry after a fault here finds every chunk committed and comes straight back.
      const actions = await learnCorporateActions(deps, task);
      await Imports.finish(
        deps,
        task,
        "completed",
        `Imported ${task.totals.data} candles (${task.totals.added} new, ${task.totals.overwritten} overwritten, ${task.totals.filtered} filtered)${actions.length > 0 ? `; ${actions.length} corporate action${actions.length > 1 ? "s" : ""} learnt` : ""}`,
        { corporate_actions: actions },
      );
    } catch (error) {
      // A refusal from the provider (unknown symbol, unsupported market) will not change on retry; other faults are retried by the queue.
      if (error instanceof DomainError && error.status < 500) {
        await Imports.finish(deps, task, "failed", `Failed: ${error.message}`);
        return;
      }
      if (receiveCount >= IMPORT_MAX_RECEIVES) {
        await Imports.finish(deps, task, "failed", `Failed after ${receiveCount} attempts: ${(error as Error).message}`);
        return;
      }
      throw error;
    }
  },

  /** Applies `change` to the latest stored task, retrying on version conflicts; undefined when `change` declines. */
  async update(deps: ImportDeps, task: ImportTask, change: (current: ImportTask) => ImportTask | undefined): Promise<ImportTask | undefined> {
    let current: ImportTask | undefined = task;
    for (let attempt = 0; attempt < 10 && current; attempt++) {
      const next = change(current);
      if (!next) return undefined;
      const saved = { ...next, version: current.version + 1, updated_at: timestampOf(deps) };
      if (await deps.tasks.save(saved)) return saved;
      current = await deps.tasks.get(task.task_id);
      if (current && TERMINAL.includes(current.status)) return undefined;
    }
    return undefined;
  },

  async finish(deps: ImportDeps, task: ImportTask, status: ImportStatus, message: string, extra: Pick<ImportTask, "corporate_actions"> = {}): Promise<void> {
    let current: ImportTask | undefined = task;
    while (current && !TERMINAL.includes(current.status)) {
      const finishedAt = timestampOf(deps);
      const final: ImportTask = { ...current, ...extra, status, message, version: current.version + 1, updated_at: finishedAt, finished_at: finishedAt };
      if (await deps.tasks.finish(final)) {
        await deps.progress?.(Imports.view(final));
        return;
      }
      current = await deps.tasks.get(task.task_id);
    }
  },
};

/** Receives after which a failing import is marked failed (the queue's dead-letter threshold). */
export const IMPORT_MAX_RECEIVES = 5;

/**
 * The corporate actions over a task's range (docs/candles-and-imports.md "Prices and corporate
 * actions"): the provider's daily candles in actual and in forward-adjusted prices, from the
 * trading day before the range (so an ex-date on its first day is seen), in calls of at most
 * `historyCandlesticksPerCall` days overlapping by one (so a change between two calls is seen
 * once); what they show is merged into the symbol's stored actions.
 */
async function learnCorporateActions(deps: ImportDeps, task: ImportTask): Promise<CorporateAction[]> {
  const calendar = Calendar.for(task.market);
  const days = calendar.tradingDays(calendar.previousTradingDay(task.start_date) ?? task.start_date, task.end_date);
  const perCall = MarketDataLimits.historyCandlesticksPerCall;
  const marketData = await deps.marketData();
  const learnt: CorporateAction[] = [];
  for (let first = 0; first + 1 < days.length; first += perCall - 1) {
    const start = days[first]!;
    const end = days[Math.min(days.length, first + perCall) - 1]!;
    const [actual, adjusted] = await Promise.all([
      marketData.historyCandlesticksByDate(task.symbol, "1d", "NoAdjust", start, end, "Intraday"),
      marketData.historyCandlesticksByDate(task.symbol, "1d", "ForwardAdjust", start, end, "Intraday"),
    ]);
    learnt.push(...CorporateActions.derive(task.symbol, actual, adjusted));
  }
  await CorporateActions.record(deps.corporateActions, task.symbol, learnt, timestampOf(deps));
  return learnt;
}

/** The candles of `batch` whose timestamps are not stored yet. */
async function unstored(candles: CandleStore, symbol: string, period: StoredPeriod, batch: CandleBatch): Promise<CandleBatch> {
  if (batch.length === 0) return batch;
  const buckets = [...new Set(Array.from(batch.timestamp, (ts) => Buckets.of(period, ts)))];
  const stored = new Set<number>();
  for (const existing of (await candles.load(symbol, period, buckets)).values()) for (const ts of existing.timestamp) stored.add(ts);
  return CandleBatches.filter(batch, (i) => !stored.has(batch.timestamp[i]!));
}
