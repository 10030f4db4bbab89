import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { chromium, type Browser, type Page } from "playwright-core";
import { callAs } from "../support/api-client";
import { buildConsole } from "../support/console";
import { startService, type RunningService } from "../support/local-process";
import { CHROMIUM } from "../support/chromium";

/**
 * The console's security pages in a real browser against `npm start`'s runtime (modelled on
 * console.test.ts): an API key created from its page (shown once, working against the API,
 * listed without its secret), revoked from its page (the API refuses it), and the audit trail
 * page listing those commands, filtered by kind. Each page is photographed into
 * test-artifacts/console/ (git-ignored).
 */

const ARTIFACTS = resolve(import.meta.dirname, "../../test-artifacts/console");
const PASSWORD = "console-admin-password-1";
let consoleDir: string | undefined;
let service: RunningService | undefined;
let browser: Browser | undefined;
const pageErrors: string[] = [];

afterAll(async () => {
  await browser?.close();
  await service?.stop();
  if (consoleDir) rmSync(consoleDir, { recursive: true, force: true });
});

const shot = (page: Page, name: string) => page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });

describe.skipIf(!CHROMIUM)(`the console's API keys and audit trail in headless Chromium (${CHROMIUM ?? "not installed"})`, () => {
  it("creates a key shown once, revokes it, and shows both commands in the audit trail", { timeout: 240_000 }, async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    consoleDir = buildConsole();
    service = await startService({
      DATA_DIR: mkdtempSync(join(tmpdir(), "tp-console-security-")),
      DYNAMODB_ENDPOINT: inject("dynamoEndpoint"),
      TABLE_NAME: `test-console-security-${randomUUID()}`,
      ADMIN_PASSWORD: PASSWORD,
      CAPTCHA_TEST_CODE: "e2e-code",
      CONSOLE_DIR: consoleDir,
    });
    const base = service.base;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.on("pageerror", (error) => pageErrors.push(error.message));

    await page.goto(`${base}/console`);
    await page.getByLabel("Username").fill("admin");
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByLabel("Captcha", { exact: true }).fill("e2e-code");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${base}/console/backtests`);

    // A key from the form: shown once, and it works against the API.
    await page.getByRole("link", { name: "API keys" }).click();
    await page.waitForURL(`${base}/console/api-keys`);
    await page.getByText("No keys yet.").waitFor();
    const form = page.locator("form[aria-label='New API key']");
    await form.getByLabel("Name").fill("console bot");
    await form.getByLabel(/^Trade/).check();
    await form.getByRole("button", { name: "Create key" }).click();
    const secret = (await page.getByLabel("The new key").textContent({ timeout: 15_000 }))!;
    expect(secret).toMatch(/^tpk_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    expect(await page.getByText("Copy this key now: it is not shown again.").count()).toBe(1);
    const me = await callAs(base, secret, "GET", "/api/v1/me");
    expect(me.status).toBe(200);
    expect(me.body.username).toBe("admin");
    const listed = page.getByRole("table", { name: /Your keys \(1\)/ });
    await expect.poll(() => listed.locator("tbody tr").first().textContent()).toContain("read, trade");
    await shot(page, "21-api-keys");

    // Shown once: the page again lists the key by its prefix, never its secret.
    await page.reload();
    await page.getByRole("table", { name: /Your keys \(1\)/ }).waitFor();
    expect(await page.content()).not.toContain(secret.slice(21));
    expect(await page.locator("tbody").textContent()).toContain(secret.slice(0, 20));

    // Revoked from its row: the API refuses it.
    await page.getByRole("button", { name: "Revoke console bot" }).click();
    await expect.poll(() => page.locator(".status.ok").first().textContent(), { timeout: 15_000 }).toContain("revoked");
    expect(await page.locator("tbody tr").first().textContent()).toContain("revoked");
    expect((await callAs(base, secret, "GET", "/api/v1/me")).status).toBe(401);

    // The audit trail: both commands, who sent them and how they ended; then only the keys' kind.
    await page.getByRole("link", { name: "Audit" }).click();
    await page.waitForURL(`${base}/console/audit`);
    const rows = page.locator("table tbody tr");
    await expect.poll(() => rows.count(), { timeout: 15_000 }).toBeGreaterThanOrEqual(2);
    const texts = await rows.allTextContents();
    expect(texts[0]).toContain("DELETE /api/v1/auth/api-keys/{key_id}");
    expect(texts[0]).toContain("200 succeeded");
    expect(texts[1]).toContain("POST /api/v1/auth/api-keys");
    expect(texts[1]).toContain("201 succeeded");
    await page.getByLabel("Kind").selectOption("key");
    await page.getByRole("button", { name: "Show entries" }).click();
    await expect.poll(() => page.locator(".status.ok").first().textContent(), { timeout: 15_000 }).toBe("2 entries.");
    expect(await rows.count()).toBe(2);
    await shot(page, "22-audit");
    await page.setViewportSize({ width: 390, height: 844 });
    await shot(page, "22-audit-phone");

    // Bad filters are said on the form.
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByLabel("From").fill("2026-03-01T00:00");
    await page.getByLabel("To").fill("2026-01-01T00:00");
    await page.getByRole("button", { name: "Show entries" }).click();
    await expect.poll(() => page.locator("form[aria-label='Audit filters']").textContent(), { timeout: 15_000 }).toContain("from must not be after to");
    expect(pageErrors).toEqual([]);
  });
});
