/**
 * An import task as the API and the store see it: the request and status-view schemas, the task as
 * stored with its chunks and counts, its storage port, the dependencies of the use cases and the
 * queue message, with the limits (range length, receives before a task is failed) and the terminal states.
 */
import { z } from "zod";
import { StoredPeriod, StoredPeriods, type CandleStore } from "../candles/index";
import { CorporateAction, type CorporateActionStore } from "../candles/corporate-actions";
import type { JobQueue } from "../jobs";
import type { Market } from "../market/market";
import type { IsoDate } from "../market/zoned-time";
import type { MarketData } from "../provider/market-data";
import { DateInput, TimeZone } from "../util/time";

/**
 * Import task states: `pending` (queued), `running`, then one of `completed`, `failed`
 * (the message says why) or `cancelled` (what was written stays). Terminal states never change.
 */
export const ImportStatus = z.enum(["pending", "running", "completed", "failed", "cancelled"]).meta({ id: "ImportStatus" });
export type ImportStatus = z.infer<typeof ImportStatus>;
/** The states a task never leaves. */
export const TERMINAL: ImportStatus[] = ["completed", "failed", "cancelled"];

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

/** What a chunk (or a period, or the task) wrote: candles written, new, overwritten and dropped. */
export interface ChunkCounts {
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

/** Receives after which a failing import is marked failed (the queue's dead-letter threshold). */
export const IMPORT_MAX_RECEIVES = 5;
