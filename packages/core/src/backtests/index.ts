export * as Backtests from "./backtests";
export { publishProgress as publishBacktestProgress } from "./backtest-control";
export * as Sweeps from "./sweeps";
export * as BiasChecks from "./bias-check-control";
export * as MonteCarlo from "./monte-carlo-control";
