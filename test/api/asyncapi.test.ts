import { readFileSync } from "node:fs";
import { Parser } from "@asyncapi/parser";
import { describe, expect, it } from "vitest";
import { EventType } from "../../packages/core/src/engine/events";
import { createDocsApp } from "../../packages/api/src/app";
import { ASYNCAPI_FILE, embeddedAsyncApiDocument, openApiText } from "../../scripts/openapi";
import { testConfig } from "../support/harness";

interface Document {
  asyncapi: string;
  channels: Record<
    string,
    {
      address: string;
      messages: Record<string, { $ref: string }>;
      parameters?: Record<string, unknown>;
      bindings: { ws: { query: { required: string[]; properties: Record<string, { enum?: string[] }> } } };
    }
  >;
  operations: Record<string, { action: string; channel: { $ref: string }; messages: { $ref: string }[] }>;
  components: {
    schemas: Record<
      string,
      { type?: string; items?: { anyOf?: { $ref: string }[] }; properties?: Record<string, { const?: string; enum?: string[] }>; enum?: string[] }
    >;
    messages: Record<string, { payload: { $ref: string } }>;
  };
}

const written = () => JSON.parse(readFileSync(ASYNCAPI_FILE, "utf8")) as Document;

describe("packages/api/asyncapi.json (the sockets' contract)", () => {
  it("is the embedded app's AsyncAPI document: after changing a socket message, run npm run openapi", async () => {
    expect(readFileSync(ASYNCAPI_FILE, "utf8"), "packages/api/asyncapi.json is stale: run npm run openapi").toBe(openApiText(await embeddedAsyncApiDocument()));
  });

  it("is a valid AsyncAPI 3.0 document for @asyncapi/parser: no error, no warning", async () => {
    const { document, diagnostics } = await new Parser().parse(readFileSync(ASYNCAPI_FILE, "utf8"));
    // Severity 0 is an error, 1 a warning (2 and 3 are hints, such as "3.1.0 exists").
    expect(diagnostics.filter((d) => d.severity <= 1).map((d) => `${d.code}: ${d.message} at ${d.path.join(".")}`)).toEqual([]);
    expect(document?.version()).toBe("3.0.0");
    expect(
      document
        ?.channels()
        .all()
        .map((channel) => channel.address())
        .sort(),
    ).toEqual(["/api/v1/data-sync/logs", "/ws/sessions/{session_id}/channels", "/ws/trading/{session_id}"]);
  });

  it("describes both session paths with the token, the session id, every message the service pushes and the ping it accepts", () => {
    const document = written();
    for (const name of ["sessionTrading", "sessionChannels"]) {
      const channel = document.channels[name]!;
      expect(channel.bindings.ws.query.required).toEqual(["token"]);
      expect(Object.keys(channel.parameters ?? {})).toEqual(["session_id"]);
      const pushed = ["backtest_progress", "batch", "channel_metrics", "channel_update", "engine_event", "error", "pong", "sweep_progress"];
      expect(Object.keys(channel.messages).sort()).toEqual([...pushed, "ping"].sort());
      const sent = Object.values(document.operations).find((operation) => operation.action === "send" && operation.channel.$ref === `#/channels/${name}`)!;
      expect(sent.messages.map((message) => message.$ref.split("/").at(-1)).sort()).toEqual(pushed);
      const received = Object.values(document.operations).find(
        (operation) => operation.action === "receive" && operation.channel.$ref === `#/channels/${name}`,
      )!;
      expect(received.messages).toEqual([{ $ref: `#/channels/${name}/messages/ping` }]);
    }
    // `batch=true`: a frame is an array of the pushed messages (not the answers to the client's own).
    for (const channel of Object.values(document.channels)) expect(channel.bindings.ws.query.properties.batch!.enum).toEqual(["true", "false", "1", "0"]);
    expect(document.components.schemas.SessionMessageBatch!.type).toBe("array");
    expect(document.components.schemas.SessionMessageBatch!.items!.anyOf!.map((schema) => schema.$ref.split("/").at(-1))).toEqual([
      "EngineEventMessage",
      "ChannelUpdateMessage",
      "ChannelMetricsMessage",
      "BacktestProgressMessage",
    ]);
    // The engine's event types come from the engine's own enum.
    expect(document.components.schemas.EngineEventType!.enum).toEqual(EventType.options);
    expect(document.components.schemas.ChannelUpdateMessage!.properties!.type!.const).toBe("channel_update");
  });

  it("describes the data-sync log stream with its required symbol and the interface's four line types", () => {
    const document = written();
    expect(document.channels.dataSyncLogs!.bindings.ws.query.required).toEqual(["symbol"]);
    expect(document.components.schemas.SyncLogMessage!.properties!.type!.enum).toEqual(["log", "status", "error", "success"]);
    expect(Object.keys(document.channels.dataSyncLogs!.messages).sort()).toEqual(["batch", "error", "import_progress", "log", "ping", "pong"]);
    expect(document.components.schemas.ImportProgressMessage!.properties!.type!.const).toBe("import_progress");
  });

  it("is served at /asyncapi.json by the docs function's app as written", async () => {
    const response = await createDocsApp({ config: testConfig(), principals: undefined as never, audit: undefined as never }).request("/asyncapi.json");
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(written());
  });
});
