export * as Risk from "./risk";
export { Config as RiskConfig, Limits as RiskLimits, LimitsUpdate as RiskLimitsUpdate } from "./risk";
export { ConfigIssue } from "./config-issue";
