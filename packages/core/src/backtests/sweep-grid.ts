import type { PerformanceMetrics } from "../engine/metrics";
import type { BacktestStatus } from "./backtest-model";

/**
 * A walk-forward's in-sample grid, run in process (docs/backtests.md "Walk-forward"): each window's
 * points are cut into chunks, a chunk is one task of the sweep machine's `RunGrid` Map (the
 * window's candles read once, every point's engine run over them, nothing stored per point but its
 * figures), and each chunk's figures are one item (`GridChunk`). Only each window's best point is
 * then stored as a backtest, beside the out-of-sample runs. This module: the chunks' plan, their
 * stored shape and port, and the in-sample outcomes the ranking reads; the task is
 * sweep-grid-tasks.ts.
 */

/** Bars one grid chunk runs at most (points × bars of a point), at least one point: a window of 100 points of 368 daily bars is one chunk. */
export const GRID_CHUNK_BARS = 100_000;

/** The shape of a stored `GridChunk`; a reader refuses others. */
export const GRID_CHUNK_SHAPE = 1;

/** One chunk of a window's points: the runs `[from, to)` of the sweep's `runs`, every one over `bars` bars. */
export interface GridChunkPlan {
  window: number;
  chunk: number;
  from: number;
  to: number;
  bars: number;
}

/** How a sweep runs its in-sample grid in process: the plan's chunks (a walk-forward's; absent on sweeps whose runs are backtests). */
export interface StoredGrid {
  shape: typeof GRID_CHUNK_SHAPE;
  chunks: GridChunkPlan[];
}

/** One point's outcome: its figures when it completed, why when it failed. */
export interface GridPointResult {
  /** Its index in the sweep's `runs`. */
  run: number;
  status: "completed" | "failed";
  performance_metrics: PerformanceMetrics | null;
  bars_processed: number;
  error: string | null;
}

/** A chunk's outcomes so far (one item per chunk, written by its task at its end, idempotently: a point's figures are the same at every run). */
export interface GridChunk {
  shape: typeof GRID_CHUNK_SHAPE;
  sweep_id: string;
  window: number;
  chunk: number;
  results: GridPointResult[];
  updated_at: string;
}

/** Storage port of the grid's chunks. */
export interface SweepGridStore {
  /** Every chunk stored of a sweep (those whose task has not yet written are absent). */
  chunks(sweepId: string): Promise<GridChunk[]>;
  get(sweepId: string, window: number, chunk: number): Promise<GridChunk | undefined>;
  /** Writes the chunk whole (its results are a superset of any it replaces, or the same points again). */
  put(chunk: GridChunk): Promise<void>;
}

/**
 * The chunks of one window's runs `[from, to)`, each `bars` bars long: as many points as
 * GRID_CHUNK_BARS holds (at least one), numbered after `first`.
 */
export function chunksOf(window: number, from: number, to: number, bars: number, first = 0): GridChunkPlan[] {
  const size = Math.max(1, Math.floor(GRID_CHUNK_BARS / Math.max(1, bars)));
  const chunks: GridChunkPlan[] = [];
  for (let start = from; start < to; start += size) {
    chunks.push({ window, chunk: first + chunks.length, from: start, to: Math.min(to, start + size), bars });
  }
  return chunks;
}

/**
 * An in-sample run as the ranking reads it: a stored backtest, or a point of the grid (its id the
 * one planned for it; only each window's best is stored as a backtest).
 */
export interface InSampleRun {
  id: string;
  status: BacktestStatus;
  error: string | null;
  result: { performance_metrics: PerformanceMetrics } | null;
}

/**
 * The grid's outcomes as in-sample runs, by index of the sweep's `runs`: each point with an
 * outcome; a point without one is absent (not run yet), or `stopped` once the sweep ended stopped.
 */
export function gridRuns(runs: readonly { backtest_id: string }[], chunks: readonly GridChunk[], stopped: boolean): (InSampleRun | undefined)[] {
  const out: (InSampleRun | undefined)[] = runs.map((run) => (stopped ? { id: run.backtest_id, status: "stopped", error: null, result: null } : undefined));
  for (const chunk of chunks) {
    if (chunk.shape !== GRID_CHUNK_SHAPE)
      throw new Error(`A grid chunk of sweep ${chunk.sweep_id} has shape ${chunk.shape}; this version reads ${GRID_CHUNK_SHAPE}`);
    for (const point of chunk.results) {
      out[point.run] = {
        id: runs[point.run]!.backtest_id,
        status: point.status,
        error: point.error,
        result: point.performance_metrics ? { performance_metrics: point.performance_metrics } : null,
      };
    }
  }
  return out;
}
