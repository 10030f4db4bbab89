import { beforeAll, describe, expect, it } from "vitest";
import { StoredPeriods } from "../../packages/core/src/candles/index";
import { Calendar } from "../../packages/core/src/market/calendar";
import { marketOf } from "../../packages/core/src/market/market";
import type { TableQueue } from "../../packages/adapters/src/queues/table-queue";
import { stockImportHandler } from "../../packages/functions/src/queue/stock-import";
import { LocalQueueRunner } from "../../packages/local/src/queue-runner";
import { createTestApi, type TestApi } from "../support/harness";

let api: TestApi;
let token: string;
/** Calendars are shared: settling them is for administrators. */
let adminToken: string;

const base = "/api/v1/stock-calendar";
const initCalendar = (symbol: string, start_date: string, end_date: string, expected = 200) =>
  api.json("POST", `${base}/${symbol}/init`, expected, { token: adminToken, body: { start_date, end_date } });
const getCalendar = (symbol: string, start_date: string, end_date: string, expected = 200) =>
  api.json("GET", `${base}/${symbol}?start_date=${start_date}&end_date=${end_date}`, expected, { token });
const missing = (symbol: string, query: Record<string, string>, expected = 200) =>
  api.json("GET", `${base}/${symbol}/missing?${new URLSearchParams(query)}`, expected, { token });
const verify = (symbol: string, body: object, expected = 200) => api.json("POST", `${base}/${symbol}/verify`, expected, { token, body });

/** Imports through the local queue with the worker Lambda would run, and waits for the task to finish. */
async function importRange(symbol: string, start_date: string, end_date: string) {
  const { task_id } = await api.json("POST", "/api/v1/stock-import/import", 200, { token, body: { symbol, start_date, end_date } });
  const handler = stockImportHandler(() => Promise.resolve(api.services));
  await new LocalQueueRunner(api.services.jobs as TableQueue, { "stock-import": (event) => handler(event, undefined) }).drain("stock-import");
  const status = await api.json("GET", `/api/v1/stock-import/import/${task_id}/status`, 200, { token });
  expect(status.status).toBe("completed");
}

const byDate = (entries: any[]) => Object.fromEntries(entries.map((entry) => [entry.date, entry]));
const locs = (body: any) => body.detail.map((issue: any) => issue.loc.join(".")).sort();

beforeAll(async () => {
  api = await createTestApi();
  token = (await api.createUser()).token;
  adminToken = await api.adminToken();
});

describe("calendar init", () => {
  it("creates one entry per date, and a second run creates none and skips them all", async () => {
    const first = await initCalendar("700.HK", "2024-01-01", "2024-03-31");
    expect(first).toMatchObject({
      success: true,
      symbol: "700.HK",
      market: "HK",
      created_count: 91,
      skipped_count: 0,
      total_days: 91,
      half_days: 1,
      mismatched_dates: [],
    });
    expect(first.trading_days).toBe(Calendar.for("HK").tradingDays("2024-01-01", "2024-03-31").length);
    expect(first.trading_days + first.closed_days).toBe(91);
    const second = await initCalendar("00700.hk", "2024-01-01", "2024-03-31");
    expect(second).toMatchObject({ created_count: 0, skipped_count: 91, total_days: 91, trading_days: first.trading_days, half_days: 1 });
  });

  it("creates only the dates an overlapping range adds", async () => {
    const result = await initCalendar("700.HK", "2024-03-25", "2024-04-05");
    expect(result).toMatchObject({ created_count: 5, skipped_count: 7, total_days: 12 });
  });

  it("records the 2024 Lunar New Year closures of 700.HK and the half day before them", async () => {
    const { entries, total, trading_days } = await getCalendar("700.HK", "2024-02-08", "2024-02-14");
    expect(total).toBe(7);
    expect(trading_days).toBe(3);
    const days = byDate(entries);
    expect(Object.fromEntries(entries.map((entry: any) => [entry.date, entry.day_type]))).toEqual({
      "2024-02-08": "full",
      "2024-02-09": "half",
      "2024-02-10": "closed",
      "2024-02-11": "closed",
      "2024-02-12": "closed",
      "2024-02-13": "closed",
      "2024-02-14": "full",
    });
    expect(days["2024-02-09"]).toMatchObject({ is_trading_day: true, is_half_day: true, market: "HK", timezone: "Asia/Hong_Kong" });
    expect(days["2024-02-09"].sessions).toEqual([
      { name: "Intraday", start: "2024-02-09T01:30:00.000Z", end: "2024-02-09T04:00:00.000Z", local_start: "09:30", local_end: "12:00" },
    ]);
    expect(days["2024-02-08"].sessions.map((s: any) => `${s.local_start}-${s.local_end}`)).toEqual(["09:30-12:00", "13:00-16:00"]);
    expect(days["2024-02-12"]).toMatchObject({ is_trading_day: false, is_half_day: false, sessions: [], data_readiness: {} });
    expect(days["2024-02-09"].data_readiness["1m"]).toEqual({ ready: false, expected_bars: 150, stored_bars: 0 });
    expect(days["2024-02-08"].data_readiness["1h"]).toEqual({ ready: false, expected_bars: 6, stored_bars: 0 });
  });

  it("records AAPL.US closed on Thanksgiving 2024 and closing at 13:00 the day after", async () => {
    const init = await initCalendar("AAPL.US", "2024-11-25", "2024-11-30");
    expect(init).toMatchObject({ market: "US", created_count: 6, trading_days: 4, half_days: 1, closed_days: 2 });
    const days = byDate((await getCalendar("AAPL.US", "2024-11-25", "2024-11-30")).entries);
    expect(days["2024-11-28"]).toMatchObject({ day_type: "closed", name: "Thanksgiving Day", sessions: [] });
    expect(days["2024-11-29"]).toMatchObject({ day_type: "half", is_half_day: true, timezone: "America/New_York" });
    expect(days["2024-11-29"].sessions).toEqual([
      { name: "Pre", start: "2024-11-29T09:00:00.000Z", end: "2024-11-29T14:30:00.000Z", local_start: "04:00", local_end: "09:30" },
      { name: "Intraday", start: "2024-11-29T14:30:00.000Z", end: "2024-11-29T18:00:00.000Z", local_start: "09:30", local_end: "13:00" },
      { name: "Post", start: "2024-11-29T18:00:00.000Z", end: "2024-11-29T22:00:00.000Z", local_start: "13:00", local_end: "17:00" },
    ]);
    expect(days["2024-11-29"].data_readiness["5m"].expected_bars).toBe(42);
    expect(days["2024-11-27"].data_readiness["5m"].expected_bars).toBe(78);
  });

  it("expects exactly the regular-session bars the provider produces on full and half days", async () => {
    const marketData = await api.services.marketData();
    for (const [symbol, start, end] of [
      ["700.HK", "2024-02-08", "2024-02-09"],
      ["AAPL.US", "2024-11-27", "2024-11-29"],
    ] as const) {
      const calendar = Calendar.for(marketOf(symbol));
      const { entries } = await getCalendar(symbol, start, end);
      for (const period of StoredPeriods) {
        const bars = await marketData.historyCandlesticksByDate(symbol, period, "NoAdjust", start, end, "Intraday");
        const perDate: Record<string, number> = {};
        for (const bar of bars) {
          const date = period === "1d" ? calendar.localDateOf(Date.parse(bar.timestamp)) : calendar.sessionAt(Date.parse(bar.timestamp))!.date;
          perDate[date] = (perDate[date] ?? 0) + 1;
        }
        const expected = Object.fromEntries(
          entries.filter((entry: any) => entry.is_trading_day).map((entry: any) => [entry.date, entry.data_readiness[period].expected_bars]),
        );
        expect(expected, `${symbol} ${period}`).toEqual(perDate);
      }
    }
  });
});

describe("data readiness over imported candles", () => {
  const march = { start_date: "2024-03-01", end_date: "2024-03-31" };

  beforeAll(async () => {
    await importRange("700.HK", march.start_date, march.end_date);
  }, 120_000);

  it("verifies a fully imported month of 700.HK at coverage 1.0", async () => {
    const result = await verify("700.HK", march);
    expect(result).toMatchObject({
      success: true,
      is_ready: true,
      coverage_rate: 1,
      total_trading_days: 20,
      ready_days: 20,
      pending_days: 0,
      missing_dates: [],
      periods: ["1m", "5m", "1h", "1d"],
      calendar_source: "stored",
    });
    expect(result.period_details["1m"]).toEqual({ ready_days: 20, missing_dates: [], coverage_rate: 1, expected_bars: 20 * 330, stored_bars: 20 * 330 });
    expect(result.period_details["1h"]).toMatchObject({ expected_bars: 20 * 6, stored_bars: 20 * 6 });
    const calendar = await getCalendar("700.HK", march.start_date, march.end_date);
    expect(calendar).toMatchObject({ total: 31, trading_days: 20, data_ready_days: 20 });
    expect(byDate(calendar.entries)["2024-03-12"].data_readiness).toEqual({
      "1m": { ready: true, expected_bars: 330, stored_bars: 330 },
      "5m": { ready: true, expected_bars: 66, stored_bars: 66 },
      "1h": { ready: true, expected_bars: 6, stored_bars: 6 },
      "1d": { ready: true, expected_bars: 1, stored_bars: 1 },
    });
    for (const period of StoredPeriods) expect(await missing("700.HK", { period, ...march })).toMatchObject({ missing_dates: [], count: 0, checked_days: 20 });
  });

  it("reports a deleted day and a partly deleted one as missing, and ready again after a re-import", async () => {
    await api.json("DELETE", "/api/v1/stock-data/700.HK?start_date=2024-03-12&end_date=2024-03-12&timezone=Asia/Hong_Kong", 200, { token: adminToken });
    // Ten minutes of one morning, 1m only: the day stays complete in every other period.
    await api.json("DELETE", "/api/v1/stock-data/700.HK?start_date=2024-03-14T10:00:00&end_date=2024-03-14T10:09:59&timezone=Asia/Hong_Kong&period=1m", 200, {
      token: adminToken,
    });

    expect(await missing("700.HK", { period: "1m", ...march })).toMatchObject({ period: "1m", missing_dates: ["2024-03-12", "2024-03-14"], count: 2 });
    for (const period of ["5m", "1h", "1d"]) {
      expect(await missing("700.HK", { period, ...march })).toMatchObject({ missing_dates: ["2024-03-12"], count: 1 });
    }
    const result = await verify("700.HK", march);
    expect(result).toMatchObject({ is_ready: false, ready_days: 18, total_trading_days: 20, coverage_rate: 0.9, missing_dates: ["2024-03-12", "2024-03-14"] });
    expect(result.period_details["1m"]).toMatchObject({ ready_days: 18, coverage_rate: 0.9, stored_bars: 18 * 330 + 320 });
    expect(result.period_details["5m"]).toMatchObject({ ready_days: 19, missing_dates: ["2024-03-12"], coverage_rate: 0.95 });
    const only5m = await verify("700.HK", { ...march, periods: ["5m"] });
    expect(only5m).toMatchObject({ periods: ["5m"], ready_days: 19, missing_dates: ["2024-03-12"] });
    expect(Object.keys(only5m.period_details)).toEqual(["5m"]);
    const days = byDate((await getCalendar("700.HK", "2024-03-12", "2024-03-14")).entries);
    expect(days["2024-03-12"].data_readiness["1d"]).toEqual({ ready: false, expected_bars: 1, stored_bars: 0 });
    expect(days["2024-03-14"].data_readiness["1m"]).toEqual({ ready: false, expected_bars: 330, stored_bars: 320 });

    await importRange("700.HK", "2024-03-12", "2024-03-14");
    expect(await verify("700.HK", march)).toMatchObject({ is_ready: true, coverage_rate: 1, ready_days: 20, missing_dates: [] });
    expect(await missing("700.HK", { period: "1m", ...march })).toMatchObject({ missing_dates: [], count: 0 });
  }, 120_000);

  it("requires the US regular session only, whatever the extended sessions hold", async () => {
    await importRange("AAPL.US", "2024-11-25", "2024-11-29");
    const result = await verify("AAPL.US", { start_date: "2024-11-25", end_date: "2024-11-29" });
    expect(result).toMatchObject({ is_ready: true, total_trading_days: 4, ready_days: 4, coverage_rate: 1 });
    expect(result.period_details["1m"]).toMatchObject({ expected_bars: 3 * 390 + 210, stored_bars: 3 * 390 + 210 });
    // Removing the post-market hour after the early close leaves the day complete.
    await api.json("DELETE", "/api/v1/stock-data/AAPL.US?start_date=2024-11-29T13:00:00&end_date=2024-11-29T16:59:59&timezone=America/New_York", 200, {
      token: adminToken,
    });
    expect(await missing("AAPL.US", { period: "1m", start_date: "2024-11-25", end_date: "2024-11-29" })).toMatchObject({ missing_dates: [] });
    await api.json(
      "DELETE",
      "/api/v1/stock-data/AAPL.US?start_date=2024-11-29T12:59:00&end_date=2024-11-29T12:59:59&timezone=America/New_York&period=1m",
      200,
      { token: adminToken },
    );
    expect(await missing("AAPL.US", { period: "1m", start_date: "2024-11-25", end_date: "2024-11-29" })).toMatchObject({ missing_dates: ["2024-11-29"] });
  }, 120_000);

  it("falls back to the market calendar for a symbol without stored entries", async () => {
    const result = await missing("9988.HK", { period: "1d", start_date: "2024-02-05", end_date: "2024-02-16" });
    expect(result).toMatchObject({
      calendar_source: "market",
      missing_dates: ["2024-02-05", "2024-02-06", "2024-02-07", "2024-02-08", "2024-02-09", "2024-02-14", "2024-02-15", "2024-02-16"],
      count: 8,
    });
    const mixed = await verify("700.HK", { start_date: "2024-03-25", end_date: "2024-04-08", periods: ["1d"] });
    expect(mixed.calendar_source).toBe("mixed");
    // 2024-04-08 has no entry; the market calendar supplies it (no data was imported for it).
    expect(mixed.missing_dates).toEqual(["2024-04-02", "2024-04-03", "2024-04-05", "2024-04-08"]);
  });

  it("defaults missing to the 30 days ending today", async () => {
    const result = await missing("700.HK", { period: "1d" });
    const today = Calendar.for("HK").localDateOf(Date.now());
    expect(result.end_date).toBe(today);
    expect(Date.parse(result.end_date) - Date.parse(result.start_date)).toBe(29 * 86_400_000);
  });
});

describe("days whose session has not ended", () => {
  it("leaves them out of missing and verify and counts them as pending", async () => {
    // Midday in Hong Kong on 2024-03-13 for the calendar only (tokens keep the real clock): the 11th and 12th have closed.
    const deps = api.services.calendar;
    const realNow = deps.now;
    deps.now = () => Date.UTC(2024, 2, 13, 4, 0);
    try {
      const result = await verify("9988.HK", { start_date: "2024-03-11", end_date: "2024-03-17" });
      expect(result).toMatchObject({ total_trading_days: 2, pending_days: 3, ready_days: 0, missing_dates: ["2024-03-11", "2024-03-12"] });
      expect(await missing("9988.HK", { period: "1m", start_date: "2024-03-11", end_date: "2024-03-17" })).toMatchObject({
        missing_dates: ["2024-03-11", "2024-03-12"],
        checked_days: 2,
      });
    } finally {
      deps.now = realNow;
    }
  });
});

describe("bad requests", () => {
  it("answers 422 listing every problem with the dates", async () => {
    const bad = await initCalendar("700.HK", "someday", "2024-13-45", 422);
    expect(locs(bad)).toEqual(["body.end_date", "body.start_date"]);
    const reversed = await initCalendar("700.HK", "2024-03-01", "2024-02-01", 422);
    expect(reversed.detail).toEqual([{ loc: ["body", "end_date"], msg: "end_date is before start_date", type: "value_error" }]);
    const tooLong = await verify("700.HK", { start_date: "2024-01-01", end_date: "2025-01-02" }, 422);
    expect(tooLong.detail[0].msg).toBe("a range of at most 366 days (got 368)");
    const outside = await getCalendar("700.HK", "2019-12-01", "2029-01-05", 422);
    expect(locs(outside)).toEqual(["query.end_date", "query.end_date", "query.start_date"]);
    expect(outside.detail[0].msg).toContain("covers 2020-01-01 to 2028-12-31");
    const badPeriods = await verify("700.HK", { start_date: "2024-01-01", periods: ["2m", "1m", "1m"] }, 422);
    expect(locs(badPeriods)).toEqual(["body.end_date", "body.periods.0"]);
    const noPeriod = await missing("700.HK", { start_date: "2024-01-01" }, 422);
    expect(locs(noPeriod)).toEqual(["query.period"]);
    await getCalendar("700.HK", "2024-01-01", "", 422);
  });

  it("leaves calendar changes to administrators: a user's init is 403, reading stays open", async () => {
    const refused = await api.json("POST", `${base}/AAPL.US/init`, 403, { token, body: { start_date: "2024-05-01", end_date: "2024-05-03" } });
    expect(refused.error_code).toBe("ACCESS_DENIED");
    await getCalendar("AAPL.US", "2024-05-01", "2024-05-03");
  });

  it("answers 404 for a symbol the provider does not know and 400 for one that is malformed", async () => {
    expect((await initCalendar("NOPE.HK", "2024-01-01", "2024-01-31", 404)).error_code).toBe("SYMBOL_NOT_FOUND");
    expect((await getCalendar("NOPE.US", "2024-01-01", "2024-01-31", 404)).error_code).toBe("SYMBOL_NOT_FOUND");
    expect((await missing("NOPE.HK", { period: "1m" }, 404)).error_code).toBe("SYMBOL_NOT_FOUND");
    expect((await verify("NOPE.HK", { start_date: "2024-01-01", end_date: "2024-01-31" }, 404)).error_code).toBe("SYMBOL_NOT_FOUND");
    expect((await initCalendar("AAPL", "2024-01-01", "2024-01-31", 400)).error_code).toBe("INVALID_SYMBOL");
    expect((await initCalendar("600519.SH", "2024-01-01", "2024-01-31", 400)).error_code).toBe("MARKET_NOT_SUPPORTED");
  });

  it("requires a token", async () => {
    const response = await api.request("GET", `${base}/700.HK?start_date=2024-01-01&end_date=2024-01-31`);
    expect(response.status).toBe(401);
  });
});
