import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type RequestListener, type Server, type ServerOptions } from "node:http";
import { join, resolve } from "node:path";
import { serve } from "@hono/node-server";
import { configFromEnv } from "@tp/adapters/config";
import { ensureTable } from "@tp/adapters/dynamo/db";
import { migrate } from "@tp/adapters/migrations/migrate";
import { createServices, type Services } from "@tp/adapters/services";
import { createApp } from "@tp/api";
import { ensureAdministrator } from "@tp/core/users";
import { freePort, startDynamoDbLocal, type DynamoDbLocal } from "./dynamodb-local";
import { LocalWebSocketGateway } from "./websocket";
import { LocalQueueRunner } from "./queue-runner";
import { TableQueue } from "@tp/adapters/queues/table-queue";
import { LocalWorkflowRunner, type LocalWorkflowRunnerOptions } from "./workflow-runner";
import { Backtests, Sweeps } from "@tp/core/backtests/index";
import { keyFile } from "./secrets";
import { mountConsole } from "./console";
import { keepClockMark, readClockMark, simulatedClockFromEnv } from "./simulated-clock";
import { localBatchSizes, localQueueHandlers, localScheduleHandlers, localWorkflowTasks, startLocalSchedules } from "./background";
import { SessionWorker } from "@tp/worker/session-worker";
import { log } from "@tp/core/log";

export interface LocalRuntimeOptions {
  env: NodeJS.ProcessEnv;
  /** Print a line for the operator (stdout by default). */
  log?: (line: string) => void;
  /** The market's clock, when a caller drives it (benchmarks); otherwise SIMULATED_CLOCK_* or the wall clock. */
  marketNow?: () => number;
  /** Told of every workflow task when it ends (benchmarks time the stages with it). */
  observeTasks?: LocalWorkflowRunnerOptions["observe"];
  /** Told of what Step Functions would bill: every state entered, every Distributed Map child (benchmarks price them). */
  meterWorkflows?: LocalWorkflowRunnerOptions["meter"];
  /**
   * Whether the EventBridge schedules' stand-ins run (true by default). A benchmark of the worker's
   * own bookkeeping leaves them out: the day rollover runs here every minute, on AWS three times a
   * weekday (docs/aws-costs.md).
   */
  schedules?: boolean;
}

export interface LocalRuntime {
  services: Services;
  port: number;
  urls: { api: string; docs: string; console: string; websocket: string; base: string };
  /** Set on first boot when the administrator's password was generated. */
  generatedAdminPassword?: string;
  stop(): Promise<void>;
}

/** `npm start` asked for a port another process holds: says which variable picks another. */
export class PortInUseError extends Error {
  constructor(host: string, port: number) {
    super(
      `Port ${port} on ${host} is in use by another process: stop it, or start on another port with PORT (e.g. \`PORT=3001 npm start\`; PORT=0 picks a free one).`,
    );
    this.name = "PortInUseError";
  }
}

/** Chooses the administrator password: configured, generated on first boot (kept under DATA_DIR), or the kept one. */
function adminPassword(env: NodeJS.ProcessEnv, dataDir: string): { password: string; generated: boolean } {
  if (env.ADMIN_PASSWORD) return { password: env.ADMIN_PASSWORD, generated: false };
  const file = join(dataDir, "admin-password.txt");
  if (existsSync(file)) return { password: readFileSync(file, "utf8").trim(), generated: false };
  const password = randomBytes(12).toString("base64url");
  writeFileSync(file, `${password}\n`, { mode: 0o600 });
  return { password, generated: true };
}

/**
 * The embedded runtime: DynamoDB Local persisted under DATA_DIR, the table, the first
 * administrator, and every endpoint group on one HTTP port.
 */
export async function startLocalRuntime(options: LocalRuntimeOptions): Promise<LocalRuntime> {
  const { env } = options;
  const print = options.log ?? ((line: string) => console.log(line));
  const dataDir = resolve(env.DATA_DIR ?? ".data");
  mkdirSync(dataDir, { recursive: true });
  let dynamo: DynamoDbLocal | undefined;
  let server: Server | undefined;
  try {
    dynamo = env.DYNAMODB_ENDPOINT ? undefined : await startDynamoDbLocal({ dataDir: join(dataDir, "dynamodb") });
    // The port is known before the services are built: pushes go to this server's @connections API.
    const port = env.PORT === undefined || env.PORT === "" ? 3000 : Number(env.PORT) || (await freePort());
    const config = configFromEnv(
      {
        ...env,
        DYNAMODB_ENDPOINT: env.DYNAMODB_ENDPOINT ?? dynamo!.endpoint,
        WS_MANAGEMENT_ENDPOINT: env.WS_MANAGEMENT_ENDPOINT ?? `http://127.0.0.1:${port}`,
      },
      keyFile(join(dataDir, "jwt-secret.key")),
      // Seals broker credentials at rest; ENCRYPTION_KEY, when set, wins over the file.
      env.ENCRYPTION_KEY ? undefined : keyFile(join(dataDir, "broker-config.key")),
    );
    // Step Functions' stand-in; its handlers need the services, which need it: they are asked for on the first start.
    const built = () => Promise.resolve(services);
    const workflows = new LocalWorkflowRunner(localWorkflowTasks(built), { observe: options.observeTasks, meter: options.meterWorkflows });
    // SIMULATED_CLOCK_SPEED / SIMULATED_CLOCK_START: the market side runs on an accelerated clock, never
    // from before the instant this data directory's clock reached (created_at never goes backwards).
    const marketClock = simulatedClockFromEnv(env, Date.now, readClockMark(dataDir));
    const marketNow = options.marketNow ?? (marketClock ? () => marketClock.clock.now() : undefined);
    const services: Services = createServices(config, { workflows, ...(marketNow ? { marketNow } : {}) });
    await ensureTable(services.db);

    // A data directory kept from an older version has its stored shapes brought to the newest (docs/data-model.md "Migrations").
    await migrate(services.db);
    const username = env.ADMIN_USERNAME || "admin";
    const existing = await services.auth.users.findByUsername(username);
    let generatedAdminPassword: string | undefined;
    if (!existing) {
      const { password, generated } = adminPassword(env, dataDir);
      await ensureAdministrator(services.users, { username, email: env.ADMIN_EMAIL || `${username}@localhost.localdomain`, password });
      if (generated) generatedAdminPassword = password;
    }

    const app = createApp(services);
    const gateway = new LocalWebSocketGateway(services);
    mountConsole(app);
    const listenHost = env.HOST || "127.0.0.1";
    // The @connections management API is answered by the server ahead of the app (node's own request, before node-server makes one for Hono).
    const createServerWithManagementApi = ((options: ServerOptions, listener: RequestListener) =>
      createServer(options, gateway.withManagementApi(listener))) as typeof createServer;
    server = await new Promise<Server>((resolveServer, reject) => {
      const started = serve({ fetch: app.fetch, port, hostname: listenHost, createServer: createServerWithManagementApi }, () =>
        resolveServer(started as Server),
      ) as Server;
      started.once("error", (error: NodeJS.ErrnoException) => reject(error.code === "EADDRINUSE" ? new PortInUseError(listenHost, port) : error));
    });
    gateway.attach(server);
    // The event-source mapping's stand-in: queued work in the table is picked up (again, after a restart).
    const queueRunner =
      services.jobs instanceof TableQueue ? new LocalQueueRunner(services.jobs, localQueueHandlers(built), { batchSizes: localBatchSizes() }) : undefined;
    await queueRunner?.start();
    // The schedules' stand-ins (the polling gap fill, the day rollover); what is due is the clock's call.
    const stopSchedules = options.schedules === false ? async () => {} : startLocalSchedules(localScheduleHandlers(built, workflows), marketClock?.speed);
    // Executions of the local runner did not survive the last stop: active backtests start again from their checkpoints.
    if (services.workflows === workflows) {
      await Backtests.recover(services.trading.backtests).catch((error) => log.error("Backtest recovery failed", { error: String(error) }));
      await Sweeps.recover(services.trading.backtests).catch((error) => log.error("Sweep recovery failed", { error: String(error) }));
    }
    // The accelerated clock starts from its start now that everything is up (starting took seconds, minutes of market time).
    marketClock?.clock.restart();
    // The instant the clock reached, kept in the data directory every wall second and at the stop (docs/operations.md).
    const stopClockMark = marketClock ? keepClockMark(dataDir, marketClock.clock) : undefined;
    // The session worker runs in-process: it drives running simulation and live sessions (SESSION_WORKER=off leaves it out).
    const sessionWorker =
      env.SESSION_WORKER === "off"
        ? undefined
        : new SessionWorker(services, {
            clockSpeed: marketClock?.speed,
            // On an accelerated clock a started session is picked up within market seconds, not minutes.
            ...(marketClock ? { refreshMs: Math.max(250, 2_000 / marketClock.speed) } : {}),
          });
    await sessionWorker?.start();
    const host = env.PUBLIC_HOST || `127.0.0.1:${port}`;
    const urls = {
      base: `http://${host}`,
      api: `http://${host}/api/v1`,
      docs: `http://${host}/docs`,
      console: `http://${host}/console`,
      websocket: `ws://${host}`,
    };
    if (generatedAdminPassword) {
      print(`Administrator '${username}' created with password: ${generatedAdminPassword}`);
      print(`(kept in ${join(dataDir, "admin-password.txt")}; set ADMIN_PASSWORD to choose your own)`);
    }
    if (marketClock)
      print(
        `Simulated clock: ${marketClock.speed}x from ${new Date(marketClock.start).toISOString()} (now ${new Date(marketClock.clock.now()).toISOString()})` +
          (marketClock.asked === undefined
            ? ""
            : ` (not from ${env.SIMULATED_CLOCK_START?.trim() ? "SIMULATED_CLOCK_START " : ""}${new Date(marketClock.asked).toISOString()}: this data directory's clock already went past it and never goes back; a fresh DATA_DIR starts anywhere)`),
      );
    // The URLs come last: "WebSocket:" tells scripts the service is ready.
    print(`API:       ${urls.api}`);
    print(`Docs:      ${urls.docs}`);
    print(`Console:   ${urls.console}`);
    print(`WebSocket: ${urls.websocket}`);
    const runningServer = server;
    const runningDynamo = dynamo;
    return {
      services,
      port,
      urls,
      generatedAdminPassword,
      // The work in flight first (each piece finishes or checkpoints what it holds: a schedule's run, the
      // session worker's step and its leases, the queue's messages, a backtest's task), then the sockets and
      // the port, then the table's client, and DynamoDB Local last: nothing writes to it once it stops.
      async stop() {
        await stopSchedules();
        await sessionWorker?.stop();
        stopClockMark?.();
        await queueRunner?.stop();
        await workflows.stop();
        await gateway.close();
        await new Promise<void>((done) => {
          runningServer.close(() => done());
          // Idle keep-alive connections go now; a request still being answered gets a moment to finish.
          runningServer.closeIdleConnections();
          setTimeout(() => runningServer.closeAllConnections(), 2_000).unref();
        });
        services.db.raw.destroy();
        await runningDynamo?.stop();
      },
    };
  } catch (error) {
    server?.close();
    await dynamo?.stop();
    throw error;
  }
}
