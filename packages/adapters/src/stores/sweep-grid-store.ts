import type { GridChunk, GridPointResult, SweepGridStore } from "@tp/core/backtests/sweep-grid";
import type { Db } from "../dynamo/db";
import { gunzipJson, gzipJson } from "../dynamo/gzip-json";
import { Keys } from "../dynamo/keys";
import { Repository } from "../dynamo/repository";

/** A chunk as its item holds it: the points' outcomes as gzipped JSON (a point's figures are about 700 bytes of JSON, a quarter of it gzipped). */
interface GridChunkItem extends Omit<GridChunk, "results"> {
  points: number;
  results: Uint8Array;
}

/**
 * The chunks of a walk-forward's in-sample grid on the single table: one item per chunk in the
 * sweep's partition (`Keys.sweepGridChunk`), its points' outcomes gzipped (100 points: about 15 KB
 * where the JSON is about 70 KB), so reading a sweep's whole grid is one Query of a few items.
 * Kept with the sweep (no expiry): they are its in-sample ranking.
 */
export class DynamoSweepGridStore implements SweepGridStore {
  private readonly items: Repository<GridChunkItem>;

  constructor(db: Db) {
    this.items = new Repository<GridChunkItem>(db, { type: "SweepGridChunk", key: (c) => Keys.sweepGridChunk(c.sweep_id, c.window, c.chunk) });
  }

  async chunks(sweepId: string): Promise<GridChunk[]> {
    const items = await this.items.queryAll(Keys.sweep(sweepId).pk, { prefix: Keys.sweepGridPrefix });
    return items.map(chunkOf);
  }

  async get(sweepId: string, window: number, chunk: number): Promise<GridChunk | undefined> {
    const item = await this.items.get(Keys.sweepGridChunk(sweepId, window, chunk));
    return item ? chunkOf(item) : undefined;
  }

  async put(chunk: GridChunk): Promise<void> {
    await this.items.put({ ...chunk, points: chunk.results.length, results: gzipJson(chunk.results) });
  }
}

const chunkOf = ({ points: _points, results, ...chunk }: GridChunkItem): GridChunk => ({ ...chunk, results: gunzipJson<GridPointResult[]>(results) });
