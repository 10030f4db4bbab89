export {
  Assets,
  Positions,
  assetExists,
  portfolioOwner,
  type AssetRecord,
  type PortfolioDeps,
  type PortfolioMode,
  type PortfolioStore,
  type Position,
} from "./portfolio";
export {
  AssetOverview,
  CurrencyBreakdown,
  OverviewQuery,
  PositionValuation,
  PriceOrigin,
  valuePortfolio,
  type ExchangeRates,
  type PriceSource,
} from "./overview";
export { AssetSync, cashOf, heldToPositions, type AccountSource, type SyncDeps } from "./sync";
export * from "./schemas";
export * from "./types";
export { Overview, type OverviewDeps } from "./overview";
export { SimulatedAccount, type SimulatedDeps } from "./simulated";
