import { type ApiKeyGrant, checkScope } from "./api-keys";
import { badRequest } from "./errors";
import type { Actor } from "./users";
import { jsonArrays } from "./util/json-parts";

/** A WebSocket connection subscribed to one topic (`logs:<symbol>`, `session:<id>`). */
export interface Connection {
  connection_id: string;
  topic: string;
  user_id?: string;
  connected_at: string;
  /** Epoch seconds; API Gateway drops idle connections after 2 hours, so the item expires too. */
  expires_at: number;
  /** The client asked for batches (`?batch=true`): the messages of one publish reach it as JSON arrays, one frame per `BATCH_FRAME_BYTES`. */
  batch?: boolean;
}

/** Storage port for connections, listed by topic. */
export interface ConnectionStore {
  add(connection: Connection): Promise<void>;
  remove(connectionId: string): Promise<Connection | undefined>;
  byTopic(topic: string): Promise<Connection[]>;
  /** `byTopic` of many topics in as few requests as hold them (the session worker's step): every topic asked for is in the answer. */
  byTopics?(topics: readonly string[]): Promise<Map<string, Connection[]>>;
}

/** Sends to one connection; "gone" when the client has left (API Gateway's 410). */
export interface ConnectionPusher {
  post(connectionId: string, data: string): Promise<"sent" | "gone">;
}

export interface RealtimeDeps {
  connections: ConnectionStore;
  pusher: ConnectionPusher;
  /** The wall clock: a connection's times and its expiry (DynamoDB's TTL reads real time). */
  now: () => number;
  /** The market's clock, which every push is stamped with (npm start's accelerated clock; else `now`): the answers to a client's messages too. */
  marketNow?: () => number;
  /**
   * Resolves a sign-in token or an API key to who acts (a key's user, limited to its sessions) and,
   * for a key, its grant; throws a 401 DomainError when invalid.
   */
  authenticate: (token: string) => Promise<{ actor: Actor; key?: ApiKeyGrant }>;
  /**
   * Whether the actor may listen to a session's topic: throws 404 `SESSION_NOT_FOUND` for an
   * unknown session and 403 `ACCESS_DENIED` for someone else's or one outside a key's sessions.
   */
  authorizeSession: (actor: Actor, sessionId: string) => Promise<void>;
}

/** What a socket's path asks for. */
export interface TopicRequest {
  topic: string;
  requiresAuth: boolean;
  /** The session a session stream watches. */
  sessionId?: string;
}

/** The route pattern a session stream's scope is checked against (the AsyncAPI document's channel). */
const SESSION_STREAM_ROUTE = "/ws/trading/{session_id}";

const CONNECTION_LIFETIME_SECONDS = 2 * 3600;

/**
 * The most one batched frame carries (its JSON text): API Gateway posts at most 128 KB per message.
 * A message larger than this on its own goes in a frame of its own.
 */
export const BATCH_FRAME_BYTES = 96 * 1024;

/** The `batch` query parameter: absent, `true`/`1` or `false`/`0`. */
function batchOf(value: string | undefined): boolean {
  if (value === undefined || value === "false" || value === "0") return false;
  if (value === "true" || value === "1") return true;
  throw badRequest("INVALID_PARAMETER", "Query parameter 'batch' must be true or false");
}

/**
 * The frames that carry `bodies` (each a message's JSON text) to one connection, with how many
 * messages each holds: a frame per message, or for a connection that asked for batches, JSON arrays
 * of as many messages as fit in `BATCH_FRAME_BYTES`, in order.
 */
export function framesOf(bodies: readonly string[], batch: boolean | undefined): { text: string; count: number }[] {
  if (!batch) return bodies.map((text) => ({ text, count: 1 }));
  return jsonArrays(bodies, { bytes: BATCH_FRAME_BYTES });
}

export const Topics = {
  /**
   * Maps the interface's WebSocket paths to topics: the data-sync log stream by symbol, and
   * a session's channel updates (both spellings the interface shows).
   */
  parse(path: string, query: Record<string, string | undefined>): TopicRequest {
    const clean = path.replace(/\/+$/, "");
    if (clean === "/api/v1/data-sync/logs") {
      const symbol = query.symbol?.trim();
      if (!symbol) throw badRequest("INVALID_PARAMETER", "Query parameter 'symbol' is required");
      return { topic: `logs:${symbol.toUpperCase()}`, requiresAuth: false };
    }
    const session = /^\/ws\/trading\/([^/]+)$/.exec(clean) ?? /^\/ws\/sessions\/([^/]+)\/channels$/.exec(clean);
    if (session) {
      const sessionId = decodeURIComponent(session[1]!);
      return { topic: `session:${sessionId}`, requiresAuth: true, sessionId };
    }
    throw badRequest("INVALID_PARAMETER", `No WebSocket stream at ${path}`);
  },
};

export const Realtime = {
  /** Registers a connection for the topic its path names; a session stream needs a valid token. */
  async connect(deps: RealtimeDeps, input: { connectionId: string; path: string; query: Record<string, string | undefined> }): Promise<Connection> {
    const request = Topics.parse(input.path, input.query);
    const batch = batchOf(input.query.batch);
    let userId: string | undefined;
    if (request.requiresAuth) {
      const token = input.query.token;
      if (!token) throw badRequest("UNAUTHORIZED", "Query parameter 'token' is required");
      const { actor, key } = await deps.authenticate(token);
      // Watching a stream reads: a key needs `read` (or `admin`), as a GET of the session would.
      if (key) checkScope(key, "GET", SESSION_STREAM_ROUTE);
      if (request.sessionId !== undefined) await deps.authorizeSession(actor, request.sessionId);
      userId = actor.id;
    }
    const connection: Connection = {
      connection_id: input.connectionId,
      topic: request.topic,
      user_id: userId,
      connected_at: new Date(deps.now()).toISOString(),
      expires_at: Math.floor(deps.now() / 1000) + CONNECTION_LIFETIME_SECONDS,
      ...(batch ? { batch } : {}),
    };
    await deps.connections.add(connection);
    return connection;
  },

  async disconnect(deps: RealtimeDeps, connectionId: string): Promise<void> {
    await deps.connections.remove(connectionId);
  },

  /** A client message: `{type: "ping"}` answers `{type: "pong"}`; anything else an error message. */
  async message(deps: RealtimeDeps, connectionId: string, body: string | undefined): Promise<void> {
    let type: unknown;
    try {
      type = (JSON.parse(body ?? "") as { type?: unknown }).type;
    } catch {
      type = undefined;
    }
    // On the clock of the pushes around it: a client that orders what it receives by timestamp sees a pong in place.
    const timestamp = new Date((deps.marketNow ?? deps.now)()).toISOString();
    const reply = type === "ping" ? { type: "pong", data: {}, timestamp } : { type: "error", data: { message: 'Send JSON like {"type":"ping"}' }, timestamp };
    const outcome = await deps.pusher.post(connectionId, JSON.stringify(reply));
    if (outcome === "gone") await deps.connections.remove(connectionId);
  },

  /** Posts a message to every connection of a topic, deleting the ones that are gone. Returns how many received it. */
  async publish(deps: RealtimeDeps, topic: string, message: unknown): Promise<number> {
    return Realtime.publishMany(deps, topic, [message]);
  },

  /**
   * Posts messages to every connection of a topic (looked up once): in order on each connection,
   * the connections side by side; a connection that asked for batches gets them in as few frames
   * as hold them (`framesOf`: one post where a message each took one). A connection that is gone
   * gets no more and is deleted. Returns how many messages were delivered.
   */
  async publishMany(deps: RealtimeDeps, topic: string, messages: readonly unknown[]): Promise<number> {
    if (messages.length === 0) return 0;
    const connections = await deps.connections.byTopic(topic);
    if (connections.length === 0) return 0;
    const data = messages.map((message) => JSON.stringify(message));
    const sent = await Promise.all(
      connections.map(async (connection) => {
        let count = 0;
        for (const frame of framesOf(data, connection.batch)) {
          if ((await deps.pusher.post(connection.connection_id, frame.text)) === "gone") {
            await deps.connections.remove(connection.connection_id);
            break;
          }
          count += frame.count;
        }
        return count;
      }),
    );
    return sent.reduce((a, b) => a + b, 0);
  },
};
