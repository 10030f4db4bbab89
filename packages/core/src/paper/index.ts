export { PaperBroker, MARKET_ORDER_RESERVE_FACTOR, MAX_WORKING_ORDERS, type PaperAccountStore, type PaperBrokerDeps, type PaperCommit } from "./broker";
export { PaperBook, type BookChanges, type PaperBookOptions } from "./book";
export type { Reservation } from "./order-costs";
export * from "./matching";
export * from "./rules";
export * from "./schemas";
export * from "./sessions";
export * from "./types";
export * from "./views";
