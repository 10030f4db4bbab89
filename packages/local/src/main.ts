import { JavaMissingError } from "./dynamodb-local";
import { startLocalRuntime } from "./runtime";

/** `npm start`: the embedded runtime until Ctrl-C, which stops every child process. */
async function main() {
  const runtime = await startLocalRuntime({ env: process.env });
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal} received: stopping...`);
    await runtime.stop();
    process.exit(0);
  };
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
}

main().catch((error) => {
  if (error instanceof JavaMissingError) console.error(error.message);
  else console.error(error);
  process.exit(1);
});
