import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { request } from "node:http";
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
/** The longest a README wait loop may take here (a backtest, a sweep). */
const WAIT_LIMIT_MS = 240_000;
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
  // A connection of its own per command, as curl opens one (a kept-alive one the server closes while busy resets a later request).
  const { status, text } = await new Promise<{ status: number; text: string }>((done, fail) => {
    const outgoing = request(
      url!,
      {
        method: method ?? (body === undefined ? "GET" : "POST"),
        agent: false,
        headers: { Authorization: `Bearer ${client.token}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
      },
      (incoming) => {
        let text = "";
        incoming.setEncoding("utf8");
        incoming.on("data", (chunk) => (text += chunk));
        incoming.on("end", () => done({ status: incoming.statusCode!, text }));
        incoming.on("error", fail);
      },
    );
    outgoing.on("error", fail);
    outgoing.end(body);
  });
  return { status, body: text ? JSON.parse(text) : undefined };
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
    // `until curl … | jq -e '.status | IN("a", "b")' >/dev/null; do sleep N; done`: the reader's wait.
    const wait = /^until (curl .*) \| jq -e '\.(\w+) \| IN\(([^)]*)\)' >\/dev\/null; do sleep (\d+); done$/.exec(line);
    if (wait) {
      const ends: string[] = JSON.parse(`[${wait[3]}]`);
      const deadline = Date.now() + WAIT_LIMIT_MS;
      let answer: { status: number; body: any };
      while (!ends.includes((answer = await curl(client, words(wait[1]!.slice(5), vars))).body?.[wait[2]!])) {
        if (Date.now() > deadline) throw new Error(`${line} still waiting after ${WAIT_LIMIT_MS} ms: ${JSON.stringify(answer.body).slice(0, 300)}`);
        await sleep(Number(wait[4]) * 1000);
      }
      await after(line, answer);
      continue;
    }
    const captured = /^(\w+)=\$\((curl .*) \| jq -r \.(\w+)\)$/.exec(line);
    const command = captured ? captured[2]! : line.replace(/ \| jq .*$/, "");
    if (!command.startsWith("curl ")) throw new Error(`not a command the test reads: ${line}`);
    const answer = await curl(client, words(command.slice(5), vars));
    // Pasted as one block, every command succeeds: a result is read once the block has waited for it (it answered 409).
    expect(answer.status, `${line} → ${JSON.stringify(answer.body).slice(0, 300)}`).toBeLessThan(400);
    if (captured) vars[captured[1]!] = String(answer.body[captured[3]!]);
    await after(line, answer);
  }
}

/** What the README tells a reader to start the runtime with for its examples: `SIMULATED_CLOCK_SPEED=60 npm start`. */
const START_COMMAND = /`(SIMULATED_CLOCK_SPEED)=(\d+) npm start`/.exec(README);

/** A Saturday, the one after Thanksgiving 2026 (Friday the 27th a half day, 09:30-13:00 New York): 10:00 in New York. */
const SATURDAY = "2026-11-28T15:00:00Z";

describe("the README's examples, as written", () => {
  it("each does what it promises, on a Saturday: the backtest and the sweep end with results that trade, both channels trade within a minute and the unpaused one goes on, the MTF session and the replay trade", {
    timeout: 600_000,
  }, async () => {
    expect(START_COMMAND, "the README says how to start for its examples").not.toBeNull();
    service = await startService({
      DATA_DIR: mkdtempSync(join(tmpdir(), "tp-readme-")),
      DYNAMODB_ENDPOINT: inject("dynamoEndpoint"),
      TABLE_NAME: `test-readme-${randomUUID()}`,
      ADMIN_PASSWORD,
      CAPTCHA_TEST_CODE: "e2e-code",
      // Started as the README says, with nothing else set (no SIMULATED_CLOCK_START)…
      [START_COMMAND![1]!]: START_COMMAND![2]!,
      // …by a reader whose wall clock says Saturday (test/support/fake-wall-clock.mjs).
      TP_TEST_WALL_CLOCK: SATURDAY,
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --import ${resolve(import.meta.dirname, "../support/fake-wall-clock.mjs")}`.trim(),
    });
    // Monday's open: not Friday's half day (three and a half minutes of trading, then nothing for an hour).
    expect(service.output()).toContain(`Simulated clock: ${START_COMMAND![2]}x from 2026-11-30T14:30:00.000Z`);
    const client = new ApiClient(service.base);
    client.token = (await client.expect("POST", "/api/v1/login", 200, { username: "admin", password: ADMIN_PASSWORD, captcha: "e2e-code" })).access_token;
    const vars: Record<string, string> = { T: client.token! };
    const answers = new Map<string, any>();
    const keep = async (line: string, answer: { body: any }) => void answers.set(line, answer.body);
    const answerTo = (text: string) => [...answers].find(([line]) => line.includes(text))?.[1];

    // The backtest: pasted as one block, it waits and reads a result that trades.
    await run(client, blockWith("backtest/start"), vars, keep);
    const result = answerTo("/backtest/$B/result");
    expect(result.status).toBe("completed");
    expect(result.fills.length).toBeGreaterThan(0);
    expect(result.risk_config).toMatchObject({ max_position_size: 0.1 });
    const backtestOrders = await client.expect("GET", `/api/v1/trading/sessions/${vars.S}/orders?limit=500`, 200);
    expect(backtestOrders.orders.filter((o: any) => o.status === "denied")).toEqual([]);

    // The sweep: its ranking, every run of the grid, the best traded and was run again out of sample.
    await run(client, blockWith("backtest/sweeps"), vars, keep);
    const sweep = answerTo("/backtest/sweeps/$W/result");
    expect(sweep.status).toBe("completed");
    expect(sweep.ranking).toHaveLength(21);
    expect(sweep.ranking[0].performance_metrics.total_trades).toBeGreaterThan(0);
    expect(sweep.ranking[0].out_of_sample).toMatchObject({ status: "completed" });

    // The two-channel session: both channels trade within a minute of the start; the pause stops `fast` and `steady` goes on.
    const channelOrders = async () => {
      const page = await client.expect("GET", `/api/v1/trading/sessions/${vars.S}/orders?limit=500`, 200);
      const count = (channel: string) => page.orders.filter((o: any) => o.channel_id === channel).length;
      return { fast: count("fast"), steady: count("steady"), filled: page.orders.filter((o: any) => o.status === "filled").length, orders: page.orders };
    };
    let atPause: { fast: number; steady: number } | undefined;
    await run(client, blockWith("channels/sessions"), vars, async (line, answer) => {
      if (line.includes("/channels/sessions/")) {
        const started = await until(channelOrders, (o) => o.fast > 0 && o.steady > 0 && o.filled > 0, 60_000);
        expect(started.orders.filter((o: any) => o.status === "denied").map((o: any) => o.denials)).toEqual([]);
      }
      if (line.includes("/channels/fast/pause")) {
        expect(answer.body).toMatchObject({ channel_id: "fast", status: "paused" });
        atPause = await channelOrders();
      }
      await keep(line, answer);
    });
    expect((await client.expect("GET", `/api/v1/sessions/${vars.S}/channels/fast`, 200)).status).toBe("paused");
    expect((await client.expect("GET", `/api/v1/sessions/${vars.S}/channels/steady`, 200)).status).toBe("running");
    const later = await until(channelOrders, (o) => o.steady > atPause!.steady, 60_000);
    // After the pause fast places no trade of its strategy; its position keeps its protective stop and target.
    const pausedAt = Date.parse(answerTo("/channels/fast/pause").paused_at);
    const fastAfter = later.orders.filter((o: any) => o.channel_id === "fast" && Date.parse(o.submitted_at) > pausedAt);
    expect(fastAfter.filter((o: any) => !/^(stop_loss|take_profit):/.test(o.reason ?? "")).map((o: any) => o.reason)).toEqual([]);
    // The risk-limit change of the block is among what the socket pushed, saying what changed (the log read "[fast] undefined").
    const updates = answerTo("/updates?since=").updates as any[];
    const change = updates.find((u) => u.data?.kind === "limits_changed");
    expect(change).toMatchObject({ data: { kind: "limits_changed", limits: { max_drawdown: 0.05 } } });
    expect(change.data.message).toMatch(/^Risk limits changed: max_drawdown [\d.]+ → 0.05$/);

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
