import { describe, expect, it } from "vitest";
import type { PerformanceMetrics } from "../engine/metrics";
import { chunksOf, GRID_CHUNK_BARS, GRID_CHUNK_SHAPE, type GridChunk, gridRuns } from "./sweep-grid";

const runs = (count: number) => Array.from({ length: count }, (_, i) => ({ backtest_id: `p${i}` }));
const metrics = { sharpe_ratio: 1 } as unknown as PerformanceMetrics;
const chunk = (results: GridChunk["results"], shape: number = GRID_CHUNK_SHAPE): GridChunk =>
  ({ shape, sweep_id: "s", window: 0, chunk: 0, results, updated_at: "2026-11-29T00:00:00.000Z" }) as GridChunk;

describe("a walk-forward's grid chunks", () => {
  it("cuts a window's points into chunks of as many points as GRID_CHUNK_BARS holds, at least one", () => {
    // 250 points of 1,000 bars: 100 a chunk.
    expect(chunksOf(2, 500, 750, 1_000).map((c) => [c.window, c.chunk, c.from, c.to, c.bars])).toEqual([
      [2, 0, 500, 600, 1_000],
      [2, 1, 600, 700, 1_000],
      [2, 2, 700, 750, 1_000],
    ]);
    // 100 points of 368 daily bars: one chunk.
    expect(chunksOf(0, 0, 100, 368)).toEqual([{ window: 0, chunk: 0, from: 0, to: 100, bars: 368 }]);
    // A point longer than a chunk's bars is a chunk alone.
    expect(chunksOf(1, 0, 3, GRID_CHUNK_BARS * 2).map((c) => c.to - c.from)).toEqual([1, 1, 1]);
  });

  it("reads the chunks' outcomes as in-sample runs by index, a point without one absent until the sweep is stopped", () => {
    const stored = [chunk([{ run: 1, status: "completed", performance_metrics: metrics, bars_processed: 368, error: null }])];
    expect(gridRuns(runs(3), stored, false)).toEqual([
      undefined,
      { id: "p1", status: "completed", error: null, result: { performance_metrics: metrics } },
      undefined,
    ]);
    const failed = [chunk([{ run: 0, status: "failed", performance_metrics: null, bars_processed: 0, error: "boom" }])];
    expect(gridRuns(runs(2), failed, true)).toEqual([
      { id: "p0", status: "failed", error: "boom", result: null },
      { id: "p1", status: "stopped", error: null, result: null },
    ]);
  });

  it("refuses a chunk stored in another shape", () => {
    expect(() => gridRuns(runs(1), [chunk([], 2)], false)).toThrow("has shape 2; this version reads 1");
  });
});
