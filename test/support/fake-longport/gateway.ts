import { randomBytes } from "node:crypto";
import type { IncomingMessage } from "node:http";
import WebSocket from "ws";
import type { CredentialStore } from "./credentials";
import type { PushGate } from "./faults";
import { decodePacket, encodePush, encodeResponse } from "./framing";
import { AuthRequest, AuthResponse, Command, ErrorBody, ReconnectRequest, ReconnectResponse } from "./messages";
import { decode, encode } from "./protobuf";

export type GatewayKind = "quote" | "trade";

/** A refusal of a socket request: the response carries `status` and a `{code, msg}` body. */
export class SocketError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Response statuses the fake uses. LongPort's only one seen in public is 6 with code 403
 * "connections limitation is hit" (a second quote connection); the others are the fake's choice.
 */
export const SocketStatus = { ok: 0, badRequest: 1, unauthenticated: 3, connectionLimit: 6 } as const;

export interface Connection {
  id: number;
  kind: GatewayKind;
  ws: WebSocket;
  /** Set once the socket authenticated (auth or reconnect). */
  appKey?: string;
  sessionId?: string;
  /** Quote subscriptions: symbol → sub types (messages.ts `SubType`). */
  subscriptions: Map<string, Set<number>>;
  /** Trade topics ("private"). */
  topics: Set<string>;
  metadata: Record<string, string>;
}

export interface SocketCommandRecord {
  gateway: GatewayKind;
  command: number;
  /** Wall-clock ms. */
  at: number;
  status: number;
}

export interface GatewayOptions {
  kind: GatewayKind;
  credentials: CredentialStore;
  gate: PushGate;
  /** Authenticated sockets one app key may hold on this gateway at once. */
  connectionLimit: number;
  pingIntervalMs: number;
  records: SocketCommandRecord[];
  /** Answers one authenticated request (a protobuf body); throws SocketError to refuse it. */
  handle: (connection: Connection, command: number, body: Buffer) => Buffer | Promise<Buffer>;
}

const SESSION_MS = 86_400_000;
let nextConnectionId = 1;

/**
 * One WebSocket gateway (quote or trade): LongPort's framing, the control commands (heartbeat,
 * auth with a socket OTP, reconnect with a session id), WebSocket pings (the SDK drops a socket
 * that hears no ping for a while), and pushes through the gateway's gate.
 */
export class Gateway {
  readonly connections = new Set<Connection>();
  /** While true, WebSocket upgrades are refused (HTTP 503), so the SDK's reconnects fail. */
  down = false;
  /** Upgrades refused while down: the SDK's attempts to reconnect. */
  refused = 0;
  private readonly sessions = new Map<string, { appKey: string; expiresAt: number }>();

  constructor(private readonly options: GatewayOptions) {}

  get kind(): GatewayKind {
    return this.options.kind;
  }

  accept(ws: WebSocket, request: IncomingMessage): void {
    const connection: Connection = {
      id: nextConnectionId++,
      kind: this.options.kind,
      ws,
      subscriptions: new Map(),
      topics: new Set(),
      metadata: { "x-remote": request.socket.remoteAddress ?? "" },
    };
    this.connections.add(connection);
    const ping = setInterval(() => ws.readyState === WebSocket.OPEN && ws.ping(), this.options.pingIntervalMs);
    ping.unref();
    ws.on("close", () => {
      clearInterval(ping);
      this.connections.delete(connection);
    });
    ws.on("error", () => undefined);
    ws.on("message", (data, isBinary) => {
      if (!isBinary) return ws.close(1003, "binary packets only");
      void this.onPacket(connection, Buffer.isBuffer(data) ? data : Buffer.concat(data as Buffer[]));
    });
  }

  /** Authenticated sockets, of one app key or all. */
  authenticated(appKey?: string): Connection[] {
    return [...this.connections].filter((c) => c.appKey !== undefined && (appKey === undefined || c.appKey === appKey));
  }

  /** Sends a push to `connection` through the gate (dropped if the socket has closed meanwhile). */
  push(connection: Connection, command: number, body: Buffer): void {
    this.options.gate.send(() => {
      if (connection.ws.readyState === WebSocket.OPEN) connection.ws.send(encodePush(command, body));
    });
  }

  /**
   * Drops every socket: `terminate` cuts the TCP connection as a crash does; `close` sends a close
   * frame first. Either way the SDK reconnects by itself (2 s later, then resubscribes).
   */
  drop(how: "terminate" | "close" = "terminate", code = 1001, reason = "server going away"): number {
    const count = this.connections.size;
    for (const c of this.connections) {
      if (how === "terminate") c.ws.terminate();
      else c.ws.close(code, reason);
    }
    return count;
  }

  /** Forgets sessions, so a reconnect must authenticate anew with a fresh OTP. */
  expireSessions(): void {
    this.sessions.clear();
  }

  private async onPacket(connection: Connection, data: Buffer): Promise<void> {
    let packet: ReturnType<typeof decodePacket>;
    try {
      packet = decodePacket(data);
    } catch {
      return connection.ws.close(1002, "unpack error");
    }
    if (packet.type !== "request") return;
    const { command, requestId } = packet;
    let status: number = SocketStatus.ok;
    let body: Buffer;
    try {
      body = await this.answer(connection, command, packet.body);
    } catch (error) {
      const refusal = error instanceof SocketError ? error : new SocketError(SocketStatus.badRequest, 500000, (error as Error).message);
      status = refusal.status;
      body = encode(ErrorBody, { code: refusal.code, msg: refusal.message });
    }
    this.options.records.push({ gateway: this.options.kind, command, at: Date.now(), status });
    if (connection.ws.readyState === WebSocket.OPEN) connection.ws.send(encodeResponse(command, requestId, status, body));
    if (status === SocketStatus.connectionLimit) setTimeout(() => connection.ws.close(1008, "connections limitation is hit"), 20);
  }

  private answer(connection: Connection, command: number, body: Buffer): Buffer | Promise<Buffer> {
    switch (command) {
      case Command.heartbeat:
        return body;
      case Command.auth: {
        const request = decode<{ token: string; metadata: Record<string, string> }>(AuthRequest, body);
        const appKey = this.options.credentials.useOtp(request.token);
        if (!appKey) throw new SocketError(SocketStatus.unauthenticated, 401004, "token invalid");
        return this.open(connection, appKey, randomBytes(16).toString("hex"), request.metadata, false);
      }
      case Command.reconnect: {
        const request = decode<{ session_id: string; metadata: Record<string, string> }>(ReconnectRequest, body);
        const session = this.sessions.get(request.session_id);
        if (!session || session.expiresAt < Date.now()) throw new SocketError(SocketStatus.unauthenticated, 401004, "session expired");
        return this.open(connection, session.appKey, request.session_id, request.metadata, true);
      }
      default:
        if (connection.appKey === undefined) throw new SocketError(SocketStatus.unauthenticated, 401004, "not authenticated");
        return this.options.handle(connection, command, body);
    }
  }

  private open(connection: Connection, appKey: string, sessionId: string, metadata: Record<string, string>, reconnect: boolean): Buffer {
    const online = this.authenticated(appKey).filter((c) => c !== connection).length;
    if (online >= this.options.connectionLimit) throw new SocketError(SocketStatus.connectionLimit, 403, "connections limitation is hit");
    const expiresAt = Date.now() + SESSION_MS;
    this.sessions.set(sessionId, { appKey, expiresAt });
    Object.assign(connection, { appKey, sessionId });
    Object.assign(connection.metadata, metadata);
    // Auth answers the deadline as epoch ms; the SDK reads a reconnect's `expires` as a duration.
    const expires = reconnect ? SESSION_MS : expiresAt;
    return encode(reconnect ? ReconnectResponse : AuthResponse, { session_id: sessionId, expires, limit: this.options.connectionLimit, online: online + 1 });
  }
}
