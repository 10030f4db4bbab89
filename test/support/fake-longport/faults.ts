/**
 * Fault injection: answers the fake gives instead of the normal one, and a gate on pushes that
 * can delay, hold and reorder them. The HTTP error bodies are LongPort's documented common errors
 * (docs: error-codes): the SDK turns `{code, message}` into `openapi error: code=<code>: <message>`.
 */

export interface ApiReply {
  status: number;
  code: number;
  message: string;
}

export const LongportErrors = {
  signatureInvalid: { status: 403, code: 403201, message: "signature invalid" },
  duplicateRequest: { status: 403, code: 403202, message: "duplicate request" },
  apiKeyIllegal: { status: 403, code: 403203, message: "apikey illegal" },
  ipNotAllowed: { status: 403, code: 403205, message: "ip is not allowed" },
  tokenExpired: { status: 401, code: 401003, message: "token expired" },
  /** Not in the error-code table; LongPort answers it for an access token it cannot verify. */
  tokenInvalid: { status: 401, code: 401004, message: "token invalid" },
  ipRateLimit: { status: 429, code: 429001, message: "ip request ratelimit" },
  apiRateLimit: { status: 429, code: 429002, message: "api request is limited" },
  internal: { status: 500, code: 500000, message: "internal error" },
} satisfies Record<string, ApiReply>;

/** Which requests a fault applies to: a method and a path (exact, or a pattern); both optional. */
export interface RequestMatch {
  method?: string;
  path?: string | RegExp;
}

export type HttpFaultAction =
  | { kind: "reply"; reply: ApiReply }
  /** A status with a body that is not LongPort's JSON (what a proxy in front of it answers). */
  | { kind: "bare"; status: number; body: string }
  /** The connection is destroyed without an answer. */
  | { kind: "drop" }
  /** The normal answer, `ms` late. */
  | { kind: "delay"; ms: number };

interface HttpFault {
  match: RequestMatch;
  action: HttpFaultAction;
  remaining: number;
}

/** A refusal of one quote-gateway command: a response with a non-zero status and a `{code, msg}` body. */
export interface SocketReply {
  status: number;
  code: number;
  message: string;
}

const matches = (m: RequestMatch, method: string, path: string) =>
  (!m.method || m.method.toUpperCase() === method) && (!m.path || (typeof m.path === "string" ? m.path === path : m.path.test(path)));

export class Faults {
  private readonly http: HttpFault[] = [];
  private readonly quote: { command: number; reply: SocketReply; remaining: number }[] = [];
  /** Pushes of the quote gateway (quotes, depth, trades). */
  readonly quotePushes = new PushGate();
  /** Pushes of the trade gateway (order changes). */
  readonly tradePushes = new PushGate();

  /** The next `times` requests matching `match` get `reply` (e.g. `LongportErrors.apiRateLimit`, or a trade refusal). */
  failNext(match: RequestMatch, reply: ApiReply, times = 1): void {
    this.http.push({ match, action: { kind: "reply", reply }, remaining: times });
  }

  /**
   * The next submit is refused with LongPort's `code` and `message`, e.g. an insufficient-buying-power
   * refusal. LongPort's docs list only the common codes; trade refusals are 60xxxx codes (602001
   * "parameter verification failed" is one seen in the SDK's issues).
   */
  refuseNextSubmit(code: number, message: string, status = 400): void {
    this.failNext({ method: "POST", path: "/v1/trade/order" }, { status, code, message });
  }

  /** The next `times` requests (default: any trade call) are refused with 429001 or 429002, as LongPort rate-limits. */
  rateLimitNext(times = 1, reply: ApiReply = LongportErrors.apiRateLimit, match: RequestMatch = { path: /^\/v1\/(trade|asset)\// }): void {
    this.failNext(match, reply, times);
  }

  /** The next `times` matching requests get `status` with a plain-text body; the SDK retries a bare 429 itself. */
  bareStatus(match: RequestMatch, status: number, times = 1, body = "Too Many Requests"): void {
    this.http.push({ match, action: { kind: "bare", status, body }, remaining: times });
  }

  /** The next `times` matching requests are cut off without an answer. */
  dropNext(match: RequestMatch, times = 1): void {
    this.http.push({ match, action: { kind: "drop" }, remaining: times });
  }

  /** The next `times` matching requests are answered normally, `ms` late. */
  delayNext(match: RequestMatch, ms: number, times = 1): void {
    this.http.push({ match, action: { kind: "delay", ms }, remaining: times });
  }

  /** The next `times` requests of quote `command` (messages.ts `Command`) are refused with `reply`. */
  failNextQuoteCommand(command: number, reply: SocketReply, times = 1): void {
    this.quote.push({ command, reply, remaining: times });
  }

  /** Removes every pending fault (pushes held by a gate stay held). */
  clear(): void {
    this.http.length = 0;
    this.quote.length = 0;
  }

  takeHttp(method: string, path: string): HttpFaultAction | undefined {
    const i = this.http.findIndex((f) => matches(f.match, method, path));
    if (i < 0) return undefined;
    const fault = this.http[i];
    if (--fault.remaining <= 0) this.http.splice(i, 1);
    return fault.action;
  }

  takeQuote(command: number): SocketReply | undefined {
    const i = this.quote.findIndex((f) => f.command === command);
    if (i < 0) return undefined;
    const fault = this.quote[i];
    if (--fault.remaining <= 0) this.quote.splice(i, 1);
    return fault.reply;
  }
}

/**
 * Every push of a gateway passes through its gate: sent at once by default, `delayMs` late when
 * set, or held until `release()`, which can send the held ones in reverse order.
 */
export class PushGate {
  delayMs = 0;
  private held: (() => void)[] | undefined;

  send(deliver: () => void): void {
    if (this.held) this.held.push(deliver);
    else if (this.delayMs > 0) setTimeout(deliver, this.delayMs);
    else deliver();
  }

  /** Holds pushes from now on, until `release()`. */
  hold(): void {
    this.held ??= [];
  }

  /** Sends the held pushes (in order, or newest first) and stops holding. */
  release(order: "in-order" | "reversed" = "in-order"): number {
    const pending = this.held ?? [];
    this.held = undefined;
    for (const deliver of order === "reversed" ? pending.reverse() : pending) deliver();
    return pending.length;
  }

  /** Drops the held pushes and stops holding (pushes lost in transit). */
  discard(): number {
    const count = this.held?.length ?? 0;
    this.held = undefined;
    return count;
  }

  get heldCount(): number {
    return this.held?.length ?? 0;
  }
}
