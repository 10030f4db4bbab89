import type { IncomingMessage, ServerResponse } from "node:http";
import { ApiError, type FakeAccount, type NewOrder, PARAMETER_ERROR } from "./account";
import type { TradingClock } from "./clock";
import type { CredentialStore } from "./credentials";
import { type Faults, LongportErrors } from "./faults";
import type { FakeMarket } from "./market";
import { balancesJson, executionJson, isOpen, matchesOrder, maxPurchaseJson, orderDetailJson, orderJson, positionsJson } from "./rest-shapes";
import { verifySignature } from "./signature";

/** One HTTP request the fake received. */
export interface CallRecord {
  method: string;
  path: string;
  query: string;
  /** Wall-clock ms when it arrived. */
  at: number;
  /** The trading clock when it arrived. */
  clock: number;
  /** The HTTP status answered (0 when the fault cut the connection). */
  status: number;
  /** LongPort's code in the answer (0 for success). */
  code: number;
  /** Whether it counted against the trade-call limit (`/v1/trade/*`, `/v1/asset/*`). */
  tradeCall: boolean;
  /** The request body as sent (JSON text for submit and replace). */
  body: string;
}

export interface TradeRateLimit {
  /** Calls allowed in `windowMs` (LongPort: 30 in 30 s). 0 turns the check off. */
  max: number;
  windowMs: number;
  /** Least gap between two calls (LongPort asks for 20 ms); 0 turns the check off. */
  minIntervalMs: number;
}

export interface HttpApiDeps {
  credentials: CredentialStore;
  account: FakeAccount;
  market: FakeMarket;
  clock: TradingClock;
  faults: Faults;
  tradeRateLimit: TradeRateLimit;
  /** Socket limit and online count the socket-token answer reports. */
  connectionLimit: number;
  onlineSockets: (appKey: string) => number;
  /** Refuse a request whose signature was already seen (403202) — off by default: the SDK signs with whole seconds. */
  rejectDuplicates: boolean;
  records: CallRecord[];
}

const isTradePath = (path: string) => path.startsWith("/v1/trade/") || path.startsWith("/v1/asset/");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

const header = (req: IncomingMessage, name: string) => {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

const num = (value: unknown) => (value === undefined || value === null || value === "" ? undefined : Number(value));

/** LongPort's OpenAPI over HTTP: authentication and signature checks, the trade-call limit, faults, the routes. */
export function httpApi(deps: HttpApiDeps): (req: IncomingMessage, res: ServerResponse) => void {
  const tradeCallTimes = new Map<string, number[]>();
  const seenSignatures = new Set<string>();

  const reply = (res: ServerResponse, record: CallRecord, status: number, payload: Record<string, unknown>) => {
    record.status = status;
    record.code = Number(payload.code ?? 0);
    res.writeHead(status, { "content-type": "application/json; charset=utf-8", "x-trace-id": `fake-${deps.records.length}` });
    res.end(JSON.stringify(payload));
  };

  const authenticate = (req: IncomingMessage, method: string, path: string, query: string, body: Buffer): string => {
    const appKey = header(req, "x-api-key") ?? "";
    const secret = deps.credentials.secretOf(appKey);
    if (secret === undefined) throw new ApiError(403, LongportErrors.apiKeyIllegal.code, LongportErrors.apiKeyIllegal.message);
    const accessToken = header(req, "authorization") ?? "";
    const signature = header(req, "x-api-signature");
    const signed = { method, path, query, accessToken, appKey, timestamp: header(req, "x-timestamp") ?? "", body };
    if (!verifySignature(signed, signature, secret)) throw new ApiError(403, LongportErrors.signatureInvalid.code, LongportErrors.signatureInvalid.message);
    if (deps.rejectDuplicates) {
      if (seenSignatures.has(signature!)) throw new ApiError(403, LongportErrors.duplicateRequest.code, LongportErrors.duplicateRequest.message);
      seenSignatures.add(signature!);
    }
    const token = deps.credentials.token(accessToken, appKey);
    if (!token) throw new ApiError(401, LongportErrors.tokenInvalid.code, LongportErrors.tokenInvalid.message);
    // A refresh is how an expired token is replaced, so the refresh itself is let through.
    if (deps.credentials.isExpired(token) && path !== "/v1/token/refresh") {
      throw new ApiError(401, LongportErrors.tokenExpired.code, LongportErrors.tokenExpired.message);
    }
    return appKey;
  };

  const checkTradeRate = (appKey: string) => {
    const { max, windowMs, minIntervalMs } = deps.tradeRateLimit;
    const now = Date.now();
    const times = (tradeCallTimes.get(appKey) ?? []).filter((t) => t > now - windowMs);
    tradeCallTimes.set(appKey, times);
    const tooSoon = minIntervalMs > 0 && times.length > 0 && now - times[times.length - 1] < minIntervalMs;
    if ((max > 0 && times.length >= max) || tooSoon) throw new ApiError(429, LongportErrors.apiRateLimit.code, LongportErrors.apiRateLimit.message);
    times.push(now);
  };

  const route = (method: string, path: string, q: URLSearchParams, json: Record<string, any>, appKey: string, accessToken: string): unknown => {
    const { account, market, clock } = deps;
    const today = (ms: number, symbol: string) => market.localDate(symbol, ms) === market.localDate(symbol, clock.now());
    const inRange = (ms: number) =>
      (!q.get("start_at") || ms >= Number(q.get("start_at")) * 1000) && (!q.get("end_at") || ms <= Number(q.get("end_at")) * 1000);
    switch (`${method} ${path}`) {
      case "GET /v1/socket/token":
        return { otp: deps.credentials.issueOtp(appKey), limit: deps.connectionLimit, online: deps.onlineSockets(appKey) };
      case "GET /v1/token/refresh": {
        const expiresAt = q.get("expired_at") ? new Date(q.get("expired_at")!).getTime() : clock.now() + 90 * 86_400_000;
        const token = deps.credentials.refresh(accessToken, expiresAt);
        return {
          token,
          expired_at: new Date(expiresAt).toISOString(),
          issued_at: new Date(clock.now()).toISOString(),
          account_info: { member_id: 10086, aaid: 0, account_channel: "lb" },
        };
      }
      case "POST /v1/trade/order": {
        for (const required of ["symbol", "order_type", "side", "submitted_quantity", "time_in_force"]) {
          if (json[required] === undefined) throw new ApiError(400, PARAMETER_ERROR, `${required} is required`);
        }
        if (["LO", "ELO", "AO", "ALO", "ODD", "LIT"].includes(json.order_type) && json.submitted_price === undefined) {
          throw new ApiError(400, PARAMETER_ERROR, "submitted_price is required for a limit order");
        }
        const spec: NewOrder = {
          symbol: json.symbol,
          side: json.side,
          orderType: json.order_type,
          quantity: Number(json.submitted_quantity),
          price: num(json.submitted_price),
          triggerPrice: num(json.trigger_price),
          timeInForce: json.time_in_force,
          expireDate: json.expire_date,
          outsideRth: json.outside_rth,
          remark: json.remark,
        };
        return { order_id: account.submit(spec).orderId };
      }
      case "PUT /v1/trade/order":
        account.replace(String(json.order_id), Number(json.quantity), num(json.price), num(json.trigger_price), json.remark);
        return {};
      case "DELETE /v1/trade/order":
        account.requestCancel(q.get("order_id") ?? "");
        return {};
      case "GET /v1/trade/order":
        return orderDetailJson(account.order(q.get("order_id") ?? ""), market);
      case "GET /v1/trade/order/today": {
        // Today's orders, and older ones still working (a GTC order stays listed until it ends).
        const orders = [...account.orders.values()].filter((o) => (today(o.submittedAt, o.symbol) || isOpen(o)) && matchesOrder(o, q));
        return { orders: orders.reverse().map((o) => orderJson(o, market)) };
      }
      case "GET /v1/trade/order/history": {
        const orders = [...account.orders.values()].filter((o) => !today(o.submittedAt, o.symbol) && inRange(o.submittedAt) && matchesOrder(o, q));
        return { has_more: false, orders: orders.reverse().map((o) => orderJson(o, market)) };
      }
      case "GET /v1/trade/execution/today": {
        const trades = account.executions.filter(
          (e) => today(e.at, e.symbol) && (!q.get("symbol") || q.get("symbol") === e.symbol) && (!q.get("order_id") || q.get("order_id") === e.orderId),
        );
        return { trades: trades.map(executionJson) };
      }
      case "GET /v1/trade/execution/history": {
        const trades = account.executions.filter((e) => !today(e.at, e.symbol) && inRange(e.at) && (!q.get("symbol") || q.get("symbol") === e.symbol));
        return { has_more: false, trades: trades.map(executionJson) };
      }
      case "GET /v1/asset/account":
        return { list: balancesJson(account, q.get("currency") ?? undefined) };
      case "GET /v1/asset/stock":
        return positionsJson(account, market, q.getAll("symbol"));
      case "GET /v1/trade/estimate/buy_limit": {
        const symbol = q.get("symbol") ?? "";
        if (!market.has(symbol)) throw new ApiError(400, PARAMETER_ERROR, `invalid symbol: ${symbol}`);
        return maxPurchaseJson(account, market, { symbol, side: q.get("side") ?? "Buy", price: num(q.get("price")) });
      }
      default:
        throw new ApiError(404, 404001, `the fake has no ${method} ${path}`);
    }
  };

  return (req, res) => {
    void (async () => {
      const method = (req.method ?? "GET").toUpperCase();
      const url = req.url ?? "/";
      const cut = url.indexOf("?");
      const path = cut < 0 ? url : url.slice(0, cut);
      const query = cut < 0 ? "" : url.slice(cut + 1);
      const record: CallRecord = { method, path, query, at: Date.now(), clock: deps.clock.now(), status: 0, code: 0, tradeCall: false, body: "" };
      deps.records.push(record);
      const body = await readBody(req);
      record.body = body.toString("utf8");
      const fault = deps.faults.takeHttp(method, path);
      if (fault?.kind === "drop") return req.socket.destroy();
      if (fault?.kind === "bare") {
        record.status = fault.status;
        res.writeHead(fault.status, { "content-type": "text/plain" });
        return res.end(fault.body);
      }
      if (fault?.kind === "delay") await sleep(fault.ms);
      try {
        const appKey = authenticate(req, method, path, query, body);
        if (fault?.kind === "reply") throw new ApiError(fault.reply.status, fault.reply.code, fault.reply.message);
        if (isTradePath(path)) {
          checkTradeRate(appKey);
          record.tradeCall = true;
        }
        let json: Record<string, unknown> = {};
        if (body.length > 0) {
          try {
            json = JSON.parse(body.toString("utf8"));
          } catch {
            throw new ApiError(400, PARAMETER_ERROR, "the body is not JSON");
          }
        }
        const data = route(method, path, new URLSearchParams(query), json, appKey, header(req, "authorization") ?? "");
        reply(res, record, 200, { code: 0, message: "success", data });
      } catch (error) {
        if (error instanceof ApiError) return reply(res, record, error.status, { code: error.code, message: error.message });
        reply(res, record, 500, { code: LongportErrors.internal.code, message: `${LongportErrors.internal.message}: ${(error as Error).message}` });
      }
    })();
  };
}
