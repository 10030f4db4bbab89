/**
 * Candle store benchmark on DynamoDB Local (in memory), through the real code paths:
 *  - import throughput: a year of AAPL.US 1-minute candles (extended hours) through the import
 *    worker (provider → screening → counts → bucket writes → task commits), in candles per second;
 *  - reading that year back (what every backtest does), in candles per second;
 *  - listing one page of one day of 1-minute candles over HTTP-free use-case calls, p50/p99 latency.
 *
 *   npx tsx bench/candles.ts
 */
import { randomUUID } from "node:crypto";
import { configFromEnv } from "../packages/adapters/src/config";
import { ensureTable } from "../packages/adapters/src/dynamo/db";
import type { TableQueue } from "../packages/adapters/src/queues/table-queue";
import { createServices } from "../packages/adapters/src/services";
import { Candles } from "../packages/core/src/candles/index";
import { Imports } from "../packages/core/src/imports/index";
import { stockImportHandler } from "../packages/functions/src/queue/stock-import";
import { startDynamoDbLocal } from "../packages/local/src/dynamodb-local";
import { LocalQueueRunner } from "../packages/local/src/queue-runner";
import { printTable } from "./support/table";

const dynamo = await startDynamoDbLocal();
try {
  const config = configFromEnv(
    { TABLE_NAME: `bench-${randomUUID()}`, DYNAMODB_ENDPOINT: dynamo.endpoint },
    new TextEncoder().encode("bench-secret-bench-secret-bench-secret"),
  );
  const services = createServices(config);
  await ensureTable(services.db);
  const actor = { id: "bench", user_type: "admin" as const };
  const runner = new LocalQueueRunner(services.jobs as TableQueue, {
    "stock-import": stockImportHandler(() => Promise.resolve(services)),
  });

  // Warm-up: a small import so the JIT and DynamoDB Local are not measured cold.
  await Imports.start(services.imports, actor, { symbol: "MSFT.US", start_date: "2024-01-02", end_date: "2024-01-12", periods: ["1m"] });
  await runner.drain("stock-import");

  const started = performance.now();
  const task = await Imports.start(services.imports, actor, {
    symbol: "AAPL.US",
    start_date: "2024-01-01",
    end_date: "2024-12-31",
    periods: ["1m"],
  });
  await runner.drain("stock-import");
  const importSeconds = (performance.now() - started) / 1000;
  const imported = Imports.view((await services.imports.tasks.get(task.task_id))!);

  const from = Date.UTC(2024, 0, 1) / 1000;
  const to = Date.UTC(2025, 0, 1) / 1000 - 1;
  await Candles.read(services.candles, "AAPL.US", "1m", from, to); // warm
  const reads: number[] = [];
  let length = 0;
  for (let round = 0; round < 5; round++) {
    const readStarted = performance.now();
    const batch = await Candles.read(services.candles, "AAPL.US", "1m", from, to);
    reads.push(performance.now() - readStarted);
    length = batch.length;
  }
  reads.sort((a, b) => a - b);
  const readMs = reads[Math.floor(reads.length / 2)]!;

  const latencies: number[] = [];
  const query = {
    code: "AAPL.US",
    period: "1m" as const,
    start_date: "2024-06-03",
    end_date: "2024-06-03",
    timezone: "America/New_York",
    sort_by: "timestamp" as const,
    sort_order: "asc" as const,
    page: 2,
    page_size: 100,
  };
  for (let round = 0; round < 300; round++) {
    const pageStarted = performance.now();
    const page = await Candles.list(services.candles, query);
    latencies.push(performance.now() - pageStarted);
    if (page.data.length !== 100) throw new Error(`expected a full page, got ${page.data.length}`);
  }
  latencies.sort((a, b) => a - b);
  const percentile = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]!;

  printTable(`Candle store on DynamoDB Local (${new Date().toISOString()})`, [
    {
      measure: "import, AAPL.US 1m, 2024 (worker path)",
      candles: imported.data_count,
      seconds: importSeconds.toFixed(2),
      "candles/s": Math.round(imported.data_count / importSeconds),
      target: "≥ 100,000/s",
    },
    {
      measure: "read one year of 1m back (median of 5)",
      candles: length,
      seconds: (readMs / 1000).toFixed(3),
      "candles/s": Math.round(length / (readMs / 1000)),
      target: "≥ 300,000/s",
    },
  ]);
  printTable("List one page (100) of one day of 1m candles, 300 calls", [
    { "p50 ms": percentile(50).toFixed(2), "p99 ms": percentile(99).toFixed(2), "max ms": latencies[latencies.length - 1]!.toFixed(2) },
  ]);
  services.db.raw.destroy();
} finally {
  await dynamo.stop();
}
