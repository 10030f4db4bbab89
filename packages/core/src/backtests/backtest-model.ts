import { z } from "zod";
import { CorporateAction } from "../candles/corporate-actions";
import type { CandleStore } from "../candles/index";
import { ControlStatus } from "./control";
import { type ControllableRun, type ControllableRunStore, controlResultOf, progressFieldsOf, resultFieldsOf } from "./controllable-run";
import { Execution } from "../engine/setup";
import { PerformanceMetrics } from "../engine/metrics";
import type { FeeConfig } from "../fees/index";
import { Dec, DecimalInput, IsoDate } from "../money/decimal";
import type { ImportDeps } from "../imports/index";
import { Timeframe } from "../strategies/definition";
import { TimeZone } from "../util/time";
import type { SessionConfig } from "../trading/session/config";
import * as Risk from "../risk/risk";
import type { RunStore } from "../trading/run/runs";
import type { SessionDeps } from "../trading/session/sessions";
import type { WorkflowStarter } from "../workflows";

/**
 * Backtests: a session's strategy run over stored candles by the Step Functions machine
 * (prepare → run chunk → … → finalize). Every task reads the backtest and its run from the
 * table and writes them back version-checked, so a task may be retried, a whole runtime may be
 * restarted, and pause and resume may come at any time: the result is that of one
 * uninterrupted run. docs/backtests.md has the states and fields.
 *
 * This module: the API's schemas, the backtest as stored, its storage port and the dependencies
 * of the control side (backtest-control.ts) and of the workflow tasks (backtest-tasks.ts).
 */

/** Where a backtest is: the states of every controllable run (control.ts). */
export const BacktestStatus = ControlStatus;
export type BacktestStatus = ControlStatus;

/** Interface BacktestRequest. `strategy_config` holds the strategy's parameters plus `execution`, `risk_config` and `timeframe`. */
export const BacktestRequest = z
  .object({
    session_id: z.string().min(1).max(128),
    strategy_name: z.string().min(1).max(64),
    strategy_config: z.record(z.string(), z.unknown()),
    symbols: z.array(z.string().min(1).max(32)).min(1).max(20),
    start_date: IsoDate,
    end_date: IsoDate,
    initial_capital: DecimalInput.refine((v) => new Dec(v).gt(0), "must be greater than zero").refine((v) => new Dec(v).lte("1e15"), "must be at most 1e15"),
    timezone: TimeZone.optional(),
    benchmark: z
      .string()
      .min(1)
      .max(32)
      .optional()
      .describe("A symbol (SPY.US, 2800.HK) the result is measured against: its daily candles imported like the run's; the result's `benchmark`"),
  })
  .meta({ id: "BacktestRequest" });
export type BacktestRequest = z.infer<typeof BacktestRequest>;

/** Interface BacktestResponse. */
export const BacktestResponse = z
  .object({ success: z.boolean(), message: z.string(), backtest_id: z.string().nullable(), performance_metrics: PerformanceMetrics.nullable() })
  .meta({ id: "BacktestResponse" });

const shared = progressFieldsOf("backtest", ["running"], "Percent of the backtest's bars processed, 0 to 100");

/** Interface BacktestProgressResponse, with the stage and counts behind the percentage. */
export const BacktestProgress = z
  .object({
    backtest_id: shared.backtest_id,
    status: shared.status,
    stage: shared.stage,
    progress: shared.progress,
    current_time: z.string().nullable(),
    start_date: z.string(),
    end_date: z.string(),
    is_running: shared.is_running,
    is_paused: shared.is_paused,
    bars_processed: z.int(),
    bars_total: z.int(),
    message: shared.message,
  })
  .meta({ id: "BacktestProgressResponse" });

/** `GET /backtest`'s query: a session's backtests, a page at a time. */
export const BacktestListQuery = z.object({
  session_id: z.string().min(1).max(128).describe("The session whose backtests are listed (its owner's, or an administrator's)"),
  limit: z.coerce.number().int().min(1).max(100).default(20).describe("At most this many, newest first"),
  cursor: z.string().max(2048).optional().describe("The `cursor` of the page before"),
});

/** A backtest as a session's list shows it: what ran, over what, and how it ended (its result and progress have their own endpoints). */
export const BacktestListItem = z
  .object({
    backtest_id: z.string(),
    status: BacktestStatus,
    strategy_name: z.string(),
    symbols: z.array(z.string()),
    start_date: z.string(),
    end_date: z.string(),
    created_at: z.string(),
    finished_at: z.string().nullable(),
    message: z.string(),
    sweep_id: z.string().nullable().describe("The parameter sweep the backtest is a run of; null for a backtest started alone"),
  })
  .meta({ id: "BacktestListItem" });

/** A session's backtests, newest first. */
export const BacktestList = z
  .object({
    session_id: z.string(),
    backtests: z.array(BacktestListItem),
    cursor: z.string().nullable().describe("Pass as `cursor` for the next page; null on the last"),
  })
  .meta({ id: "BacktestList" });

/** Answer of pause, resume and stop. */
export const BacktestControlResult = controlResultOf("backtest", "BacktestControlResult");

/** Why a protective order exits. */
export const ExitReason = z.enum(["stop_loss", "take_profit", "trailing_stop"]).meta({ id: "ExitReason" });

const Fill = z.object({
  order_id: z.string(),
  timestamp: z.string(),
  symbol: z.string(),
  side: z.enum(["buy", "sell"]),
  quantity: z.string(),
  price: z.string().describe("At most 4 decimal places, half up"),
  commission: z.string(),
  channel_id: z.string().nullable(),
  order_type: z.enum(["market", "limit", "stop", "trailing_stop"]),
  exit_reason: ExitReason.nullable().describe('A protective order\'s fill: why it exits (docs/trading-engine.md "Protective exits"); null otherwise'),
  trigger_price: z.string().nullable().describe("A protective order's level when it filled; null otherwise"),
});

const ClosedTrade = z.object({
  symbol: z.string(),
  channel_id: z.string().nullable(),
  direction: z.enum(["long", "short"]),
  quantity: z.string(),
  entry_time: z.string(),
  exit_time: z.string(),
  entry_price: z.string().describe("At most 4 decimal places, half up"),
  exit_price: z.string().describe("At most 4 decimal places, half up"),
  pnl: z.string(),
  fees: z.string(),
  exit_reason: z
    .enum(["stop_loss", "take_profit", "trailing_stop", "signal", "manual"])
    .describe("What closed it: a protective order, the strategy's signal, or an order placed by hand"),
});

/**
 * Something a trader should know before trusting a result (docs/backtests.md "Warnings"): what
 * made it trade less than its strategy asked, and the optimistic assumptions it was run under.
 */
export const BacktestWarning = z
  .object({
    code: z
      .enum([
        "ORDERS_DENIED",
        "ORDERS_REJECTED",
        "INTRABAR_MINUTES_MISSING",
        "UNADJUSTED_PRICES",
        "NO_SLIPPAGE",
        "NO_FEES",
        "FILLS_AT_NEXT_MINUTE_OPEN",
        "FILLS_AT_SIGNAL_CLOSE",
      ])
      .describe(
        "ORDERS_DENIED: orders the pre-trade checks denied, per reason; ORDERS_REJECTED: orders refused at their fill, per reason; INTRABAR_MINUTES_MISSING: bars of an execution.intrabar run whose waiting orders filled by the bar's own prices, no stored minute lying inside them; UNADJUSTED_PRICES: execution.adjust none over a window with a corporate action (a split shows as a price jump); NO_SLIPPAGE: execution.slippage_bps 0; NO_FEES: a percent commission at rate 0; FILLS_AT_NEXT_MINUTE_OPEN: market orders fill at the next 1-minute bar's open; FILLS_AT_SIGNAL_CLOSE: market orders fill at the close of the bar that signalled them",
      ),
    message: z.string().describe("What happened or what was assumed, and what to change"),
    reason: z.string().optional().describe("ORDERS_DENIED and ORDERS_REJECTED: the reason (MAX_POSITION_EXCEEDED, INSUFFICIENT_CASH…)"),
    count: z
      .int()
      .optional()
      .describe(
        "ORDERS_DENIED and ORDERS_REJECTED: how many orders, each counted under every reason it was denied for; INTRABAR_MINUTES_MISSING: how many bars; UNADJUSTED_PRICES: how many corporate actions",
      ),
  })
  .meta({ id: "BacktestWarning" });
export type BacktestWarning = z.infer<typeof BacktestWarning>;

/** Which prices a backtest's bars were fed at, and the corporate actions inside its window (docs/backtests.md "Prices and corporate actions"). */
export const PriceAdjustment = z
  .object({
    mode: z
      .enum(["forward", "none"])
      .describe(
        "forward: bars before each action were multiplied by its ratio (volumes divided); none: the stored prices as traded. execution.adjust as the run applied it",
      ),
    actions: z
      .array(CorporateAction)
      .describe(
        "The stored corporate actions of the symbols with an ex-date inside the bars the run read (after the first day, through the last; warm-up included), by symbol then ex-date",
      ),
  })
  .meta({ id: "PriceAdjustment" });
export type PriceAdjustment = z.infer<typeof PriceAdjustment>;

const EquityPoint = z.object({ date: z.string(), equity: z.string().describe("The day's closing equity, to the cent") });

/** The result measured against the request's benchmark (docs/backtests.md "Benchmark-relative figures"; null where undefined). */
export const BenchmarkFigures = z
  .object({
    symbol: z.string(),
    total_return: z.number().nullable().describe("The benchmark's last close over its first day's open, minus 1"),
    alpha: z.number().nullable().describe("Annualised: (mean(r) − beta × mean(b)) × trading days per year"),
    beta: z.number().nullable().describe("cov(r, b) / var(b)"),
    correlation: z.number().nullable(),
    tracking_error: z.number().nullable().describe("Annualised standard deviation of r − b"),
    information_ratio: z.number().nullable().describe("Annualised mean of r − b over the tracking error"),
    equity_curve: z.array(EquityPoint).describe("The initial capital held in the benchmark, on the equity curve's dates"),
  })
  .meta({ id: "BenchmarkFigures" });
export type BenchmarkFigures = z.infer<typeof BenchmarkFigures>;

/** The result of a finished (or stopped) backtest. */
export const BacktestResult = z
  .object({
    ...resultFieldsOf("backtest"),
    timeframe: Timeframe,
    execution: Execution,
    price_adjustment: PriceAdjustment,
    risk_config: Risk.Config.nullable().describe(
      "The risk configuration the run applied: the session's, or strategy_config.risk_config over it (docs/trading-sessions.md); null when it applied none (strategy_config.risk_config null)",
    ),
    initial_capital: z.string(),
    final_capital: z.string(),
    final_capital_by_currency: z.record(z.string(), z.string()).describe("Cash plus positions at their last close per currency, to the cent"),
    final_value_by_currency: z.record(z.string(), z.string()).describe("The same, unrounded (commissions of the percent model are not rounded)"),
    final_cash_by_currency: z.record(z.string(), z.string()).describe("Cash per currency, unrounded"),
    performance_metrics: PerformanceMetrics,
    channels: z.record(z.string(), PerformanceMetrics),
    fills: z.array(Fill),
    trades: z.array(ClosedTrade),
    equity_curve: z.array(EquityPoint),
    benchmark: BenchmarkFigures.nullable().describe("Null without a benchmark in the request"),
    warnings: z
      .array(BacktestWarning)
      .describe(
        "What made the run trade less than asked (denials and rejections by reason, with counts) and the optimistic assumptions it ran under; empty when none",
      ),
    bars_processed: z.int(),
    completed_at: z.string().nullable(),
  })
  .meta({ id: "BacktestResult" });
export type BacktestResult = z.infer<typeof BacktestResult>;

/** What finalize stores on the backtest: the result without its lists and warnings, which are read from the run's log (they can outgrow an item). */
export type BacktestSummary = Omit<BacktestResult, "fills" | "trades" | "equity_curve" | "warnings">;

/** A backtest as stored. Progress lives in its run; this record holds the plan and the control flags. */
export interface StoredBacktest extends ControllableRun {
  strategy_name: string;
  config: SessionConfig;
  enforce_risk: boolean;
  symbols: string[];
  start_date: string;
  end_date: string;
  timezone: string;
  /** The window in UNIX seconds (inclusive). */
  window: [number, number];
  initial_capital: string;
  bars_total: number;
  result: BacktestSummary | null;
  /** Set on a run of a parameter sweep: the sweep's flags control it and its session is left alone (docs/backtests.md "Parameter sweeps"). */
  sweep_id?: string;
  /** The sweep imported the candles and counted `bars_total` before creating the run: prepare skips its own look. */
  candles_ready?: boolean;
  /** The request's benchmark, normalised: its daily candles are imported with the run's, and the result is measured against it. */
  benchmark?: string;
  /** Recorded by prepare when it creates the run, so every chunk adjusts by the same actions (absent on backtests prepared before adjustment). */
  price_adjustment?: PriceAdjustment;
  /**
   * A sweep's run: when (epoch seconds) its items expire, this one and its run's (SWEEP_RUN_TTL_DAYS
   * after the sweep created it; docs/operations.md "Sweeps"). Absent: kept.
   */
  expires_at?: number;
}

/** Storage port of backtests. */
export interface BacktestStore extends ControllableRunStore<StoredBacktest> {
  /** Creates many new backtests at once (a sweep's runs). */
  createMany(backtests: StoredBacktest[]): Promise<void>;
  /** The backtests of these ids that exist. */
  getMany(ids: string[]): Promise<StoredBacktest[]>;
  /** A session's backtests, newest first, a page at a time (`cursor` from the page before). */
  listBySession(sessionId: string, page: { limit: number; cursor?: string }): Promise<{ items: StoredBacktest[]; cursor?: string }>;
}

/** What a run of a sweep reads of its sweep: the control flags. */
export interface SweepFlags {
  flags(sweepId: string): Promise<{ pause_requested: boolean; stop_requested: boolean } | undefined>;
}

export interface BacktestDeps extends SessionDeps {
  backtests: BacktestStore;
  sweeps: SweepFlags;
  runs: RunStore;
  candles: CandleStore;
  imports: ImportDeps;
  workflows: WorkflowStarter;
  /** Board lots by symbol (from the provider's static information). */
  lots: (symbols: string[]) => Promise<Record<string, number>>;
  /** Units of USD per unit of each currency, for marking. */
  fx: Record<string, number>;
  /** Fee schedule of a broker type, for the `broker` commission model. */
  fees: (brokerType: string) => FeeConfig;
  /** Bars one chunk feeds at most before it checkpoints (BACKTEST_CHUNK_BARS unless configured). */
  chunkBars: number;
  /**
   * Those of `symbols` (normalised) the market-data provider does not know: the simulated market's
   * universe, or the selected provider's static information. A start answers 422 for them before
   * anything runs, instead of a task failing later.
   */
  unknownSymbols: (symbols: string[]) => Promise<string[]>;
  /** Told once when a backtest (not a sweep's run) ends, completed, stopped or failed: the webhooks' notifier, where the runtime wires it. Never throws. */
  onEnded?: (backtest: StoredBacktest) => Promise<void>;
}

/** What starting, controlling and reading backtests needs: no import worker and no lot sizes (only the workflow's tasks use those); the provider only to know which symbols it has. */
export type BacktestControlDeps = Omit<BacktestDeps, "imports" | "lots">;
