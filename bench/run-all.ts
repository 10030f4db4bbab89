/** `npm run bench`: every benchmark in turn, each in its own process, printing its tables. */
import { execFileSync } from "node:child_process";
import { join } from "node:path";

const benches = [
  "http",
  "candles",
  "indicators",
  "simulated-market",
  "backtest",
  "monte-carlo",
  "dynamodb-items",
  "session",
  "live",
  "lambda",
  "channels",
  "console",
];
for (const name of benches) {
  console.log(`\n=== bench/${name}.ts ===`);
  execFileSync(process.execPath, ["--import", "tsx", join(import.meta.dirname, `${name}.ts`), ...process.argv.slice(2)], { stdio: "inherit" });
}
