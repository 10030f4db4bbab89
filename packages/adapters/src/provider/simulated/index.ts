export { SimulatedMarketData, type SimulatedMarketDataOptions } from "./simulated-market-data";
export { SimulationEngine, type SimulatedBarColumns, type SimulationEngineOptions } from "./simulation-engine";
export { MASK_ALL, MASK_EXTENDED, MASK_INTRADAY } from "./day-layout";
export { SimulatedUniverse, type InstrumentSpec } from "./universe";
