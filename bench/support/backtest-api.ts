import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ApiClient } from "../../test/support/api-client";
import { startService } from "../../test/support/local-process";

/** A year of 1-minute bars of AAPL.US through `npm start`'s runtime: first with the candles imported from the simulated provider, then stored. */
export async function endToEndBacktest(): Promise<Record<string, string | number>[]> {
  const dataDir = mkdtempSync(join(tmpdir(), "tp-bench-backtest-"));
  const service = await startService({ DATA_DIR: dataDir, CAPTCHA_TEST_CODE: "bench" });
  try {
    const client = new ApiClient(service.base);
    await client.loginAdmin(dataDir, "bench");
    const rows: Record<string, string | number>[] = [];
    for (const label of ["candles imported first (simulated provider)", "candles already stored"]) {
      const started = performance.now();
      const { backtestId } = await client.startBacktest({
        strategy_name: "ma_crossover",
        strategy_config: { fast_period: 50, slow_period: 200, execution: { timeframe: "1m", commission: { model: "broker", broker_type: "longport" } } },
        symbols: ["AAPL.US"],
        start_date: "2024-01-01",
        end_date: "2024-12-31",
      });
      const progress = await client.waitForBacktest(backtestId, (p) => p.status === "completed" || p.status === "failed", 600_000);
      const seconds = (performance.now() - started) / 1000;
      const result = await client.expect("GET", `/api/v1/backtest/${backtestId}/result`, 200);
      rows.push({ run: label, bars: progress.bars_processed.toLocaleString("en-US"), fills: result.fills.length, "wall s": seconds.toFixed(1), "bars/s": Math.round(progress.bars_processed / seconds).toLocaleString("en-US") });
    }
    return rows;
  } finally {
    await service.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
