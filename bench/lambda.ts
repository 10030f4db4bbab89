/**
 * Per function, as `sst deploy` builds it: the minified bundle's size and its module init time
 * (a fresh Node process importing the bundle, median of 5), beside the aims of 1 MB and 150 ms.
 *
 *   npx tsx bench/lambda.ts [--markdown]
 */
import { execFileSync } from "node:child_process";
import { statSync } from "node:fs";
import { buildFunctions } from "../test/support/function-bundles";
import { printTable } from "./support/table";

const AIM_BYTES = 1024 * 1024;
const AIM_INIT_MS = 150;
const RUNS = 5;

/** Milliseconds a fresh process spends importing the bundle (process start excluded). */
function initMs(bundle: string): number {
  const script = `const t = performance.now(); await import(${JSON.stringify(bundle)}); console.log(performance.now() - t);`;
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], {
    env: { PATH: process.env.PATH, AWS_REGION: "us-east-1", TABLE_NAME: "bench", JWT_SECRET: "bench-secret-bench-secret-bench-secret" },
    encoding: "utf8",
  });
  return Number(out.trim().split("\n").at(-1));
}

const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const bundles = await buildFunctions();
const rows = [...bundles.entries()]
  .sort(([a], [b]) => a.localeCompare(b))
  .map(([name, bundle]) => {
    const bytes = statSync(bundle).size;
    const init = median(Array.from({ length: RUNS }, () => initMs(bundle)));
    return {
      function: name,
      "bundle KB": Math.round(bytes / 1024).toLocaleString("en-US"),
      "≤ 1 MB": bytes <= AIM_BYTES ? "yes" : "no",
      "init ms (median of 5)": init.toFixed(0),
      "≤ 150 ms": init <= AIM_INIT_MS ? "yes" : "no",
    };
  });
if (process.argv.includes("--markdown")) {
  const columns = Object.keys(rows[0]!);
  console.log(`| ${columns.join(" | ")} |\n|${columns.map(() => "---").join("|")}|`);
  for (const row of rows) console.log(`| ${columns.map((c) => row[c as keyof typeof row]).join(" | ")} |`);
} else {
  printTable("Functions as sst deploy builds them (aims: bundle ≤ 1 MB, init ≤ 150 ms)", rows);
}
