import { randomBytes } from "node:crypto";
import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import { Hono } from "hono";
import { WebSocketServer, type WebSocket } from "ws";
import type { Services } from "@tp/adapters/services";
import { socketHandlers } from "@tp/functions/ws/socket";

/**
 * The local stand-in for an API Gateway WebSocket API: a `ws` server on the HTTP port that
 * calls the very `$connect`/`$disconnect`/`$default` handlers Lambda runs, plus the
 * `@connections` management API on loopback that the push adapter posts to.
 */
export class LocalWebSocketGateway {
  private readonly sockets = new Map<string, WebSocket>();
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly handlers: ReturnType<typeof socketHandlers>;

  constructor(services: Services) {
    this.handlers = socketHandlers(() => Promise.resolve(services));
  }

  /** Handles HTTP upgrades on the server: any path, passed to `$connect` as the `path` query parameter. */
  attach(server: Server): void {
    server.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      void this.upgrade(request, socket, head);
    });
  }

  private async upgrade(request: IncomingMessage, socket: Duplex, head: Buffer) {
    const url = new URL(request.url ?? "/", "http://localhost");
    const connectionId = randomBytes(12).toString("base64url");
    const query: Record<string, string> = Object.fromEntries(url.searchParams);
    const result = await this.handlers.connect({
      requestContext: { connectionId, routeKey: "$connect" },
      queryStringParameters: { ...query, path: url.pathname },
    });
    if (result.statusCode !== 200) {
      const body = result.body ?? "";
      socket.end(
        `HTTP/1.1 ${result.statusCode} Rejected\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
      return;
    }
    this.wss.handleUpgrade(request, socket, head, (ws) => {
      this.sockets.set(connectionId, ws);
      ws.on("message", (data) => {
        void this.handlers.message({ requestContext: { connectionId, routeKey: "$default" }, body: data.toString() });
      });
      ws.on("close", () => {
        this.sockets.delete(connectionId);
        void this.handlers.disconnect({ requestContext: { connectionId, routeKey: "$disconnect" } });
      });
    });
  }

  /** The `@connections` management API (POST to send, DELETE to close, GET to inspect); 410 for a gone connection. */
  managementApi(): Hono {
    const app = new Hono();
    app.post("/@connections/:id", async (c) => {
      const ws = this.sockets.get(c.req.param("id"));
      if (!ws || ws.readyState !== ws.OPEN) return c.json({ message: "Gone" }, 410);
      ws.send(await c.req.text());
      return c.body(null, 200);
    });
    app.delete("/@connections/:id", (c) => {
      const ws = this.sockets.get(c.req.param("id"));
      if (!ws) return c.json({ message: "Gone" }, 410);
      ws.close(1000);
      return c.body(null, 204);
    });
    app.get("/@connections/:id", (c) => (this.sockets.has(c.req.param("id")) ? c.json({ connectionId: c.req.param("id") }) : c.json({ message: "Gone" }, 410)));
    return app;
  }

  async close(): Promise<void> {
    for (const ws of this.sockets.values()) ws.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }
}
