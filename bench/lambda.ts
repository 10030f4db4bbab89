/**
 * Per function, as `sst deploy` builds it: the minified bundle's size and its module init time
 * (a fresh Node process importing the bundle, median of 5, wall-clock and CPU), beside the aims
 * of 1 MB and 150 ms.
 *
 *   npx tsx bench/lambda.ts [--markdown]
 */
import { execFileSync } from "node:child_process";
import { statSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { buildFunctions } from "../test/support/function-bundles";
import { markdownTable, printTable } from "./support/table";

const AIM_BYTES = 1024 * 1024;
const AIM_INIT_MS = 150;
const RUNS = 5;

/**
 * Milliseconds a fresh process spends importing the bundle (process start excluded): wall-clock,
 * and the CPU time the process used meanwhile (all its threads), which other load on a shared
 * machine does not inflate.
 */
function initMs(bundle: string): { wall: number; cpu: number } {
  const script = `const c = process.cpuUsage(); const t = performance.now(); await import(${JSON.stringify(bundle)}); const u = process.cpuUsage(c); console.log(JSON.stringify({ wall: performance.now() - t, cpu: (u.user + u.system) / 1000 }));`;
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], {
    env: { PATH: process.env.PATH, AWS_REGION: "us-east-1", TABLE_NAME: "bench", JWT_SECRET: "bench-secret-bench-secret-bench-secret" },
    encoding: "utf8",
  });
  return JSON.parse(out.trim().split("\n").at(-1)!);
}

const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const bundles = await buildFunctions();
const loadBefore = loadavg()[0]!;
const rows = [...bundles.entries()]
  .sort(([a], [b]) => a.localeCompare(b))
  .map(([name, bundle]) => {
    const bytes = statSync(bundle).size;
    const runs = Array.from({ length: RUNS }, () => initMs(bundle));
    const init = median(runs.map((run) => run.wall));
    const cpu = median(runs.map((run) => run.cpu));
    return {
      function: name,
      "bundle KB": Math.round(bytes / 1024).toLocaleString("en-US"),
      "≤ 1 MB": bytes <= AIM_BYTES ? "yes" : "no",
      "init ms (median of 5)": init.toFixed(0),
      "≤ 150 ms": init <= AIM_INIT_MS ? "yes" : "no",
      "init CPU ms (median of 5)": cpu.toFixed(0),
      "CPU ≤ 150 ms": cpu <= AIM_INIT_MS ? "yes" : "no",
    };
  });
// Init times are wall-clock: on a shared machine they grow with its load, which is printed beside them.
console.log(`Load average (1 min) before and after timing: ${loadBefore.toFixed(1)}, ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores`);
if (process.argv.includes("--markdown")) {
  console.log(markdownTable(rows));
} else {
  printTable("Functions as sst deploy builds them (aims: bundle ≤ 1 MB, init ≤ 150 ms)", rows);
}
