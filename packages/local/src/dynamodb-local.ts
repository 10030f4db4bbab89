import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { createConnection, createServer } from "node:net";
import { dirname, join } from "node:path";

export interface DynamoDbLocal {
  endpoint: string;
  port: number;
  process: ChildProcess;
  /** The emulator's last words on its standard error (up to 4,000 characters): why it exited, when it did. */
  stderr(): string;
  stop(): Promise<void>;
}

export class JavaMissingError extends Error {
  constructor() {
    super(
      "DynamoDB Local needs Java 17 or newer: install it (Debian/Ubuntu: `sudo apt-get install -y openjdk-17-jre-headless`; macOS: `brew install openjdk@17`) and run again.",
    );
    this.name = "JavaMissingError";
  }
}

/** A free TCP port on loopback. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: "127.0.0.1" });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/** The emulator's folder inside the `amplify-dynamodb-simulator` package. */
function emulatorDirectory(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve("amplify-dynamodb-simulator/package.json")), "emulator");
}

/**
 * Starts the official DynamoDB Local emulator on a free loopback port: persisted under
 * `dataDir`, or in memory when none is given (tests); its Java heap `heap` (1 GB by default, `"6g"`
 * for a bench of 10,000 sessions).
 */
export async function startDynamoDbLocal(options: { dataDir?: string; port?: number; heap?: string } = {}): Promise<DynamoDbLocal> {
  const java = spawnSync("java", ["-version"], { stdio: "ignore" });
  if (java.error || java.status !== 0) throw new JavaMissingError();
  const port = options.port ?? (await freePort());
  const emulator = emulatorDirectory();
  const storage = options.dataDir ? ["-sharedDb", "-dbPath", options.dataDir] : ["-sharedDb", "-inMemory"];
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const javaArgs = [
    `-Xmx${options.heap ?? "1g"}`,
    `-Djava.library.path=${join(emulator, "DynamoDBLocal_lib")}`,
    "-jar",
    join(emulator, "DynamoDBLocal.jar"),
    "-port",
    String(port),
    ...storage,
  ];
  // Ctrl-C in a terminal sends SIGINT to every process of the foreground group, the emulator included:
  // it would stop while the service still writes to it (ECONNREFUSED during the service's own stop).
  // The emulator is started with SIGINT and SIGHUP ignored (`trap ''` before `exec`: an ignored signal
  // stays ignored across exec, and the JVM installs no handler for a signal ignored at its start), so
  // the runtime that owns it stops it, with SIGTERM, after the service (stop() below). The same pid is
  // java's (exec), and a SIGKILL of the group still takes it.
  const child = spawn("sh", ["-c", `trap '' INT HUP; exec java "$@"`, "java", ...javaArgs], { cwd: emulator, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr?.on("data", (chunk) => (stderr = (stderr + chunk).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  // Whatever ends this process (an uncaught error, process.exit) ends the emulator too: it no longer
  // dies with the terminal's Ctrl-C, so nothing else would.
  const killOnExit = () => child.kill("SIGTERM");
  process.once("exit", killOnExit);
  void exited.then(() => process.off("exit", killOnExit));
  const deadline = Date.now() + 60_000;
  while (!(await canConnect(port))) {
    if (child.exitCode !== null) throw new Error(`DynamoDB Local exited (${child.exitCode}): ${stderr}`);
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`DynamoDB Local did not start within 60 s: ${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    process: child,
    stderr: () => stderr,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}
