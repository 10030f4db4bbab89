export * as Backtests from "./backtests";
export * as Sweeps from "./sweeps";
export { BarFeed, type Feed } from "./bar-feed";
