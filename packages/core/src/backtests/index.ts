export * as Backtests from "./backtests";
export { BarFeed, type Feed } from "./bar-feed";
