/**
 * Candle imports (docs/candles-and-imports.md): a task imports a symbol's candles over a range, in
 * chunks a queue worker does one by one. The module by what its files hold: `import-model.ts` the
 * schemas, the task as stored, its storage port and dependencies; `import-progress.ts` the chunk plan,
 * the progress and the status view; `screen.ts` the screening of the provider's candles;
 * `imports.ts` the use cases and the worker (`Imports`).
 */
export {
  IMPORT_MAX_RECEIVES,
  ImportMessage,
  ImportStatus,
  MAX_IMPORT_DAYS,
  PeriodResult,
  StockImportRequest,
  StockImportStatus,
  type ImportChunk,
  type ImportDeps,
  type ImportTask,
  type ImportTaskStore,
} from "./import-model";
export { Imports } from "./imports";
export { screenCandles } from "./screen";
