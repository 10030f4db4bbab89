export * as Backtests from "./backtests";
export { BarFeed, bucketsBetween, type Feed } from "./bar-feed";
