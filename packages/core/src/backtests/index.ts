export * as Backtests from "./backtests";
export { publishProgress as publishBacktestProgress } from "./progress-stream";
export * as Sweeps from "./sweeps";
export { BarFeed, type Feed } from "./bar-feed";
