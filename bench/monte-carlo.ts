/**
 * Monte Carlo of a backtest's closed trades (docs/backtests.md "Monte Carlo"), the pure core alone:
 * 10,000 paths of 1,000 trades reshuffled and bootstrapped, wall and CPU time per run (the issue's
 * aim: under a second), after a warm-up run so the JIT is not measured cold.
 *
 *   npx tsx bench/monte-carlo.ts [--markdown]
 */
import { simulate, Xoshiro128, type MonteCarloMethod } from "../packages/core/src/backtests/monte-carlo";
import { showTable } from "./support/table";

const markdown = process.argv.includes("--markdown");
const random = new Xoshiro128(2024);
const returns = Float64Array.from({ length: 1000 }, () => (random.nextUint32() / 2 ** 32 - 0.48) * 0.05);
const exitDays = Int32Array.from({ length: 1000 }, (_, i) => 19_723 + Math.floor(i * 1.3));
const run = (method: MonteCarloMethod, paths: number, seed: number) => simulate({ initial: 100_000, returns, exitDays, startDay: 19_722, paths, seed, method });

run("reshuffle", 1000, 1);
run("bootstrap", 1000, 1);
const rows: Record<string, string | number>[] = [];
for (const method of ["reshuffle", "bootstrap"] as const) {
  const times: number[] = [];
  const cpu: number[] = [];
  for (let round = 0; round < 5; round++) {
    const cpuStarted = process.cpuUsage();
    const started = performance.now();
    run(method, 10_000, round + 1);
    times.push(performance.now() - started);
    const used = process.cpuUsage(cpuStarted);
    cpu.push((used.user + used.system) / 1000);
  }
  times.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  rows.push({
    method,
    paths: "10,000",
    trades: "1,000",
    "wall ms (median of 5)": times[2]!.toFixed(0),
    "wall ms (worst)": times[4]!.toFixed(0),
    "CPU ms (median)": cpu[2]!.toFixed(0),
    "steps per second": `${((10_000 * 1000) / (times[2]! / 1000) / 1e6).toFixed(1)} M`,
  });
}
showTable("Monte Carlo: 10,000 paths of 1,000 trades (percentiles of 5 figures and 200 band points)", rows, markdown);
