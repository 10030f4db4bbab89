/**
 * The import use cases (`Imports`): starting a task (the range checked, its chunks planned, the first
 * queued), reading and cancelling one, and the queue worker that imports its chunks one by one, each
 * committed with the task's version so a redelivery counts nothing twice, then learns the corporate
 * actions of the range; the version-checked update and the finish that releases the symbol's lock.
 */
import { Buckets, CandleBatches, type CandleBatch, type CandleStore, type StoredPeriod } from "../candles/index";
import { CorporateActions, type CorporateAction } from "../candles/corporate-actions";
import { DomainError, ValidationError, conflict, forbidden, notFound } from "../errors";
import { Calendar } from "../market/calendar";
import { marketOf, normalizeSymbol } from "../market/market";
import type { IsoDate } from "../market/zoned-time";
import { MarketDataLimits } from "../provider/market-data";
import type { Candlestick } from "../provider/quote-types";
import { Instants } from "../util/time";
import type { Actor } from "../users";
import {
  IMPORT_MAX_RECEIVES,
  MAX_IMPORT_DAYS,
  TERMINAL,
  type ImportDeps,
  type ImportMessage,
  type ImportStatus,
  type ImportTask,
  type StockImportRequest,
} from "./import-model";
import { add, planChunks, statusView, zero } from "./import-progress";
import { screenCandles } from "./screen";

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
  view: statusView,

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
