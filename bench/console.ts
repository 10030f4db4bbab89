/**
 * The console's first page: how long Chromium takes from navigating to `/console` on `npm start`'s
 * runtime (the production build, served by packages/local) to the sign-in page's first paint, its
 * load event, and the sign-in form ready (its captcha drawn, which needs one API call). Every load
 * is cold: a new browser context, so nothing is cached. Needs Debian's chromium (as the browser tests).
 *
 *   npx tsx bench/console.ts [loads]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { CHROMIUM } from "../test/support/chromium";
import { buildConsole } from "../test/support/console";
import { startService } from "../test/support/local-process";
import { printTable } from "./support/table";

const loads = Number(process.argv[2] ?? 20);
if (!CHROMIUM) {
  console.log("bench/console.ts: no chromium on PATH (apt-get install chromium); skipped");
  process.exit(0);
}

const consoleDir = buildConsole();
const service = await startService({ DATA_DIR: mkdtempSync(join(tmpdir(), "tp-bench-console-")), CONSOLE_DIR: consoleDir });
const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
type Timing = { firstPaint: number; firstContentfulPaint: number; domContentLoaded: number; load: number; ready: number };
try {
  const timings: Timing[] = [];
  // One unmeasured load first: the runtime's first request warms its routes and DynamoDB Local.
  for (let run = 0; run <= loads; run++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    // The moment the captcha is in the page, taken in the page (no round trip to the driver counted).
    await page.addInitScript(`new MutationObserver((_, observer) => {
      if (!document.querySelector(".captcha svg, .captcha img")) return;
      window.__ready = performance.now();
      observer.disconnect();
    }).observe(document, { childList: true, subtree: true })`);
    await page.goto(`${service.base}/console`, { waitUntil: "load" });
    await page.locator(".captcha svg, .captcha img").waitFor();
    const timing = (await page.evaluate(`(() => {
      const navigation = performance.getEntriesByType("navigation")[0];
      const paint = Object.fromEntries(performance.getEntriesByType("paint").map((entry) => [entry.name, entry.startTime]));
      return {
        firstPaint: paint["first-paint"],
        firstContentfulPaint: paint["first-contentful-paint"],
        domContentLoaded: navigation.domContentLoadedEventEnd,
        load: navigation.loadEventEnd,
        ready: window.__ready,
      };
    })()`)) as Timing;
    if (run > 0) timings.push(timing);
    await context.close();
  }
  const quantile = (values: number[], q: number) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  };
  const row = (name: string, pick: (t: Timing) => number) => {
    const values = timings.map(pick);
    return {
      measure: name,
      "p50 ms": Math.round(quantile(values, 0.5)),
      "p95 ms": Math.round(quantile(values, 0.95)),
      "max ms": Math.round(Math.max(...values)),
    };
  };
  printTable(`The console's sign-in page, ${loads} cold loads in headless Chromium, loopback (${new Date().toISOString()})`, [
    row("first paint", (t) => t.firstPaint),
    row("first contentful paint", (t) => t.firstContentfulPaint),
    row("DOMContentLoaded", (t) => t.domContentLoaded),
    row("load event", (t) => t.load),
    row("sign-in form ready (captcha drawn)", (t) => t.ready),
  ]);
} finally {
  await browser.close();
  await service.stop();
  rmSync(consoleDir, { recursive: true, force: true });
}
