import { createHmac, randomUUID } from "node:crypto";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import Decimal from "decimal.js";
import { chromium, type Browser, type Page } from "playwright-core";
import { parse as parseJsonc } from "@tp/core/channel-presets/jsonc";
import { ApiClient, callAs } from "../support/api-client";
import { buildConsole } from "../support/console";
import { startService, type RunningService } from "../support/local-process";
import { CHROMIUM } from "../support/chromium";

/**
 * The web console in a real browser against `npm start`'s runtime on the accelerated clock:
 * sign in, a running simulation session whose orders and fills arrive on the page from the socket
 * (first, while the simulated market is open), and a backtest from the form to its result page (the
 * equity chart drawn, the fills the API reports in the table); then two backtests compared, a
 * session from a channel preset, the settings forms and the users, each checked against the API.
 * Every page is photographed at 1280×800 and at a phone's width into test-artifacts/console/ (git-ignored).
 * The tests run in order on one service and one signed-in page.
 */

const ARTIFACTS = resolve(import.meta.dirname, "../../test-artifacts/console");
const PASSWORD = "console-admin-password-1";
let consoleDir: string | undefined;
let service: RunningService | undefined;
let browser: Browser | undefined;
let page: Page;
let base: string;
let token: string;
let backtestId: string;
const pageErrors: string[] = [];
let liveSessionId: string;
let sweepId: string;
let walkForwardId: string;
/** An id as the API makes them: never shown where a name or a figure belongs. */
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
/** Money as the console shows it: the currency, then the amount to the cent. */
const MONEY = /^[+-]?-?USD [\d,]+\.\d{2}$/;

afterAll(async () => {
  await browser?.close();
  await service?.stop();
  if (consoleDir) rmSync(consoleDir, { recursive: true, force: true });
});

const shot = (page: Page, name: string) => page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });

/** Whether a canvas inside `selector` has drawn something: more than two colours among its pixels (run in the page). */
const drawn = (page: Page, selector: string) =>
  page.evaluate(`(() => {
    for (const canvas of document.querySelectorAll(${JSON.stringify(`${selector} canvas`)})) {
      if (canvas.width === 0 || canvas.height === 0) continue;
      const pixels = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
      const colours = new Set();
      for (let i = 0; i < pixels.length; i += 16) colours.add(pixels[i] * 16777216 + pixels[i + 1] * 65536 + pixels[i + 2] * 256 + pixels[i + 3]);
      if (colours.size > 2) return true;
    }
    return false;
  })()`);

describe.skipIf(!CHROMIUM)(`the console in headless Chromium (${CHROMIUM ?? "not installed: .ci/run installs Debian's chromium"})`, () => {
  it("signs in, runs a backtest from the form to its drawn result, and shows a running session's fills live", { timeout: 300_000 }, async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    consoleDir = buildConsole();
    service = await startService({
      DATA_DIR: mkdtempSync(join(tmpdir(), "tp-console-e2e-")),
      DYNAMODB_ENDPOINT: inject("dynamoEndpoint"),
      TABLE_NAME: `test-console-${randomUUID()}`,
      ADMIN_PASSWORD: PASSWORD,
      CAPTCHA_TEST_CODE: "e2e-code",
      // The webhook step's receiver listens on loopback: the operator's allow-list lets it through (docs/security.md "Webhooks").
      BROKER_ALLOWED_HOSTS: "127.0.0.1",
      // 120 times faster from 10:00 New York time: the market stays open about three minutes of the test's time.
      SIMULATED_CLOCK_SPEED: "120",
      SIMULATED_CLOCK_START: "2024-03-15T14:00:00Z",
      CONSOLE_DIR: consoleDir,
    });
    base = service.base;
    expect(service.output()).toContain(`Console:   ${base}/console`);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.on("pageerror", (error) => pageErrors.push(error.message));

    // Sign in: a wrong captcha is refused in words, the test code is accepted.
    await page.goto(`${base}/console`);
    await page.locator(".captcha svg, .captcha img").waitFor();
    // The first page's timings, kept beside the screenshots (bench/console.ts measures them; docs/benchmarks.md).
    const timings = (await page.evaluate(`(() => {
      const navigation = performance.getEntriesByType("navigation")[0];
      const paint = Object.fromEntries(performance.getEntriesByType("paint").map((entry) => [entry.name, Math.round(entry.startTime)]));
      return { first_paint_ms: paint["first-paint"], first_contentful_paint_ms: paint["first-contentful-paint"], load_event_ms: Math.round(navigation.loadEventEnd) };
    })()`)) as Record<string, number>;
    expect(timings.first_paint_ms).toBeGreaterThan(0);
    expect(timings.load_event_ms).toBeGreaterThan(0);
    writeFileSync(join(ARTIFACTS, "first-page-timings.json"), `${JSON.stringify(timings, null, 2)}\n`);
    await shot(page, "01-sign-in");
    await page.getByLabel("Username").fill("admin");
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByLabel("Captcha", { exact: true }).fill("wrong");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect
      .poll(() => page.locator("form[aria-label='Sign in'] .status.error").textContent(), { timeout: 15_000 })
      .toMatch(/captcha|password|credential/i);
    await page.getByLabel("Captcha", { exact: true }).fill("e2e-code");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${base}/console/backtests`);

    const login = await callAs(base, undefined, "POST", "/api/v1/login", { username: "admin", password: PASSWORD, captcha: "e2e-code" });
    token = login.body.access_token as string;
    // A simulation session on the accelerated clock: started from its page, its orders arrive from the socket.
    const session = await callAs(base, token, "POST", "/api/v1/trading/sessions", {
      session_name: "watched from the console",
      trading_mode: "simulation",
      asset_mode: "simulated",
      initial_capital: "100000",
      config: {
        strategy_name: "ma_crossover",
        parameters: { fast_period: 3, slow_period: 8 },
        symbols: ["AAPL.US"],
        timeframe: "1m",
        execution: { sizing: { model: "cash_fraction", fraction: 0.08 } },
      },
    });
    expect(session.status).toBe(201);
    await page.goto(`${base}/console/sessions/${session.body.id}`);
    await page.locator("[data-socket=open]").waitFor({ timeout: 30_000 });
    liveSessionId = session.body.id;
    expect(await page.locator("[data-table=orders] tbody tr").count()).toBe(0);
    // Before the start every channel is stopped; after it the socket's channel_status events say running, without a reload.
    const channelStates = () => page.locator("[data-channel-status]").allTextContents();
    await page.locator("[data-channel-status]").first().waitFor({ timeout: 15_000 });
    expect(new Set(await channelStates())).toEqual(new Set(["stopped"]));
    await page.getByRole("button", { name: "Start", exact: true }).click();
    await expect.poll(channelStates, { timeout: 60_000 }).toEqual((await channelStates()).map(() => "running"));
    await page.locator(".events li[data-type=channel_status]").first().waitFor({ timeout: 30_000 });
    expect(await page.locator(".events li[data-type=channel_status] .content").first().textContent()).toMatch(/stopped → running \(session start\)/);
    await page
      .locator(".events li[data-type=order_filled]")
      .first()
      .waitFor({ timeout: 90_000 })
      .catch(async (error) => {
        await shot(page, "02-session-failed");
        throw new Error(`${error}\n${service!.output().slice(-3000)}`);
      });
    expect(await page.locator("[data-table=orders] tbody tr").count()).toBeGreaterThan(0);
    // Read at a glance: the fill's content in the events, the summary's figures with their currency, the equity chart drawn.
    const fillLine = (await page.locator(".events li[data-type=order_filled] .content").first().textContent())!;
    expect(fillLine).toMatch(/^(\[\S+\] )?(buy|sell) \d+ AAPL\.US filled at \d+(\.\d+)?, commission USD \d+\.\d{2}$/);
    expect(await page.locator(".events li[data-type=order_filled] time").first().textContent()).toMatch(/^\d{2}:\d{2}:\d{2} (EDT|EST)$/);
    await expect.poll(() => page.locator("[data-figure=equity] strong").textContent(), { timeout: 15_000 }).toMatch(MONEY);
    for (const figure of ["total_pnl", "unrealized_pnl", "realized_pnl", "fees_paid"])
      expect(await page.locator(`[data-figure=${figure}] strong`).textContent(), figure).toMatch(MONEY);
    for (const figure of ["total_return", "max_drawdown"])
      expect(await page.locator(`[data-figure=${figure}] strong`).textContent()).toMatch(/^-?\d+\.\d{2}%$/);
    expect(await page.locator("[data-table=cash] tbody td:nth-child(2)").first().textContent()).toMatch(MONEY);
    await expect.poll(() => page.locator("[data-table=positions] tbody tr").count(), { timeout: 30_000 }).toBeGreaterThan(0);
    expect(await page.locator("[data-table=positions] tbody td:nth-child(7)").first().textContent()).toMatch(MONEY);
    await expect.poll(() => drawn(page, "[data-chart=session-equity]"), { timeout: 30_000 }).toBe(true);
    // The start's point, then one at each refresh and each channel_metrics push.
    await expect
      .poll(async () => Number(await page.locator("[data-chart=session-equity]").getAttribute("data-points")), { timeout: 60_000 })
      .toBeGreaterThan(1);
    expect(await page.locator(".events").textContent()).not.toMatch(UUID);
    expect(await page.locator("[data-section=summary]").textContent()).not.toMatch(UUID);
    expect(await page.locator("[data-channel-figures]").first().textContent()).toMatch(/^P&L [+-]?-?USD [\d,]+\.\d{2} · win rate \d+\.\d{2}% · \d+ trades$/);
    const orders = await callAs(base, token, "GET", `/api/v1/trading/sessions/${session.body.id}/orders`);
    const shown = await page.locator("[data-table=orders] tbody tr").evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-order")));
    expect(shown).toEqual(
      expect.arrayContaining((orders.body.orders as { id: string; status: string }[]).filter((o) => o.status === "filled").map((o) => o.id)),
    );
    // The order ticket places a manual order into the session after its checks: it shows up in the session's orders.
    const ticket = page.getByRole("form", { name: "Order ticket" });
    await ticket.getByLabel("Symbol").fill("AAPL.US");
    await ticket.getByLabel("Quantity").fill("1");
    await ticket.getByRole("button", { name: "Place order" }).click();
    const said = ticket.getByText(/^Order \S+ (pending|filled)\.$/);
    await said.waitFor({ timeout: 30_000 });
    const placedId = (await said.textContent())!.split(" ")[1];
    const manual = await callAs(base, token, "GET", `/api/v1/trading/sessions/${session.body.id}/orders`);
    expect((manual.body.orders as { id: string; symbol: string; quantity: string }[]).find((o) => o.id === placedId)).toMatchObject({
      symbol: "AAPL.US",
      quantity: "1",
    });
    await shot(page, "02-session");

    // A backtest from the form built from the strategy metadata (its defaults).
    await page.goto(`${base}/console/backtests`);
    await page.getByLabel("fast period").waitFor();
    expect(await page.getByLabel("Strategy").inputValue()).toBe("ma_crossover");
    await shot(page, "03-backtests");
    await page.getByRole("button", { name: "Start backtest" }).click();
    await page.waitForURL(/\/console\/backtests\/[^/]+$/, { timeout: 120_000 });
    backtestId = decodeURIComponent(new URL(page.url()).pathname.split("/").at(-1)!);
    await page.locator("[data-chart=equity] canvas").first().waitFor();
    await expect.poll(() => drawn(page, "[data-chart=equity]"), { timeout: 15_000 }).toBe(true);
    await expect.poll(() => drawn(page, "[data-chart=candles]"), { timeout: 15_000 }).toBe(true);

    const result = await callAs(base, token, "GET", `/api/v1/backtest/${backtestId}/result`);
    expect(result.status).toBe(200);
    const fills = result.body.fills as { order_id: string; side: string; price: string }[];
    expect(fills.length).toBeGreaterThan(0);
    const rows = page.locator("[data-table=fills] tbody tr");
    expect(await rows.count()).toBe(fills.length);
    expect(await rows.locator("td:nth-child(7)").allTextContents()).toEqual(fills.map((fill) => fill.order_id));
    expect(await rows.locator("td:nth-child(3)").allTextContents()).toEqual(fills.map((fill) => fill.side));
    expect(await page.locator("caption", { hasText: /^Trades \(\d+\)$/ }).count()).toBe(1);
    // The result's warnings, each with its code, in the API's order.
    const warnings = result.body.warnings as { code: string; message: string }[];
    expect(warnings.length).toBeGreaterThan(0);
    expect(await page.locator("[data-list=warnings] li").evaluateAll((items) => items.map((li) => li.getAttribute("data-code")))).toEqual(
      warnings.map((w) => w.code),
    );
    await shot(page, "04-backtest-result");
  });

  it("compares two backtests side by side: both equity curves drawn, the metrics and their differences as the API reports them", {
    timeout: 240_000,
  }, async () => {
    // A second run of the same strategy with other periods, started through the API.
    const api = new ApiClient(base);
    api.token = token;
    const { backtestId: secondId } = await api.startBacktest({
      strategy_name: "ma_crossover",
      strategy_config: { fast_period: 5, slow_period: 20, execution: { timeframe: "1d" } },
      symbols: ["AAPL.US"],
      start_date: "2024-01-02",
      end_date: "2024-06-28",
      timezone: "UTC",
      benchmark: "SPY.US",
    });
    const progress = await api.waitForBacktest(secondId, (p) => ["completed", "failed", "stopped"].includes(p.status), 180_000);
    expect(progress.status).toBe("completed");
    const [first, second] = await Promise.all([backtestId, secondId].map((id) => api.expect("GET", `/api/v1/backtest/${id}/result`, 200)));

    // Opening a result remembers it: the backtests page offers the last two for comparison.
    await page.goto(`${base}/console/backtests/${secondId}`);
    await page.locator("[data-chart=equity] canvas").first().waitFor();
    // Daily bars' fills are on a date, not at "5:00:00 AM"; their commission is money.
    expect(second.fills.length).toBeGreaterThan(0);
    await page.locator("[data-table=fills] tbody tr").first().waitFor({ timeout: 30_000 });
    const dailyTimes = await page.locator("[data-table=fills] tbody td:nth-child(1)").allTextContents();
    expect(dailyTimes.length).toBeGreaterThan(0);
    for (const time of dailyTimes) expect(time).toMatch(/^[A-Z][a-z]{2} \d{2}, 2024$/);
    expect(await page.locator("[data-table=fills] tbody td:nth-child(6)").first().textContent()).toMatch(MONEY);
    await shot(page, "09-backtest-daily");
    // Measured against its benchmark: the benchmark's line on the equity chart, its figures in a table.
    expect(second.benchmark.symbol).toBe("SPY.US");
    expect(await page.locator("[data-chart=equity]").getAttribute("data-benchmark")).toBe("SPY.US");
    expect(await page.locator("[data-table=benchmark] tbody td").first().textContent()).toBe("SPY.US");
    // A Monte Carlo of its closed trades: the bands drawn over the equity curve, the percentiles of the API's answer.
    const monteCarlo = page.getByRole("form", { name: "Monte Carlo" });
    await monteCarlo.getByLabel("Paths").fill("500");
    await monteCarlo.getByLabel("Seed").fill("7");
    await monteCarlo.getByRole("button", { name: "Run Monte Carlo" }).click();
    const expected = await api.expect("POST", `/api/v1/backtest/${secondId}/monte-carlo`, 200, { paths: 500, seed: 7, method: "reshuffle" });
    await expect.poll(() => page.locator("[data-chart=equity]").getAttribute("data-bands"), { timeout: 15_000 }).toBe(String(expected.bands.length));
    expect(await page.locator("[data-table=monte-carlo] caption").textContent()).toBe(`500 paths of ${expected.trades} trades, reshuffle, seed 7`);
    const median = (await page.locator("[data-table=monte-carlo] tbody tr:first-child td:nth-child(4)").textContent()) ?? "";
    expect(median).toMatch(MONEY);
    expect(Number(median.replace(/[^\d.-]/g, ""))).toBe(Number(expected.final_equity.p50));
    await expect.poll(() => drawn(page, "[data-chart=equity]"), { timeout: 15_000 }).toBe(true);
    await shot(page, "09b-backtest-monte-carlo");
    await page.goto(`${base}/console/backtests`);
    await page.getByRole("link", { name: "Compare the last two" }).click();
    await page.waitForURL(`${base}/console/backtests/compare?ids=${backtestId},${secondId}`);
    await page.locator("[data-table=comparison] tbody tr").first().waitFor({ timeout: 30_000 });
    await expect.poll(() => drawn(page, "[data-chart=comparison]"), { timeout: 15_000 }).toBe(true);

    const signed = (text: string) => (/^-?0(\.0+)?$/.test(text) ? text.replace("-", "") : text.startsWith("-") ? text : `+${text}`);
    const row = (metric: string) => page.locator(`[data-table=comparison] tr[data-metric="${metric}"] td`).allTextContents();
    const pct = (value: number) => `${(value * 100).toFixed(2)}%`;
    expect(await row("Final capital")).toEqual([
      first.final_capital,
      second.final_capital,
      signed(new Decimal(second.final_capital).minus(first.final_capital).toFixed()),
    ]);
    expect(await row("Trades")).toEqual([
      String(first.performance_metrics.total_trades),
      String(second.performance_metrics.total_trades),
      signed(String(second.performance_metrics.total_trades - first.performance_metrics.total_trades)),
    ]);
    expect(await row("Total return")).toEqual([
      pct(first.performance_metrics.total_return),
      pct(second.performance_metrics.total_return),
      `${signed(((second.performance_metrics.total_return - first.performance_metrics.total_return) * 100).toFixed(2))} pp`,
    ]);
    expect(await page.locator("[data-table=comparison] thead th a").allTextContents()).toEqual([backtestId, secondId]);
    await shot(page, "10-compare");

    // The form swaps them (by keyboard: Enter in the second field): the differences change sign.
    const form = page.getByRole("form", { name: "Backtests to compare" });
    await form.getByLabel("First backtest").fill(secondId);
    await form.getByLabel("Second backtest").fill(backtestId);
    await form.getByLabel("Second backtest").press("Enter");
    await page.waitForURL(`${base}/console/backtests/compare?ids=${secondId},${backtestId}`);
    await expect
      .poll(() => row("Final capital"), { timeout: 15_000 })
      .toEqual([second.final_capital, first.final_capital, signed(new Decimal(first.final_capital).minus(second.final_capital).toFixed())]);
  });

  it("shows a sweep's ranking, each run linked to its backtest, and the parameter heat map", { timeout: 300_000 }, async () => {
    const api = new ApiClient(base);
    api.token = token;
    const session = await api.expect("POST", "/api/v1/trading/sessions", 201, {
      session_name: "sweep",
      trading_mode: "backtest",
      asset_mode: "simulated",
      initial_capital: 100000,
      config: {},
    });
    const started = await api.expect("POST", "/api/v1/backtest/sweeps", 200, {
      session_id: session.id,
      strategy_name: "ma_crossover",
      strategy_config: { execution: { timeframe: "1d" } },
      parameters: { fast_period: [3, 5], slow_period: [10, 20] },
      symbols: ["AAPL.US"],
      start_date: "2024-01-02",
      end_date: "2024-04-30",
      initial_capital: 100000,
      metric: "total_return",
    });
    sweepId = started.sweep_id;
    const until = Date.now() + 240_000;
    let progress: any;
    for (;;) {
      progress = await api.expect("GET", `/api/v1/backtest/sweeps/${sweepId}`, 200);
      if (!progress.is_running && progress.stage === "done") break;
      if (Date.now() > until) throw new Error(`the sweep did not end: ${JSON.stringify(progress)}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const result = await api.expect("GET", `/api/v1/backtest/sweeps/${sweepId}/result`, 200);
    expect(result.ranking.length, JSON.stringify({ progress, result }).slice(0, 3000)).toBe(4);

    await page.goto(`${base}/console/sweeps/${sweepId}`);
    await page.locator("[data-table=ranking] tbody tr").first().waitFor({ timeout: 30_000 });
    expect(await page.locator("[data-table=ranking] [data-run]").evaluateAll((links) => links.map((a) => a.getAttribute("data-run")))).toEqual(
      result.ranking.map((run: { backtest_id: string }) => run.backtest_id),
    );
    expect(await page.locator("[data-table=ranking] tbody td:first-child").allTextContents()).toEqual(["1", "2", "3", "4"]);
    // The heat map: fast period by slow period, each cell the run's total return.
    const cells = page.locator("[data-chart=sweep-heatmap] td[data-value]");
    expect(await cells.count()).toBe(4);
    expect(await page.locator("[data-chart=sweep-heatmap] tbody th").allTextContents()).toEqual(["3", "5"]);
    expect(await page.locator("[data-chart=sweep-heatmap] figcaption").textContent()).toContain("fast_period (rows) and slow_period (columns)");
    const best = result.ranking[0] as { backtest_id: string; value: number; parameters: { fast_period: number; slow_period: number } };
    const bestCell = page.locator(`[data-chart=sweep-heatmap] td a[href$="/backtests/${best.backtest_id}"]`);
    expect(await bestCell.count()).toBe(1);
    await shot(page, "12-sweep");
    // Each run reaches its backtest's page; the sweeps page lists the sweep opened.
    await page.locator(`[data-table=ranking] [data-run="${best.backtest_id}"]`).click();
    await page.waitForURL(`${base}/console/backtests/${best.backtest_id}`);
    await expect.poll(() => drawn(page, "[data-chart=equity]"), { timeout: 15_000 }).toBe(true);
    await page.goto(`${base}/console/sweeps`);
    expect(await page.locator(`a[href$="/sweeps/${sweepId}"]`).count()).toBe(1);
  });

  it("shows a walk-forward's windows as a timeline, its stitched out-of-sample equity and each window's heat map", { timeout: 300_000 }, async () => {
    const api = new ApiClient(base);
    api.token = token;
    const session = await api.expect("POST", "/api/v1/trading/sessions", 201, {
      session_name: "walk-forward",
      trading_mode: "backtest",
      asset_mode: "simulated",
      initial_capital: 100000,
      config: {},
    });
    const started = await api.expect("POST", "/api/v1/backtest/sweeps", 200, {
      session_id: session.id,
      strategy_name: "ma_crossover",
      strategy_config: { execution: { timeframe: "1d" } },
      parameters: { fast_period: [3, 5], slow_period: [10, 20] },
      symbols: ["AAPL.US"],
      start_date: "2023-01-03",
      end_date: "2023-12-29",
      initial_capital: 100000,
      metric: "total_return",
      walk_forward: { windows: 2, mode: "rolling", in_sample_days: 60, out_of_sample_days: 30 },
    });
    walkForwardId = started.sweep_id;
    const until = Date.now() + 240_000;
    for (;;) {
      const progress = await api.expect("GET", `/api/v1/backtest/sweeps/${walkForwardId}`, 200);
      if (!progress.is_running && progress.stage === "done") break;
      if (Date.now() > until) throw new Error(`the walk-forward did not end: ${JSON.stringify(progress)}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const { walk_forward } = await api.expect("GET", `/api/v1/backtest/sweeps/${walkForwardId}/result`, 200);
    expect(walk_forward.windows).toHaveLength(2);

    await page.goto(`${base}/console/sweeps/${walkForwardId}`);
    await page.locator("[data-chart=walk-forward-timeline]").waitFor({ timeout: 30_000 });
    // Per window an in-sample bar, then its out-of-sample bar, each titled with its dates.
    const bars = page.locator("[data-chart=walk-forward-timeline] [data-part]");
    expect(await bars.evaluateAll((spans) => spans.map((span) => [span.getAttribute("data-window"), span.getAttribute("data-part")]))).toEqual([
      ["0", "in_sample"],
      ["0", "out_of_sample"],
      ["1", "in_sample"],
      ["1", "out_of_sample"],
    ]);
    expect(await bars.nth(1).getAttribute("title")).toContain(
      `${walk_forward.windows[0].out_of_sample.start_date} to ${walk_forward.windows[0].out_of_sample.end_date}`,
    );
    expect(await page.locator("[data-table=walk-forward-windows] [data-run]").evaluateAll((links) => links.map((a) => a.getAttribute("data-run")))).toEqual(
      walk_forward.windows.map((w: { out_of_sample_run: { backtest_id: string } }) => w.out_of_sample_run.backtest_id),
    );
    await expect.poll(() => drawn(page, "[data-chart=walk-forward-equity]"), { timeout: 15_000 }).toBe(true);
    // The heat map shows one window's grid: the last by default, the first when chosen.
    expect(await page.locator("[data-chart=walk-forward-heatmap] td[data-value]").count()).toBe(4);
    await page.locator("[data-chart=walk-forward-heatmap] select").selectOption("0");
    const first = walk_forward.windows[0].best.backtest_id;
    expect(await page.locator(`[data-chart=walk-forward-heatmap] td a[href$="/backtests/${first}"]`).count()).toBe(1);
    // Only the window's best is a stored backtest to open; its other points ran in process.
    expect(await page.locator("[data-chart=walk-forward-heatmap] td a").count()).toBe(1);
    await shot(page, "13-walk-forward");
  });

  it("creates a multi-channel session from a channel preset, its problems said next to the fields", { timeout: 120_000 }, async () => {
    const raw = await fetch(`${base}/api/v1/channel-presets/presets/balanced-multi`, { headers: { Authorization: `Bearer ${token}` } });
    const preset = parseJsonc(await raw.text()) as { channels: { channel_id: string }[] };
    const channelIds = preset.channels.map((channel) => channel.channel_id);
    expect(channelIds.length).toBeGreaterThan(1);

    await page.goto(`${base}/console/sessions`);
    const form = page.getByRole("form", { name: "New session from a channel preset" });
    await form.getByLabel("Preset").selectOption("balanced-multi");
    await expect.poll(() => form.locator("[data-table=preset-channels] tbody tr td:first-child").allTextContents(), { timeout: 15_000 }).toEqual(channelIds);
    await shot(page, "05-sessions");

    // Empty name and capital: the API's 422 is said at each field, and the first takes the focus.
    await form.getByLabel("Session name").fill("");
    await form.getByLabel("Initial capital").fill("");
    await form.getByRole("button", { name: "Create session from preset" }).click();
    const problem = (label: string) => form.locator(".field", { has: page.getByLabel(label, { exact: true }) }).locator(".field-error");
    await expect.poll(() => problem("Session name").textContent(), { timeout: 15_000 }).not.toBe("");
    expect(await problem("Initial capital").textContent()).not.toBe("");
    expect(await problem("Symbols").textContent()).toBe("");
    expect(await form.getByLabel("Session name").getAttribute("aria-invalid")).toBe("true");
    expect(await page.evaluate("document.activeElement.name")).toBe("session_name");

    await form.getByLabel("Session name").fill("from the balanced preset");
    await form.getByLabel("Initial capital").fill("50000");
    await form.getByLabel("Symbols").fill("AAPL.US, MSFT.US");
    await form.getByLabel("Symbols").press("Enter");
    await page.waitForURL(/\/console\/sessions\/[^/]+$/, { timeout: 30_000 });
    const sessionId = decodeURIComponent(new URL(page.url()).pathname.split("/").at(-1)!);
    const session = await callAs(base, token, "GET", `/api/v1/trading/sessions/${sessionId}`);
    expect(session.body).toMatchObject({
      session_name: "from the balanced preset",
      trading_mode: "simulation",
      initial_capital: "50000",
      strategy_name: "multi_channel",
    });
    expect((session.body.config.channels as { channel_id: string }[]).map((channel) => channel.channel_id)).toEqual(channelIds);
    expect(session.body.config.symbols).toEqual(["AAPL.US", "MSFT.US"]);
    const channels = page.locator("section[aria-label=Channels] tbody tr td:first-child");
    await expect.poll(() => channels.allTextContents(), { timeout: 15_000 }).toEqual(channelIds);
    // Each channel's capital as a share, the configuration history naming who made it and what it is.
    expect(await page.locator("section[aria-label=Channels] tbody tr td:nth-child(4)").first().textContent()).toMatch(/^\d+% of capital$/);
    const history = page.locator("[data-table=history] tbody tr");
    await history.first().waitFor({ timeout: 15_000 });
    expect(await history.locator("td:nth-child(3)").allTextContents()).toEqual(["admin"]);
    expect(await history.locator("td:nth-child(4)").first().textContent()).not.toBe("–");
    expect(await page.locator("[data-table=history]").textContent()).not.toMatch(UUID);
    await shot(page, "11-preset-session");

    // The sessions list: each session's mode as it is, the strategy from the catalog, a backtest session's runs reachable.
    const mtf = await callAs(base, token, "POST", "/api/v1/trading/mtf/sessions", {
      session_name: "mtf study",
      mode: "historical",
      initial_capital: "100000",
      symbols: ["AAPL.US"],
      director: { strategy_name: "trend_director", timeframe: "1h", parameters: { fast_period: 3, slow_period: 8 } },
      executors: [{ strategy_name: "pullback_executor", timeframe: "5m", parameters: { rsi_period: 5 } }],
      start_date: "2024-04-01",
      end_date: "2024-04-05",
    });
    expect(mtf.status).toBe(201);
    await page.goto(`${base}/console/sessions`);
    await page.locator("[data-table=sessions] tbody tr").first().waitFor({ timeout: 15_000 });
    expect(await page.locator(`[data-mode="${mtf.body.id}"]`).textContent()).toBe("MTF · historical");
    expect(await page.locator(`[data-mode="${sessionId}"]`).textContent()).toBe(`simulation · ${channelIds.length} channels`);
    expect(await page.locator("[data-table=sessions]").textContent()).not.toContain("multi_channel");
    const strategy = page.getByRole("form", { name: "New session", exact: true }).getByLabel("Strategy");
    expect(await strategy.evaluate((element) => element.tagName)).toBe("SELECT");
    const catalog = (await callAs(base, token, "GET", "/api/v1/strategies")).body as { strategies: { strategy_id: string }[] };
    expect(await strategy.locator("option").evaluateAll((options) => options.map((o) => (o as unknown as { value: string }).value))).toEqual(
      catalog.strategies.map((s) => s.strategy_id),
    );
    expect(await strategy.inputValue()).toBe("ma_crossover");
    const backtestRun = page.locator(`[data-table=sessions] a[href$="/backtests/${backtestId}"]`);
    expect(await backtestRun.count()).toBeGreaterThan(0);
    await backtestRun.first().click();
    await page.waitForURL(`${base}/console/backtests/${backtestId}`);
  });

  it("edits the settings in forms by keyboard, with the service's problems next to their fields", { timeout: 120_000 }, async () => {
    await page.goto(`${base}/console/settings`);
    const problem = (form: ReturnType<Page["getByRole"]>, label: string) =>
      form.locator(".field", { has: page.getByLabel(label, { exact: true }) }).locator(".field-error");

    // Lookback days: out of the service's range its 400 names the field; in range it is stored.
    const sync = page.getByRole("form", { name: "Data sync" });
    await sync.getByLabel("Lookback days").fill("400");
    await sync.getByLabel("Lookback days").press("Enter");
    await expect.poll(() => problem(sync, "Lookback days").textContent(), { timeout: 15_000 }).toMatch(/between 1 and 365/);
    expect(await sync.getByLabel("Lookback days").getAttribute("aria-invalid")).toBe("true");
    await sync.getByLabel("Lookback days").fill("120");
    await sync.getByLabel("Lookback days").press("Enter");
    await sync.getByText("Lookback set to 120 days.").waitFor({ timeout: 15_000 });
    expect(await problem(sync, "Lookback days").textContent()).toBe("");
    expect((await callAs(base, token, "GET", "/api/v1/data-sync/status")).body.lookback_days).toBe(120);

    // The LongPort provider: an empty key is the API's 422 at that field; then saved, shown masked as the API answers.
    const provider = page.getByRole("form", { name: "LongPort provider" });
    await provider.getByLabel("App key").fill("");
    await provider.getByLabel("App secret").fill("secret-0123456789");
    await provider.getByLabel("Access token").fill("token-0123456789");
    await provider.getByLabel("Access token").press("Enter");
    await expect.poll(() => problem(provider, "App key").textContent(), { timeout: 15_000 }).not.toBe("");
    expect(await problem(provider, "App secret").textContent()).toBe("");
    await provider.getByLabel("App key").fill("key-0123456789");
    await provider.getByLabel("Language").selectOption("zh-HK");
    await provider.getByLabel(/^Overnight data/).check();
    await provider.getByRole("button", { name: "Save provider" }).click();
    await provider.getByText("Provider saved.").waitFor({ timeout: 15_000 });
    const stored = (await callAs(base, token, "GET", "/api/v1/settings/provider")).body;
    expect(stored).toMatchObject({ configured: true, language: "zh-HK", enable_overnight: true });
    expect(stored.app_key).not.toBe("key-0123456789");
    expect(await provider.getByLabel("App key").inputValue()).toBe(stored.app_key);

    // The data source and the asset mode: chosen from their lists.
    const source = page.getByRole("form", { name: "Data source" });
    await source.getByLabel("Provider").selectOption("simulated");
    await source.getByRole("button", { name: "Save data source" }).click();
    await source.getByText("Data source: simulated.").waitFor({ timeout: 15_000 });
    const dataSource = (await callAs(base, token, "GET", "/api/v1/settings/data-source")).body;
    expect(dataSource.type).toBe("simulated");
    // Never "Settings version 0": how often it changed, in words.
    expect(await source.locator("[data-field=version]").textContent()).toBe(
      dataSource.version === 0
        ? "Never changed: the service's defaults."
        : `Changed ${dataSource.version} time${dataSource.version === 1 ? "" : "s"} (version ${dataSource.version}).`,
    );
    const assetMode = page.getByRole("form", { name: "Asset mode" });
    await assetMode.getByLabel("Asset mode").selectOption("real");
    await assetMode.getByRole("button", { name: "Save asset mode" }).click();
    await assetMode.getByText("Asset mode: real.").waitFor({ timeout: 15_000 });
    expect((await callAs(base, token, "GET", "/api/v1/settings/asset-mode")).body.asset_mode).toBe("real");
    await assetMode.getByLabel("Asset mode").selectOption("simulated");
    // By keyboard: from the list, Tab reaches the form's button and Enter presses it.
    await assetMode.getByLabel("Asset mode").press("Tab");
    expect(await page.evaluate("document.activeElement.textContent")).toBe("Save asset mode");
    await page.keyboard.press("Enter");
    await assetMode.getByText("Asset mode: simulated.").waitFor({ timeout: 15_000 });
    expect((await callAs(base, token, "GET", "/api/v1/settings/asset-mode")).body.asset_mode).toBe("simulated");
  });

  it("lets an administrator create a user and change their role and activity", { timeout: 120_000 }, async () => {
    await page.goto(`${base}/console/settings`);
    const created = page.getByRole("form", { name: "New user" });
    const problem = (form: ReturnType<Page["getByRole"]>, label: string) =>
      form.locator(".field", { has: page.getByLabel(label, { exact: true }) }).locator(".field-error");
    await created.getByLabel("Username").fill("trader1");
    await created.getByLabel("Email").fill("not-an-email");
    await created.getByLabel("Password", { exact: true }).fill("short");
    await created.getByLabel("Password", { exact: true }).press("Enter");
    await expect.poll(() => problem(created, "Email").textContent(), { timeout: 15_000 }).not.toBe("");
    expect(await problem(created, "Password").textContent()).not.toBe("");
    expect(await problem(created, "Username").textContent()).toBe("");

    await created.getByLabel("Email").fill("trader1@example.com");
    await created.getByLabel("Password", { exact: true }).fill("trader1-password");
    await created.getByRole("button", { name: "Create user" }).click();
    await created.getByText("User trader1 created.").waitFor({ timeout: 15_000 });
    const listed = () =>
      callAs(base, token, "GET", "/api/v1/users").then((answer) => (answer.body as { username: string }[]).find((u) => u.username === "trader1"));
    expect(await listed()).toMatchObject({ email: "trader1@example.com", user_type: "user", status: "active" });
    const usersTable = page.locator("section[aria-label=Users] table tbody tr", { hasText: "trader1" });
    expect(await usersTable.locator("td").allTextContents()).toEqual(expect.arrayContaining(["trader1", "trader1@example.com", "user", "active"]));

    await page.getByRole("button", { name: "Edit trader1" }).click();
    const edit = page.getByRole("form", { name: "Edit user trader1" });
    expect(await edit.getByLabel("Username").inputValue()).toBe("trader1");
    await edit.getByLabel("Role").selectOption("admin");
    await edit.getByLabel("Active").uncheck();
    await edit.getByRole("button", { name: "Save user" }).click();
    await edit.getByText("User trader1 saved: admin, inactive.").waitFor({ timeout: 15_000 });
    expect(await listed()).toMatchObject({ user_type: "admin", status: "inactive" });
    expect(await usersTable.locator("td").allTextContents()).toEqual(expect.arrayContaining(["admin", "inactive"]));
    await shot(page, "08-settings");
  });

  it("registers a webhook, shows its secret once, and a test delivery reaches a receiver signed, listed as delivered", { timeout: 60_000 }, async () => {
    const received: { headers: IncomingHttpHeaders; body: string }[] = [];
    const receiver = createServer((request, response) => {
      let body = "";
      request.on("data", (chunk) => (body += chunk));
      request.on("end", () => (received.push({ headers: request.headers, body }), response.end("ok")));
    });
    await new Promise<void>((ready) => receiver.listen(0, "127.0.0.1", ready));
    try {
      await page.goto(`${base}/console/webhooks`);
      await page.getByText("No webhooks yet.").waitFor();
      const form = page.locator("form[aria-label='New webhook']");
      await form.getByLabel("Name").fill("desk");
      await form.getByLabel("URL").fill(`http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/desk`);
      // Only a kind nothing here causes: the sessions the steps before started keep filling orders (the default kinds include fills).
      await form.getByLabel("Critical alerts").uncheck();
      await form.getByLabel("Fills").uncheck();
      await form.getByLabel("Reconciliation mismatches").check();
      await form.getByRole("button", { name: "Create webhook" }).click();
      const secret = (await page.getByLabel("The webhook's secret").textContent({ timeout: 15_000 }))!;
      expect(secret).toMatch(/^whsec_/);
      await page.getByRole("table", { name: /Your webhooks \(1\)/ }).waitFor();
      await page.getByRole("button", { name: "Test desk" }).click();
      await expect.poll(() => received.length, { timeout: 20_000 }).toBe(1);
      const [{ headers, body }] = received;
      expect(headers["x-tp-signature"]).toBe(`v1=${createHmac("sha256", secret).update(`${headers["x-tp-timestamp"]}.${body}`).digest("hex")}`);
      await page.getByRole("button", { name: "Deliveries of desk" }).click();
      const row = page
        .getByRole("table", { name: /Deliveries of desk/ })
        .locator("tbody tr")
        .first();
      await expect.poll(() => row.textContent(), { timeout: 15_000 }).toContain("delivered");
      expect(await row.textContent()).toContain("1: 200");
      await shot(page, "22-webhooks");
      // Shown once: the page again lists the webhook, never its secret.
      await page.reload();
      await page.getByRole("table", { name: /Your webhooks \(1\)/ }).waitFor();
      expect(await page.content()).not.toContain(secret);
    } finally {
      receiver.close();
    }
  });

  it("trips and releases the kill switch from its page", { timeout: 60_000 }, async () => {
    await page.goto(`${base}/console/kill-switch`);
    await page.getByText("Trading is allowed.").waitFor();
    await page.getByLabel("Reason").fill("browser test halt");
    await page.getByRole("button", { name: "Trip my kill switch" }).click();
    await page.getByText("Trading is halted").waitFor({ timeout: 15_000 });
    expect(await page.getByRole("region", { name: "Your switch" }).textContent()).toContain("browser test halt");
    await page.getByRole("button", { name: "Release my kill switch" }).click();
    await page.getByText("Trading is allowed.").waitFor({ timeout: 15_000 });
    // The trip paused the running session; the steps after this one find it running again.
    const resumed = await fetch(`${base}/api/v1/trading/sessions/${liveSessionId}/resume`, { method: "POST", headers: { Authorization: `Bearer ${token}` } });
    expect(resumed.status).toBe(200);
  });

  it("shows every page at 1280×800 and at a phone's width without sideways scrolling, and signs out", { timeout: 180_000 }, async () => {
    const pages = [
      ["backtests", "/backtests", "form[aria-label='New backtest']"],
      ["backtest-result", `/backtests/${backtestId}`, "[data-chart=equity] canvas"],
      ["sessions", "/sessions", "caption"],
      ["session", `/sessions/${liveSessionId}`, "[data-figure=equity]"],
      ["sweep", `/sweeps/${sweepId}`, "[data-table=ranking] table"],
      ["walk-forward", `/sweeps/${walkForwardId}`, "[data-chart=walk-forward-timeline]"],
      ["accounts", "/accounts", "section[aria-label='Simulated account'] table"],
      ["symbol", "/symbols/AAPL.US", ".heatmap"],
      ["settings", "/settings", "section[aria-label='Users'] table"],
    ] as const;
    for (const [width, height, suffix] of [
      [1280, 800, ""],
      [390, 844, "-phone"],
    ] as const) {
      await page.setViewportSize({ width, height });
      for (const [name, path, ready] of pages) {
        await page.goto(`${base}/console${path}`);
        await page.locator(ready).first().waitFor({ timeout: 30_000 });
        await shot(page, `20-${name}${suffix}`);
        // The real account is created from a form, not by being told to POST.
        if (name === "accounts") expect(await page.locator("main, #app").first().textContent()).not.toContain("POST");
        expect(await page.evaluate("document.documentElement.scrollWidth"), `${name} at ${width}px`).toBeLessThanOrEqual(width);
      }
    }

    // Signing out forgets the token: the console is back on the sign-in page.
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("button", { name: "Sign in" }).waitFor();
    await shot(page, "21-sign-in-phone");
    expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(390);
    expect(pageErrors).toEqual([]);
  });
});
