import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import WebSocket from "ws";
import { ApiClient } from "../support/api-client";
import { startService, type RunningService } from "../support/local-process";

/**
 * The README's examples as written, against `npm start` on the accelerated clock: each `sh`
 * block's `curl` commands are read from README.md and run in order (a small reading of the shell
 * they are written in: variables, quoting, `$(curl … | jq -r .field)`), then the test waits as a
 * reader would and sees each example place orders: the backtest, the two-channel session, the MTF
 * session and the replay.
 */
const README = readFileSync(resolve(import.meta.dirname, "../../README.md"), "utf8");
const ADMIN_PASSWORD = "readme-admin-password-1";
let service: RunningService | undefined;

afterAll(async () => {
  await service?.stop();
});

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`not reached in time: ${JSON.stringify(value).slice(0, 500)}`);
    await sleep(250);
  }
}

/** The README's `sh` blocks. */
const blocks = [...README.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!);
const blockWith = (text: string) => {
  const block = blocks.find((candidate) => candidate.includes(text));
  if (!block) throw new Error(`README.md has no sh block with ${text}`);
  return block;
};

/** Splits a shell word list as sh does for what the README uses: '…', "…", $NAME, concatenation. */
function words(line: string, vars: Record<string, string>): string[] {
  const out: string[] = [];
  let word: string | null = null;
  const expand = (text: string) => text.replace(/\$(\w+)/g, (_, name: string) => vars[name] ?? "");
  for (let i = 0; i < line.length; ) {
    const c = line[i]!;
    if (c === " " || c === "\t") {
      if (word !== null) out.push(word);
      word = null;
      i++;
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      word = (word ?? "") + line.slice(i + 1, end);
      i = end + 1;
    } else if (c === '"') {
      const end = line.indexOf('"', i + 1);
      word = (word ?? "") + expand(line.slice(i + 1, end));
      i = end + 1;
    } else {
      const match = /^[^\s'"]+/.exec(line.slice(i))![0];
      word = (word ?? "") + expand(match);
      i += match.length;
    }
  }
  if (word !== null) out.push(word);
  return out;
}

/** One `curl` as the README writes it, over the client (its token is the README's `$T`). */
async function curl(client: ApiClient, args: string[]): Promise<{ status: number; body: any }> {
  let method: string | undefined;
  let body: string | undefined;
  let url: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "-X") method = args[++i];
    else if (arg === "-d") body = args[++i];
    else if (arg === "-H") i++;
    else if (arg.startsWith("http")) url = arg;
  }
  const response = await fetch(url!, {
    method: method ?? (body === undefined ? "GET" : "POST"),
    headers: { Authorization: `Bearer ${client.token}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
    body,
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

/**
 * Runs a block's lines in order, in `vars`: `NAME='…'`, `NAME=$(curl … | jq -r .field)` and
 * `curl …` (a trailing `| jq …` and `# comments` are the reader's). `after(line, answer)` runs after each.
 */
async function run(
  client: ApiClient,
  block: string,
  vars: Record<string, string>,
  after: (line: string, answer: { status: number; body: any }) => Promise<void> = async () => undefined,
) {
  const lines = block.replace(/\\\n\s*/g, " ").split("\n");
  // A quoted argument written over several lines (a JSON body) is one line to the shell.
  const joined: string[] = [];
  for (const line of lines) {
    const previous = joined.at(-1);
    if (previous !== undefined && (previous.split("'").length - 1) % 2 === 1) joined[joined.length - 1] = `${previous} ${line.trim()}`;
    else joined.push(line);
  }
  for (const raw of joined) {
    const line = raw.replace(/\s+#[^'"]*$/, "").trim();
    if (!line || line.startsWith("#")) continue;
    const literal = /^(\w+)=('[^']*'|\S+)$/.exec(line);
    if (literal) {
      // The README's address is npm start's default; this one listens where the test started it.
      vars[literal[1]!] = words(literal[2]!, vars)[0]!.replace(/^http:\/\/127\.0\.0\.1:3000/, client.base);
      continue;
    }
    const captured = /^(\w+)=\$\((curl .*) \| jq -r \.(\w+)\)$/.exec(line);
    const command = captured ? captured[2]! : line.replace(/ \| jq .*$/, "");
    if (!command.startsWith("curl ")) throw new Error(`not a command the test reads: ${line}`);
    const answer = await curl(client, words(command.slice(5), vars));
    // A result asked for before the backtest ends is a 409 the reader reads; nothing answers 5xx, nothing made fails.
    expect(answer.status, `${line} → ${JSON.stringify(answer.body).slice(0, 300)}`).toBeLessThan(captured || !line.includes("/result") ? 400 : 500);
    if (captured) vars[captured[1]!] = String(answer.body[captured[3]!]);
    await after(line, answer);
  }
}

describe("the README's examples, as written", () => {
  it("each place orders: the backtest, the two-channel session on the accelerated clock, the MTF session and the replay", { timeout: 420_000 }, async () => {
    service = await startService({
      DATA_DIR: mkdtempSync(join(tmpdir(), "tp-readme-")),
      DYNAMODB_ENDPOINT: inject("dynamoEndpoint"),
      TABLE_NAME: `test-readme-${randomUUID()}`,
      ADMIN_PASSWORD,
      CAPTCHA_TEST_CODE: "e2e-code",
      // The README's "watching a session trade at any hour": a trading day in six and a half minutes.
      SIMULATED_CLOCK_SPEED: "60",
      SIMULATED_CLOCK_START: "2025-03-14T13:30:00Z",
    });
    const client = new ApiClient(service.base);
    client.token = (await client.expect("POST", "/api/v1/login", 200, { username: "admin", password: ADMIN_PASSWORD, captcha: "e2e-code" })).access_token;
    const vars: Record<string, string> = { T: client.token! };

    // The backtest.
    await run(client, blockWith("backtest/start"), vars);
    const backtest = vars.B!;
    await until(
      () => client.expect("GET", `/api/v1/backtest/${backtest}/progress`, 200),
      (p: any) => p.status === "completed",
      240_000,
    );
    const result = await client.expect("GET", `/api/v1/backtest/${backtest}/result`, 200);
    expect(result.fills.length).toBeGreaterThan(0);
    expect(result.risk_config).toMatchObject({ max_position_size: 0.1 });
    const backtestOrders = await client.expect("GET", `/api/v1/trading/sessions/${vars.S}/orders?limit=500`, 200);
    expect(backtestOrders.orders.filter((o: any) => o.status === "denied")).toEqual([]);

    // The two-channel session: started, it trades on the accelerated clock before the reader pauses a channel.
    await run(client, blockWith("channels/sessions"), vars, async (line) => {
      if (!line.includes("/channels/sessions/")) return;
      const orders = await until(
        () => client.expect("GET", `/api/v1/trading/sessions/${vars.S}/orders?limit=500`, 200),
        (page: any) => page.orders.some((o: any) => o.status === "filled"),
        120_000,
      );
      expect(orders.orders.filter((o: any) => o.status === "denied").map((o: any) => o.denials)).toEqual([]);
    });

    // The import, waited for as the README says ("again until completed").
    await run(client, blockWith("stock-import/import"), vars);
    await until(
      () => client.expect("GET", `/api/v1/stock-import/import/${vars.I}/status`, 200),
      (s: any) => s.status === "completed",
      120_000,
    );

    // The MTF session and the replay.
    let socket: WebSocket | undefined;
    const replayed: any[] = [];
    await run(client, blockWith("trading/mtf/sessions"), vars, async (line, answer) => {
      if (line.includes("/step")) {
        // Warm from the first step: the executor's indicators have values.
        const output = answer.body.events.find((e: any) => e.type === "strategy_output" && e.data.role === "executor");
        expect(output.data.indicators.rsi).not.toBeNull();
      }
      if (line.startsWith("R=")) {
        socket = new WebSocket(`${service!.base.replace("http://", "ws://")}/ws/trading/${vars.R}?token=${client.token}`);
        socket.on("message", (data) => replayed.push(JSON.parse(data.toString())));
        await new Promise((done, fail) => (socket!.once("open", done), socket!.once("error", fail)));
      }
    });
    // The reader steps on (or plays) the MTF session: it trades.
    let mtfOrders: any;
    for (let round = 0; round < 3; round++) {
      await client.expect("POST", `/api/v1/trading/mtf/sessions/${vars.M}/step`, 200, { bars: 1000 });
      mtfOrders = await client.expect("GET", `/api/v1/trading/sessions/${vars.M}/orders?limit=500`, 200);
      if (mtfOrders.orders.some((o: any) => o.status === "filled")) break;
    }
    expect(mtfOrders.orders.filter((o: any) => o.status === "filled").length).toBeGreaterThan(0);
    expect(mtfOrders.orders.filter((o: any) => o.status === "denied")).toEqual([]);
    // The replay, sought to the middle of the month, has traded and says so.
    const status = await client.expect("GET", `/api/v1/trading/sessions/${vars.R}/replay/status`, 200);
    expect(status.orders).toBeGreaterThan(0);
    expect(status.denied_orders).toBe(0);
    await until(
      async () => replayed.filter((m) => m.type === "order_filled" || m.data?.type === "order_filled").length,
      (count) => count > 0,
      30_000,
    );
    socket!.close(1000);
  });
});
