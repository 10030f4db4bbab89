/**
 * An import task's chunks and how far along it is: the plan that splits a range's trading days into
 * chunks period by period, the arithmetic of the chunk counts, the progress percentage (weighted so
 * it moves evenly across periods) and the task's status view with each period's result.
 */
import type { StoredPeriod } from "../candles/index";
import type { IsoDate } from "../market/zoned-time";
import type { ChunkCounts, ImportChunk, ImportTask, PeriodResult, StockImportStatus } from "./import-model";

/** Trading days per chunk, keeping each provider call and write to a few thousand candles. */
const DAYS_PER_CHUNK: Record<StoredPeriod, number> = { "1m": 20, "5m": 60, "1h": 250, "1d": 1000 };
/** Relative work per trading day, so progress moves evenly across periods. */
const WEIGHT_PER_DAY: Record<StoredPeriod, number> = { "1m": 390, "5m": 78, "1h": 7, "1d": 1 };

export const zero = (): ChunkCounts => ({ data: 0, added: 0, overwritten: 0, filtered: 0 });
export const add = (a: ChunkCounts, b: ChunkCounts): ChunkCounts => ({
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
export function planChunks(tradingDays: IsoDate[], periods: StoredPeriod[]): ImportChunk[] {
  const chunks: ImportChunk[] = [];
  for (const period of periods) {
    for (let start = 0; start < tradingDays.length; start += DAYS_PER_CHUNK[period]) {
      const days = tradingDays.slice(start, start + DAYS_PER_CHUNK[period]);
      chunks.push({ period, start: days[0]!, end: days[days.length - 1]!, days: days.length });
    }
  }
  return chunks;
}

/** A period is done when its chunks are; otherwise it shares the task's ending, or is running once its first chunk is under way. */
function periodStatus(task: ImportTask, progress: { finished: boolean; started: boolean }): PeriodResult["status"] {
  if (progress.finished) return "completed";
  if (task.status === "failed" || task.status === "cancelled") return task.status;
  return progress.started ? "running" : "pending";
}

/** The interface's status view of a task (`Imports.view`). */
export function statusView(task: ImportTask): StockImportStatus {
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
}
