import { randomBytes } from "node:crypto";
import type { IncomingMessage, RequestListener, Server } from "node:http";
import type { Duplex } from "node:stream";
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

  /**
   * The HTTP server's listener with the `@connections` management API (POST to send, DELETE to
   * close, GET to inspect; 410 for a gone connection) answered ahead of `app`: API Gateway serves
   * it beside the application, not through it, so a push here takes none of the app's middleware
   * (the session worker posts every message of a step: docs/benchmarks.md "Session worker").
   */
  withManagementApi(app: RequestListener): RequestListener {
    return (request, response) => {
      const path = request.url ?? "";
      if (!path.startsWith("/@connections/")) return app(request, response);
      const id = decodeURIComponent(path.slice("/@connections/".length).split("?")[0]!);
      const ws = this.sockets.get(id);
      const answer = (status: number, body?: unknown) => {
        if (body === undefined) return void response.writeHead(status).end();
        response.writeHead(status, { "Content-Type": "application/json" }).end(JSON.stringify(body));
      };
      if (request.method === "POST") {
        const chunks: Buffer[] = [];
        request.on("data", (chunk: Buffer) => chunks.push(chunk));
        request.on("end", () => {
          if (!ws || ws.readyState !== ws.OPEN) return answer(410, { message: "Gone" });
          ws.send(Buffer.concat(chunks), { binary: false });
          answer(200);
        });
        return;
      }
      if (!ws) return answer(410, { message: "Gone" });
      if (request.method === "DELETE") {
        ws.close(1000);
        return answer(204);
      }
      answer(200, { connectionId: id });
    };
  }

  async close(): Promise<void> {
    for (const ws of this.sockets.values()) ws.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }
}
