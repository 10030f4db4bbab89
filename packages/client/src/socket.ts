import type { components } from "./generated/sockets";

type Schemas = components["schemas"];

/** A message of a session's stream (and of `GET …/updates`), as the AsyncAPI document describes it. */
export type SessionMessage =
  | Schemas["EngineEventMessage"]
  | Schemas["ChannelUpdateMessage"]
  | Schemas["ChannelMetricsMessage"]
  | Schemas["BacktestProgressMessage"]
  | Schemas["SocketError"];

/** A message of a symbol's data-sync log stream. */
export type SymbolLogMessage = Schemas["SyncLogMessage"] | Schemas["ImportProgressMessage"] | Schemas["SocketError"];

/** The part of a WebSocket the client uses: the global one (browsers, Node 22) and the `ws` package's both have it. */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: never) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number; reason: string }) => void) | null;
  onerror: ((event: never) => void) | null;
}
export type WebSocketConstructor = new (url: string) => WebSocketLike;

export type SocketStatus = "connecting" | "open" | "reconnecting" | "closed";

export interface SocketOptions {
  /** The WebSocket to open sockets with: the global one by default; on Node 20 pass the `ws` package's. */
  WebSocket?: WebSocketConstructor;
  /** Heartbeat: a `ping` this often (the interface's 15 s). */
  heartbeatMs?: number;
  /** Waits before each reconnect attempt (the interface's 1 s, 3 s, 10 s: at most three attempts in a row). */
  reconnectDelaysMs?: readonly number[];
}

export interface StreamHandlers<Message> {
  /** Every message, once, in order. */
  onMessage: (message: Message) => void;
  /** The connection's state: `closed` is final (a close with 1000, `close()`, or the reconnect attempts used up). */
  onStatus?: (status: SocketStatus, detail: { attempt?: number; code?: number }) => void;
  /** A failure the stream recovers from by reconnecting (or, when it gives up, before `closed`). */
  onError?: (error: unknown) => void;
}

const OPEN = 1;
const NORMAL_CLOSE = 1000;
/** Our own close of a socket whose catch-up failed: reconnected like any other cut. */
const CATCH_UP_FAILED = 4000;

const textOf = (data: unknown) => (typeof data === "string" ? data : data instanceof ArrayBuffer ? new TextDecoder().decode(data) : String(data));

/** The messages of one frame: a message, or on a socket opened with `batch=true` an array of them (asyncapi.json, `batch`). Throws on text that is not JSON. */
const messagesOf = <Message>(text: string): Message[] => {
  const parsed = JSON.parse(text) as Message | Message[];
  return Array.isArray(parsed) ? parsed : [parsed];
};

/**
 * One logical connection over as many sockets as it takes, following the interface's rules:
 * `{"type":"ping"}` every 15 s; after a close other than 1000, reconnect after 1 s, 3 s and
 * 10 s, at most three attempts in a row (an attempt that opens starts the count again).
 */
class ReconnectingSocket {
  private socket: WebSocketLike | undefined;
  private heartbeat: ReturnType<typeof setInterval> | undefined;
  private retry: ReturnType<typeof setTimeout> | undefined;
  private failures = 0;
  private stopped = false;
  private everOpened = false;

  constructor(
    private readonly url: () => string,
    private readonly options: SocketOptions,
    private readonly events: {
      opened: (socket: WebSocketLike, reconnected: boolean) => void;
      data: (text: string) => void;
      status: (status: SocketStatus, detail: { attempt?: number; code?: number }) => void;
      error: (error: unknown) => void;
    },
  ) {}

  start() {
    const WebSocketClass = this.options.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
    if (!WebSocketClass) throw new Error("No WebSocket: pass options.WebSocket (on Node 20, the `ws` package's WebSocket)");
    this.events.status(this.everOpened ? "reconnecting" : "connecting", { attempt: this.failures });
    const socket = new WebSocketClass(this.url());
    this.socket = socket;
    socket.onopen = () => {
      if (this.socket !== socket) return;
      const reconnected = this.everOpened;
      this.everOpened = true;
      this.failures = 0;
      this.heartbeat = setInterval(() => {
        if (socket.readyState === OPEN) socket.send(JSON.stringify({ type: "ping" }));
      }, this.options.heartbeatMs ?? 15_000);
      this.events.status("open", {});
      this.events.opened(socket, reconnected);
    };
    socket.onmessage = (event) => {
      if (this.socket === socket) this.events.data(textOf(event.data));
    };
    socket.onerror = () => undefined;
    socket.onclose = (event) => {
      if (this.socket !== socket) return;
      clearInterval(this.heartbeat);
      this.socket = undefined;
      if (this.stopped || event.code === NORMAL_CLOSE) return this.finish(event.code);
      const delays = this.options.reconnectDelaysMs ?? [1_000, 3_000, 10_000];
      if (this.failures >= delays.length) {
        this.events.error(new Error(`The socket closed (${event.code}) and ${delays.length} reconnect attempts failed`));
        return this.finish(event.code);
      }
      const delay = delays[this.failures]!;
      this.failures += 1;
      this.events.status("reconnecting", { attempt: this.failures, code: event.code });
      this.retry = setTimeout(() => this.start(), delay);
    };
  }

  /** Closes the socket for good (close code 1000). */
  stop() {
    this.stopped = true;
    clearTimeout(this.retry);
    const socket = this.socket;
    if (socket) socket.close(NORMAL_CLOSE);
    else this.finish(NORMAL_CLOSE);
  }

  private finish(code: number) {
    this.stopped = true;
    clearInterval(this.heartbeat);
    this.events.status("closed", { code });
  }
}

/** One page of a session's update feed (`GET /api/v1/sessions/{session_id}/updates`). */
export interface UpdatesPage {
  updates: { type: string; data: Record<string, unknown>; timestamp: string }[];
  last_timestamp: string | null;
  has_more: boolean;
}

/** Records of a driven run (replays, historical MTF runs) carry `run_id`: they are pushed but not kept in the feed. */
const inFeed = (message: { data?: unknown }) => !(message.data && typeof message.data === "object" && "run_id" in message.data);

/**
 * A session's stream as one ordered sequence without gaps or repeats. Before the first socket
 * opens it reads where the session's update feed ends (or starts from `since`); after every open
 * it catches up through `updates?since=` the last timestamp it delivered (page by page), holding
 * the socket's pushes meanwhile, then hands on the held pushes that are newer. Pushes of driven
 * runs (they carry `run_id` and are not kept in the feed) are handed on as they come.
 */
export class SessionStream {
  private last: string | undefined;
  private held: SessionMessage[] | undefined = [];
  private readonly socket: ReconnectingSocket;

  constructor(
    private readonly source: { url: () => string; updates: (since: string | undefined) => Promise<UpdatesPage> },
    private readonly handlers: StreamHandlers<SessionMessage> & { onPong?: () => void },
    options: SocketOptions & { since?: string },
  ) {
    this.last = options.since;
    this.socket = new ReconnectingSocket(source.url, options, {
      opened: (socket) => void this.catchUp(socket),
      data: (text) => this.receive(text),
      status: (status, detail) => handlers.onStatus?.(status, detail),
      error: (error) => handlers.onError?.(error),
    });
  }

  /** The timestamp of the last message handed on (the `since` of the next catch-up). */
  get lastTimestamp(): string | undefined {
    return this.last;
  }

  /** Reads where the feed ends (unless `since` was given), then opens the first socket. */
  async start(): Promise<this> {
    if (this.last === undefined) {
      for (let page = await this.source.updates(undefined); ; page = await this.source.updates(page.last_timestamp ?? undefined)) {
        this.last = page.last_timestamp ?? this.last;
        if (!page.has_more) break;
      }
    }
    this.socket.start();
    return this;
  }

  close() {
    this.socket.stop();
  }

  private receive(text: string) {
    let messages: (SessionMessage | { type: "pong" })[];
    try {
      messages = messagesOf(text);
    } catch (error) {
      this.handlers.onError?.(error);
      return;
    }
    for (const message of messages) {
      if (message.type === "pong") this.handlers.onPong?.();
      else if (this.held) this.held.push(message as SessionMessage);
      else this.deliver(message as SessionMessage);
    }
  }

  private deliver(message: SessionMessage) {
    if (inFeed(message)) {
      if (this.last !== undefined && message.timestamp <= this.last) return;
      this.last = message.timestamp;
    }
    this.handlers.onMessage(message);
  }

  private async catchUp(socket: WebSocketLike) {
    this.held ??= [];
    try {
      for (;;) {
        const page = await this.source.updates(this.last);
        for (const update of page.updates) this.deliver(update as SessionMessage);
        if (!page.has_more) break;
      }
    } catch (error) {
      this.handlers.onError?.(error);
      // Reconnect and try again; what was held is read from the feed then.
      this.held = [];
      socket.close(CATCH_UP_FAILED, "catch-up failed");
      return;
    }
    const held = this.held;
    this.held = undefined;
    for (const message of held) this.deliver(message);
  }
}

/**
 * A symbol's data-sync log stream: only lines produced while connected are pushed (the service
 * keeps no history of them), so after a reconnect it carries on with new lines.
 */
export class SymbolLogStream {
  private readonly socket: ReconnectingSocket;

  constructor(url: () => string, handlers: StreamHandlers<SymbolLogMessage> & { onPong?: () => void }, options: SocketOptions) {
    this.socket = new ReconnectingSocket(url, options, {
      opened: () => undefined,
      data: (text) => {
        let messages: (SymbolLogMessage | { type: "pong" })[];
        try {
          messages = messagesOf(text);
        } catch (error) {
          handlers.onError?.(error);
          return;
        }
        for (const message of messages) {
          if (message.type === "pong") handlers.onPong?.();
          else handlers.onMessage(message as SymbolLogMessage);
        }
      },
      status: (status, detail) => handlers.onStatus?.(status, detail),
      error: (error) => handlers.onError?.(error),
    });
  }

  start(): this {
    this.socket.start();
    return this;
  }

  close() {
    this.socket.stop();
  }
}
