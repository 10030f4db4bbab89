/**
 * The trading calendar and data readiness (docs/trading-calendar.md): a symbol's stored calendar
 * entries and the checks of its stored candles against the bars each trading day should have. The
 * module by what its files hold: `calendar-model.ts` the entry, its storage port, the dependencies and
 * the endpoints' schemas; `calendar-days.ts` the days of a checked range and their readiness;
 * `bar-slots.ts` a day's regular-session bar slots; `readiness.ts` the stored bars counted against
 * them; `trading-calendar.ts` the use cases (`TradingCalendar`).
 */
export * from "./calendar-model";
export { TradingCalendar } from "./trading-calendar";
export { regularBarSlots, type SessionDay } from "./bar-slots";
export { countStoredBars, type SlottedDay } from "./readiness";
