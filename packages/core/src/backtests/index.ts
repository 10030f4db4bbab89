export * as Backtests from "./backtests";
export { publishProgress as publishBacktestProgress } from "./progress-stream";
export { BarFeed, type Feed } from "./bar-feed";
