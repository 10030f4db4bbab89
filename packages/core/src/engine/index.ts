export {
  TradingEngine,
  PERIOD_MS,
  type ChannelRunState,
  type EngineSnapshot,
  type EngineView,
  type Halt,
  type OrderRequest,
  type PositionView,
} from "./engine";
export * from "./events";
export { performance, dailyReturns, PerformanceMetrics } from "./metrics";
export * from "./setup";
