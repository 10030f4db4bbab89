import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { chromium, type Browser } from "playwright-core";
import { startService, type RunningService } from "../support/local-process";
import { CHROMIUM } from "../support/chromium";

/**
 * The docs page in a real browser, against `npm start`'s runtime, with every request that leaves
 * the machine blocked: Swagger UI must load from the service itself and list the operations.
 */

const dataDir = mkdtempSync(join(tmpdir(), "tp-docs-"));
let service: RunningService | undefined;
let browser: Browser | undefined;

afterAll(async () => {
  await browser?.close();
  await service?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe.skipIf(!CHROMIUM)(`the docs page in headless Chromium (${CHROMIUM ?? "not installed: .ci/run installs Debian's chromium"})`, () => {
  it("loads Swagger UI from the service, with no request leaving the machine, and lists the operations", { timeout: 180_000 }, async () => {
    service = await startService({ DATA_DIR: dataDir, SESSION_WORKER: "off" });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
    // Swagger UI renders tag sections as they scroll into view: a tall window shows them all.
    const page = await browser.newPage({ viewport: { width: 1280, height: 20_000 } });
    const outside: string[] = [];
    await page.route("**/*", (route) => {
      const url = new URL(route.request().url());
      if (url.hostname === "127.0.0.1" || url.hostname === "localhost") return route.continue();
      outside.push(url.href);
      return route.abort();
    });
    await page.goto(`${service.base}/docs`);
    await page.waitForFunction("document.querySelectorAll('.opblock').length > 150", undefined, { timeout: 60_000 });
    expect(await page.locator(".opblock-tag").count()).toBeGreaterThan(15);
    expect(await page.locator(".opblock-summary-path", { hasText: "/api/v1/login" }).count()).toBeGreaterThan(0);
    expect(outside).toEqual([]);
  });
});
