import { z } from "zod";
import { SessionMessageBatch, SessionStreamMessages, SocketPing, SyncLogMessageBatch, SyncLogStreamMessages } from "@tp/core/streams";

/**
 * The AsyncAPI 3.0 document of the service's two sockets, generated from the zod schemas of
 * their messages (`@tp/core/streams`). The document describes the service: `send` operations
 * are what it pushes, `receive` what it accepts from clients. Served at `/asyncapi.json`
 * (written to packages/api/asyncapi.json by `npm run openapi` for the docs function).
 */

type Json = Record<string, unknown>;

/** Replaces `#/definitions/X` (zod's shared schemas) by `#/components/schemas/X` and collects them. */
function hoist(schema: Json, shared: Record<string, Json>): Json {
  const { definitions, $schema: _draft, ...rest } = schema as Json & { definitions?: Record<string, Json> };
  const relink = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(relink);
    if (value && typeof value === "object") {
      return Object.fromEntries(
        Object.entries(value).map(([key, inner]) => [
          key,
          key === "$ref" && typeof inner === "string" ? inner.replace("#/definitions/", "#/components/schemas/") : relink(inner),
        ]),
      );
    }
    return value;
  };
  for (const [name, definition] of Object.entries(definitions ?? {})) shared[name] = relink(definition) as Json;
  return relink(rest) as Json;
}

const idOf = (schema: z.ZodType) => (schema.meta() as { id?: string } | undefined)?.id ?? "";
const descriptionOf = (schema: z.ZodType) => (schema.meta() as { description?: string } | undefined)?.description;

/** The document. Pure: the same on every call. */
export function asyncApiDocument(version = "0.1.0"): Json {
  const schemas: Record<string, Json> = {};
  const messages: Record<string, Json> = {};
  const message = (name: string, schema: z.ZodType) => {
    const id = idOf(schema);
    // zod writes a schema with an id as a reference to its own definition, now a component like the others.
    const json = hoist(z.toJSONSchema(schema, { target: "draft-7", io: "output", unrepresentable: "any" }) as Json, schemas);
    if (json.$ref !== `#/components/schemas/${id}`) schemas[id] = json;
    messages[id] = {
      name,
      title: id,
      summary: descriptionOf(schema),
      contentType: "application/json",
      payload: { $ref: `#/components/schemas/${id}` },
    };
    return { $ref: `#/components/messages/${id}` };
  };

  const sessionMessages = Object.fromEntries(
    Object.entries({ ...SessionStreamMessages, batch: SessionMessageBatch }).map(([name, schema]) => [name, message(name, schema)]),
  );
  const logMessages = Object.fromEntries(
    Object.entries({ ...SyncLogStreamMessages, batch: SyncLogMessageBatch }).map(([name, schema]) => [name, message(name, schema)]),
  );
  const ping = message("ping", SocketPing);

  const sessionParameters = { session_id: { description: "The trading session to follow (unknown: the handshake answers 404; someone else's: 403)" } };
  const batchQuery = {
    type: "string",
    enum: ["true", "false", "1", "0"],
    description:
      "`true`: every push comes as a JSON array of messages (`batch`), one frame where a message each took one (the session worker pushes a session's messages of a step together). Absent or `false`: one message per frame. Anything else answers 400 at the handshake.",
  };
  const tokenQuery = {
    ws: {
      query: {
        type: "object",
        properties: {
          token: { type: "string", description: "An access token from POST /api/v1/login (browsers cannot send headers on a WebSocket upgrade)" },
          batch: batchQuery,
        },
        required: ["token"],
      },
      bindingVersion: "0.1.0",
    },
  };
  const sessionChannel = (address: string, description: string) => ({
    address,
    title: "Session stream",
    description,
    parameters: sessionParameters,
    messages: { ...sessionMessages, ping },
    bindings: tokenQuery,
  });
  const pushed = (channel: string, names: string[]) => names.map((name) => ({ $ref: `#/channels/${channel}/messages/${name}` }));
  const sessionNames = Object.keys(sessionMessages);
  const logNames = Object.keys(logMessages);

  return {
    asyncapi: "3.0.0",
    info: {
      title: "Trading platform sockets",
      version,
      description:
        'The WebSocket streams of the trading-platform service. Every message is JSON. A client sends `{"type":"ping"}` every 15 s and gets `pong`. Reconnect rules (the interface\'s): on a close other than 1000, reconnect after 1 s, 3 s, 10 s, at most 3 tries; after reconnecting, read `GET /api/v1/sessions/{session_id}/updates?since=<last timestamp seen>` (repeat while `has_more`) before new pushes, and drop any push whose `timestamp` is not after the last one handled. The HTTP API: /openapi.json.',
    },
    defaultContentType: "application/json",
    servers: {
      service: {
        host: "{host}",
        protocol: "ws",
        description: "The service: the same host and port as the HTTP API (npm start prints `WebSocket: ws://…`; on AWS the `WebSocketUrl` output, wss)",
        variables: { host: { default: "127.0.0.1:3000", description: "host:port of the service" } },
      },
    },
    channels: {
      dataSyncLogs: {
        address: "/api/v1/data-sync/logs",
        title: "Data-sync log stream",
        description: "Log lines of one symbol's sync, from the connection on (no history). No token needed; `symbol` missing answers 400 at the handshake.",
        messages: { ...logMessages, ping },
        bindings: {
          ws: {
            query: {
              type: "object",
              properties: { symbol: { type: "string", description: "The symbol, e.g. AAPL.US (case-insensitive)" }, batch: batchQuery },
              required: ["symbol"],
            },
            bindingVersion: "0.1.0",
          },
        },
      },
      sessionTrading: sessionChannel(
        "/ws/trading/{session_id}",
        "A session's stream: the interface's path. Every push is also kept in the session's update feed (`GET …/updates?since=`) for a day.",
      ),
      sessionChannels: sessionChannel("/ws/sessions/{session_id}/channels", "The same stream under the path of the interface's client example."),
    },
    operations: {
      sendDataSyncLogs: { action: "send", channel: { $ref: "#/channels/dataSyncLogs" }, title: "Push log lines", messages: pushed("dataSyncLogs", logNames) },
      receiveDataSyncLogsPing: {
        action: "receive",
        channel: { $ref: "#/channels/dataSyncLogs" },
        title: "Heartbeat",
        messages: pushed("dataSyncLogs", ["ping"]),
      },
      sendSessionTrading: {
        action: "send",
        channel: { $ref: "#/channels/sessionTrading" },
        title: "Push session updates",
        messages: pushed("sessionTrading", sessionNames),
      },
      receiveSessionTradingPing: {
        action: "receive",
        channel: { $ref: "#/channels/sessionTrading" },
        title: "Heartbeat",
        messages: pushed("sessionTrading", ["ping"]),
      },
      sendSessionChannels: {
        action: "send",
        channel: { $ref: "#/channels/sessionChannels" },
        title: "Push session updates",
        messages: pushed("sessionChannels", sessionNames),
      },
      receiveSessionChannelsPing: {
        action: "receive",
        channel: { $ref: "#/channels/sessionChannels" },
        title: "Heartbeat",
        messages: pushed("sessionChannels", ["ping"]),
      },
    },
    components: { schemas, messages },
  };
}
