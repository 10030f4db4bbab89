import { z } from "zod";
import { BacktestProgress } from "./backtests/backtests";
import { SweepProgress } from "./backtests/sweep-model";
import { EventType } from "./engine/events";
import { StockImportStatus } from "./imports/index";
import { ChannelMetrics, ChannelStatusValue } from "./trading/channels/schemas";

/**
 * The messages of the service's two sockets as zod schemas: the data-sync log stream
 * (`/api/v1/data-sync/logs?symbol=`) and a session's stream (`/ws/trading/{session_id}`,
 * `/ws/sessions/{session_id}/channels`). The AsyncAPI document (`/asyncapi.json`) is generated
 * from them; docs/channels.md and docs/data-sync.md say when each is sent.
 */

const Timestamp = z.string().describe("ISO 8601 UTC instant");

/** What a client sends on either socket: `{"type":"ping"}` (every 15 s, the interface's heartbeat). */
export const SocketPing = z.object({ type: z.literal("ping") }).meta({ id: "SocketPing", description: "Heartbeat: the service answers `pong`" });

export const SocketPong = z
  .object({ type: z.literal("pong"), data: z.object({}), timestamp: Timestamp })
  .meta({ id: "SocketPong", description: "The answer to `ping`" });

export const SocketError = z
  .object({ type: z.literal("error"), data: z.object({ message: z.string() }), timestamp: Timestamp })
  .meta({ id: "SocketError", description: 'The answer to a client message that is not `{"type":"ping"}`' });

/** A line of the data-sync log stream of one symbol. */
export const SyncLogMessage = z
  .object({
    type: z.enum(["log", "status", "error", "success"]),
    message: z.string(),
    timestamp: Timestamp,
    sequence: z.int().describe("Increases by one per line of the symbol's stream"),
  })
  .meta({ id: "SyncLogMessage", description: "A log line of the symbol's sync: only lines produced after the connection are pushed" });
export type SyncLogMessage = z.infer<typeof SyncLogMessage>;

/** An import's progress on the log stream of its symbol. */
export const ImportProgressMessage = z
  .object({
    type: z.literal("import_progress"),
    message: z.string().describe("The progress in words"),
    timestamp: Timestamp,
    sequence: z.int().describe("Increases by one per message of the symbol's stream"),
    data: StockImportStatus,
  })
  .meta({
    id: "ImportProgressMessage",
    description:
      "An import of the symbol's candles after each chunk it committed and when it ended: the task's status view, as GET /api/v1/stock-import/status/{task_id} answers",
  });
export type ImportProgressMessage = z.infer<typeof ImportProgressMessage>;

/** The fields every engine event's `data` carries on the session stream besides its own. */
const EngineEventData = z
  .object({
    channel_id: z.string().nullable().describe("The channel the event belongs to (null for the session's own)"),
    sequence: z.int().describe("The event's place in the session's event log"),
    event_time: Timestamp.optional().describe("The engine's clock when the event happened (the bar's time in a replay or backtest)"),
    run_id: z.string().optional().describe("A replay's run id (replays only)"),
    replay: z.boolean().optional().describe("True on a replay's events"),
  })
  .catchall(z.unknown())
  .describe("The event's own fields (docs/trading-engine.md, Events) and these");

export const EngineEventMessage = z.object({ type: EventType, data: EngineEventData, timestamp: Timestamp }).meta({
  id: "EngineEventMessage",
  description: "An entry of the session's event log (orders, fills, positions, risk events, alerts, channel status, logs, …)",
});

export const ChannelUpdateData = z
  .object({
    channel_id: z.string(),
    status: ChannelStatusValue,
    metrics: z.object({ total_pnl: z.number(), win_rate: z.number(), total_trades: z.int() }),
    cause: z
      .enum(["fill", "status_change"])
      .describe(
        "`fill`: after an `order_filled`; `status_change`: after a `channel_status` event (the channel's own start, pause, resume or stop, or its session's, which names `session_action`)",
      ),
    sequence: z.int().describe("The sequence of the event that caused it (`order_filled` or `channel_status`), pushed just before it"),
  })
  .meta({ id: "ChannelUpdateData" });
export type ChannelUpdateData = z.infer<typeof ChannelUpdateData>;

export const ChannelUpdateMessage = z
  .object({ type: z.literal("channel_update"), data: ChannelUpdateData, timestamp: Timestamp })
  .meta({ id: "ChannelUpdateMessage", description: "A channel's status and figures after a fill or a status change" });

export const ChannelMetricsMessage = z
  .object({ type: z.literal("channel_metrics"), data: ChannelMetrics, timestamp: Timestamp })
  .meta({ id: "ChannelMetricsMessage", description: "A channel's figures, every 15 s while its session's run changes" });

export const BacktestProgressMessage = z.object({ type: z.literal("backtest_progress"), data: BacktestProgress, timestamp: Timestamp }).meta({
  id: "BacktestProgressMessage",
  description:
    "A backtest's stage and progress after each task of its workflow (prepare, every chunk, finalize): what GET /api/v1/backtest/{backtest_id}/progress answers",
});

export const SweepProgressMessage = z.object({ type: z.literal("sweep_progress"), data: SweepProgress, timestamp: Timestamp }).meta({
  id: "SweepProgressMessage",
  description:
    "A walk-forward's progress after each chunk of its in-sample grid (its points run in process, a chunk per task; they push no backtest_progress): what GET /api/v1/backtest/sweeps/{sweep_id} answers",
});

/** Every message the service pushes on a session's stream (and `GET …/updates` returns). */
export const SessionStreamMessages = {
  engine_event: EngineEventMessage,
  channel_update: ChannelUpdateMessage,
  channel_metrics: ChannelMetricsMessage,
  backtest_progress: BacktestProgressMessage,
  sweep_progress: SweepProgressMessage,
  pong: SocketPong,
  error: SocketError,
} as const;

/** Every message the service pushes on a symbol's log stream. */
export const SyncLogStreamMessages = { log: SyncLogMessage, import_progress: ImportProgressMessage, pong: SocketPong, error: SocketError } as const;

const BATCH_DESCRIPTION =
  "On a socket opened with `batch=true`: the messages of one push, in order, in one frame (a JSON array; a push larger than 96 KB in several). The answers to the client's own messages (`pong`, `error`) stay single messages.";

/** A frame of a session stream opened with `batch=true`: the session's pushed messages of one step, in order. */
export const SessionMessageBatch = z
  .array(z.union([EngineEventMessage, ChannelUpdateMessage, ChannelMetricsMessage, BacktestProgressMessage]))
  .meta({ id: "SessionMessageBatch", description: BATCH_DESCRIPTION });

/** A frame of a symbol's log stream opened with `batch=true`. */
export const SyncLogMessageBatch = z
  .array(z.union([SyncLogMessage, ImportProgressMessage]))
  .meta({ id: "SyncLogMessageBatch", description: BATCH_DESCRIPTION });
