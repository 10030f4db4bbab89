/**
 * Backtests (the `Backtests` namespace of index.ts): the model, a request's checks and planning,
 * the control side, the workflow's tasks, the result and the candle coverage checks, each in its
 * own module.
 */
export * from "./backtest-model";
export * from "./backtest-request";
export * from "./backtest-control";
export * from "./backtest-tasks";
export * from "./backtest-result";
export * from "./candle-coverage";
