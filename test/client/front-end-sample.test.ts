import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import type { WebSocketConstructor } from "../../packages/client/src/index";
import { runFrontEnd } from "../../packages/client/sample/front-end";
import { EMBEDDED_ADMIN, EMBEDDED_CAPTCHA, startEmbedded } from "../support/embedded";

/** The front-end sample: strict TypeScript with browser types only, run against the embedded runtime. */
const run = promisify(execFile);
const ROOT = new URL("../../", import.meta.url).pathname;
let runtime: Awaited<ReturnType<typeof startEmbedded>>;

beforeAll(async () => {
  runtime = await startEmbedded();
}, 60_000);
afterAll(() => runtime?.stop());

describe("the front-end sample (packages/client/sample)", () => {
  it("type-checks against the client with strict settings and DOM types only", { timeout: 120_000 }, async () => {
    const { stdout, stderr } = await run(`${ROOT}node_modules/.bin/tsc`, ["-p", `${ROOT}packages/client/sample/tsconfig.json`], { cwd: ROOT }).catch(
      (error) => error,
    );
    expect(`${stdout}${stderr}`).toBe("");
  });

  it("logs in, follows a backtest on the socket to its result, places an order and handles a refusal by its error_code", { timeout: 120_000 }, async () => {
    const captchas: string[] = [];
    const outcome = await runFrontEnd({
      baseUrl: runtime.base,
      username: EMBEDDED_ADMIN.username,
      password: EMBEDDED_ADMIN.password,
      readCaptcha: async (svg) => (captchas.push(svg), EMBEDDED_CAPTCHA),
      // Node 20 has no global WebSocket: the `ws` package's is injected, as the client's docs say.
      WebSocket: (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket ?? (WebSocket as unknown as WebSocketConstructor),
    });
    expect(captchas).toHaveLength(1);
    expect(captchas[0]).toMatch(/^<svg/);
    expect(outcome.stages[0]).toBe("importing");
    expect(outcome.stages.at(-1)).toBe("done");
    expect(outcome.lastProgress).toBe(100);
    expect(Number(outcome.totalReturn)).not.toBeNaN();
    expect(outcome.orderStatus).toBe("pending");
    expect(outcome.refusal).toMatch(/^not traded here: .*MSFT\.US/);
  });
});
