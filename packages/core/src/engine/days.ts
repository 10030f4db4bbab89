import { Calendar } from "../market/calendar";
import { Markets, type Market } from "../market/market";
import { isoDateOf, utcToZoned, zonedTimeToUtc, MS_PER_DAY } from "../market/zoned-time";
import type { Timeframe } from "../strategies/definition";
import type { EngineSetup } from "./setup";
import { closeTrackerDay, equityOf, openPositions, PERIOD_MS, round2, round6, track, type ChannelRuntime, type EngineCore, type Halt } from "./runtime";

/** Days (docs/trading-engine.md "Days"): rolling to a new local day, closing one, the exchange date of fees and tick grids, and the post-trade monitors that run on every bar. */

/** The market whose days the engine counts (daily figures, rollover): the one of the base currency, else the US. */
export function dayMarketOf(setup: Pick<EngineSetup, "base_currency">): Market {
  return Object.values(Markets).find((info) => info.currency === setup.base_currency)?.market ?? "US";
}

/** When local day `dayNumber` of `market` ends: its regular session's close (the exchange calendar's), or the next midnight on a day it does not trade or outside the calendar. */
export function regularCloseOf(market: Market, dayNumber: number): number {
  const midnight = zonedTimeToUtc(Markets[market].timeZone, dayNumber + 1, 0);
  let calendar: Calendar;
  try {
    calendar = Calendar.for(market);
  } catch {
    return midnight;
  }
  if (!calendar.covers(dayNumber)) return midnight;
  const sessions = calendar.sessionsOfDay(dayNumber);
  for (let i = sessions.length - 1; i >= 0; i--) if (sessions[i]!.session === "Intraday") return sessions[i]!.end;
  return midnight;
}

/**
 * When a bar of `market` opening at `openMs` closes: its open plus its period, but no later than
 * its day's regular close (the market's last hourly bar, a daily bar stamped at local midnight),
 * so that what it causes is not stamped after the day's end. `memo` keeps the last day's close.
 */
export function barCloseIn(market: Market, openMs: number, timeframe: Timeframe, memo: { day: number; close: number }): number {
  const end = openMs + PERIOD_MS[timeframe];
  if (timeframe === "1m") return end;
  const day = utcToZoned(Markets[market].timeZone, openMs).dayNumber;
  if (day !== memo.day) {
    memo.day = day;
    memo.close = regularCloseOf(market, day);
  }
  return memo.close > openMs ? Math.min(end, memo.close) : end;
}

/** Post-trade monitors after every bar: peaks, drawdown and daily loss per channel and session. */
export function monitor(e: EngineCore) {
  let total = 0;
  for (let i = 0; i < e.channels.length; i++) {
    const channel = e.channels[i];
    const equity = equityOf(channel);
    total += equity;
    const tracker = channel.tracker;
    track(tracker, equity);
    // Without risk rules (a plain backtest) the figures are tracked but nothing halts.
    if (e.setup.risk === null || channel.halt === "drawdown") continue;
    const limits = channel.setup.limits;
    const drawdown = tracker.peak > 0 ? (tracker.peak - equity) / tracker.peak : 0;
    if (drawdown >= limits.max_drawdown) {
      halt(e, channel, "drawdown", "MAX_DRAWDOWN_BREACHED", {
        drawdown: round6(drawdown),
        max_drawdown: limits.max_drawdown,
        equity: round2(equity),
        peak: round2(tracker.peak),
      });
      continue;
    }
    if (channel.halt === null && tracker.day_start_equity > 0) {
      const loss = (tracker.day_start_equity - equity) / tracker.day_start_equity;
      if (loss >= limits.max_daily_loss) {
        halt(e, channel, "daily_loss", "MAX_DAILY_LOSS_BREACHED", {
          daily_loss: round6(loss),
          max_daily_loss: limits.max_daily_loss,
          equity: round2(equity),
          day_start_equity: round2(tracker.day_start_equity),
        });
      }
    }
  }
  track(e.session, total);
}

export function halt(e: EngineCore, channel: ChannelRuntime, halt: Exclude<Halt, null>, reason: string, values: Record<string, number>) {
  channel.halt = halt;
  const id = channel.setup.channel_id;
  const what = halt === "drawdown" ? "drawdown" : "daily loss";
  const message = `${reason}: channel ${id} ${what} limit reached; new entries are halted${halt === "daily_loss" ? " until the next trading day" : ""}`;
  e.emit("risk_event", id, { kind: "limit_breached", reason, message, values, halted: true });
  e.emit("alert", id, { level: "critical", type: "risk_limit", reason, message, values });
}

export function rollTo(e: EngineCore, at: number) {
  const { dayNumber } = utcToZoned(e.timeZone, at);
  if (dayNumber === e.day) return;
  if (e.day >= 0) closeDay(e, at);
  // What the new day starts (a daily-loss halt lifted) happens at its first bar.
  e.time = Math.max(e.time, at);
  enterDay(e, dayNumber);
  for (const channel of e.channels) startDay(e, channel);
  e.session.day_start_equity = e.totalEquity();
}

export function enterDay(e: EngineCore, dayNumber: number) {
  e.day = dayNumber;
  const { start, end } = dayEdges(e.timeZone, dayNumber);
  e.dayStart = start;
  e.dayEnd = end;
}

/** Local days' UTC edges already found, by zone and day: a daily bar enters a new day at every bar, and the search below is about a hundred zone look-ups. */
const edgesKept = new Map<string, Map<number, { start: number; end: number }>>();
const EDGES_KEPT_LIMIT = 100_000;

/** The UTC range `[start, end)` of local day `dayNumber` in `timeZone`, to the minute (a pure function of both: kept once found). */
function dayEdges(timeZone: string, dayNumber: number): { start: number; end: number } {
  let zone = edgesKept.get(timeZone);
  if (zone === undefined) edgesKept.set(timeZone, (zone = new Map()));
  const kept = zone.get(dayNumber);
  if (kept !== undefined) return kept;
  // The local day's UTC range, widened by the largest zone offsets: a bar inside it that
  // belongs to the next local day is caught by the day-number check in `rollTo`.
  const startGuess = dayNumber * MS_PER_DAY - 14 * 3_600_000;
  const wall = (ms: number) => utcToZoned(timeZone, ms).dayNumber;
  let start = startGuess;
  while (wall(start) < dayNumber) start += 3_600_000;
  let end = start + 20 * 3_600_000;
  while (wall(end) === dayNumber) end += 3_600_000;
  // Hour steps may overshoot by less than an hour; step back by minutes for the exact edges.
  while (wall(start - 60_000) === dayNumber) start -= 60_000;
  while (wall(end - 60_000) !== dayNumber) end -= 60_000;
  if (zone.size >= EDGES_KEPT_LIMIT) zone.clear();
  const edges = { start, end };
  zone.set(dayNumber, edges);
  return edges;
}

export function startDay(e: EngineCore, channel: ChannelRuntime) {
  channel.daily_trades = 0;
  channel.tracker.day_start_equity = equityOf(channel);
  if (channel.halt === "daily_loss") {
    channel.halt = null;
    e.emit("risk_event", channel.setup.channel_id, {
      kind: "halt_lifted",
      reason: "NEW_TRADING_DAY",
      message: "Daily loss halt lifted for the new trading day",
    });
  }
}

/**
 * Settles the day under way: each channel's closing equity joins the daily figures and `day_end`
 * is written, stamped at the market's regular close (after the day's last bar and what it caused,
 * which are stamped no later than the close), never before the engine's clock, and never after
 * `notAfter` (the next day's first bar, which rolls the day).
 */
export function closeDay(e: EngineCore, notAfter = Number.POSITIVE_INFINITY) {
  e.time = Math.min(notAfter, Math.max(e.time, regularCloseOf(dayMarketOf(e.setup), e.day)));
  const summary: Record<string, number> = {};
  for (const channel of e.channels) {
    const equity = equityOf(channel);
    closeTrackerDay(channel.tracker, equity, openPositions(channel) > 0);
    summary[channel.setup.channel_id] = round2(equity);
  }
  const total = e.totalEquity();
  closeTrackerDay(
    e.session,
    total,
    e.channels.some((c) => openPositions(c) > 0),
  );
  e.emit("day_end", null, { day: e.day, equity: round2(total), channels: summary });
}

/** The day number of the clock's date at `market`'s exchange: kept while the clock stays inside the same local day. */
export function exchangeDay(e: EngineCore, market: Market): number {
  const date = e.tradeDate;
  if (date.market !== market || e.time < date.from || e.time >= date.to) {
    const timeZone = Markets[market].timeZone;
    const day = utcToZoned(timeZone, e.time).dayNumber;
    date.market = market;
    date.day = day;
    date.iso = isoDateOf(day);
    date.from = zonedTimeToUtc(timeZone, day, 0);
    date.to = zonedTimeToUtc(timeZone, day + 1, 0);
  }
  return date.day;
}
