import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mountConsole } from "@tp/local/console";
import { buildConsole } from "../support/console";

/** The console's production build (CI builds it here): its size, its paths under /console, and how the service serves it. */
let out: string;
beforeAll(() => {
  out = buildConsole();
}, 180_000);
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe("the console's build", () => {
  it("stays within 300 KB gzipped, scripts and styles together", () => {
    const assets = readdirSync(join(out, "assets")).filter((name) => /\.(js|css)$/.test(name));
    expect(assets.some((name) => name.endsWith(".js"))).toBe(true);
    expect(assets.some((name) => name.endsWith(".css"))).toBe(true);
    const gzipped = assets.reduce((total, name) => total + gzipSync(readFileSync(join(out, "assets", name))).length, 0);
    expect(gzipped).toBeGreaterThan(10_000);
    expect(gzipped).toBeLessThanOrEqual(300 * 1024);
  });

  it("loads its files from /console/assets/", () => {
    const html = readFileSync(join(out, "index.html"), "utf8");
    expect(html).toMatch(/<script type="module" crossorigin src="\/console\/assets\/index-[\w-]+\.js"><\/script>/);
    expect(html).toMatch(/href="\/console\/assets\/index-[\w-]+\.css"/);
  });

  it("is served at /console with every deep link answering the app, assets cached for a year, unknown files 404", async () => {
    const app = new Hono();
    mountConsole(app, out);
    const index = readFileSync(join(out, "index.html"), "utf8");
    for (const path of ["/console", "/console/", "/console/backtests/bt-123", "/console/sessions/s-1", "/console/symbols/AAPL.US"]) {
      const answer = await app.request(path);
      expect(answer.status, path).toBe(200);
      expect(answer.headers.get("Content-Type")).toBe("text/html; charset=utf-8");
      expect(await answer.text()).toBe(index);
    }
    const script = readdirSync(join(out, "assets")).find((name) => name.endsWith(".js"))!;
    const asset = await app.request(`/console/assets/${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get("Content-Type")).toBe("text/javascript; charset=utf-8");
    expect(asset.headers.get("Cache-Control")).toBe("public, max-age=31536000, immutable");
    expect((await asset.text()).length).toBe(readFileSync(join(out, "assets", script), "utf8").length);
    expect((await app.request("/console/assets/missing.js")).status).toBe(404);
    for (const path of ["/console/..%2F..%2Fpackage.json", "/console/../../package.json", "/console/%2e%2e/%2e%2e/package.json"]) {
      expect(await (await app.request(path)).text(), path).not.toContain('"workspaces"');
    }
  });

  it("says how to build it when it is not built", async () => {
    const app = new Hono();
    mountConsole(app, join(out, "absent"));
    const answer = await app.request("/console/backtests");
    expect(answer.status).toBe(503);
    expect(await answer.text()).toContain("npm run build:console");
  });
});
