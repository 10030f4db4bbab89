import { serve } from "@hono/node-server";
import { Hono } from "hono";

// The bare baseline: one Hono route on @hono/node-server, nothing else.
const app = new Hono().get("/hello", (c) => c.json({ hello: "world" }));
const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, (info) => {
  console.log(`API:       http://127.0.0.1:${info.port}/api/v1`);
  console.log(`WebSocket: ws://127.0.0.1:${info.port}`);
});
process.on("SIGINT", () => server.close(() => process.exit(0)));
