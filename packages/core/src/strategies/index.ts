export * as Strategies from "./strategies";
export type { Bar, BarContext, Bias, Signal, Strategy, StrategyState } from "./strategy";
export type { ParameterDefinition, ParameterValue } from "./parameter";
export { Role as StrategyRole, Timeframe } from "./definition";
