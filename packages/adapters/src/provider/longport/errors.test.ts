import { describe, expect, it } from "vitest";
import { DomainError } from "@tp/core/errors";
import { longportError } from "./errors";

describe("longportError", () => {
  it("answers a refusal by LongPort's HTTP API as PROVIDER_ERROR with LongPort's code", () => {
    const error = longportError(new Error("openapi error: code=301600: invalid request"), "quote");
    expect(error).toMatchObject({ status: 502, code: "PROVIDER_ERROR", message: "LongPort refused quote: invalid request (code 301600)" });
    expect(error.extra).toEqual({ provider: "longport", provider_code: 301600 });
  });

  it("reads the code and message of a WebSocket response error", () => {
    const text = 'response error: 3: detail:Some(WsResponseErrorDetail { code: 301604, msg: "no quote access" })';
    expect(longportError(new Error(text), "subscribe")).toMatchObject({
      code: "PROVIDER_ERROR",
      message: "LongPort refused subscribe: no quote access (code 301604)",
    });
  });

  it("answers an unreachable service as PROVIDER_UNAVAILABLE with a retry hint", () => {
    const error = longportError(
      new Error("error sending request for url (https://openapi.longportapp.com/v1/socket/token): client error (Connect)"),
      "the connection",
    );
    expect(error).toMatchObject({ status: 503, code: "PROVIDER_UNAVAILABLE" });
    expect(error.message).toMatch(/^LongPort is unreachable \(the connection\): error sending request/);
    expect(error.extra.retry_after).toBe(5);
  });

  it("tells timeouts, refused credentials and refused symbols apart", () => {
    expect(longportError(new Error("LongPort quote did not answer within 10000 ms"), "quote").code).toBe("PROVIDER_TIMEOUT");
    expect(longportError(new Error("connect timeout"), "the connection").status).toBe(504);
    expect(longportError(new Error("invalid access token"), "quote").code).toBe("PROVIDER_AUTH_FAILED");
    expect(longportError(new Error("invalid security symbol: 700"), "quote")).toMatchObject({ status: 400, code: "INVALID_SYMBOL" });
  });

  it("answers LongPort's common error codes by their own status (the SDK's texts, as the fake LongPort's answers make it write them)", () => {
    const api = (code: number, message: string, action = "submitOrder") => longportError(new Error(`openapi error: code=${code}: ${message}`), action);
    expect(api(429001, "ip request ratelimit")).toMatchObject({ status: 429, code: "PROVIDER_RATE_LIMITED", extra: { provider_code: 429001, retry_after: 2 } });
    expect(api(429002, "api request is limited", "todayOrders")).toMatchObject({ status: 429, code: "PROVIDER_RATE_LIMITED" });
    expect(api(401003, "token expired")).toMatchObject({ status: 503, code: "PROVIDER_TOKEN_EXPIRED", extra: { retry_after: 60 } });
    expect(api(403202, "duplicate request")).toMatchObject({ status: 409, code: "PROVIDER_DUPLICATE_REQUEST" });
    expect(api(403201, "signature invalid")).toMatchObject({ status: 502, code: "PROVIDER_AUTH_FAILED" });
    // LongPort's own failure on a submit: whether the order was taken is unknown, so not a refusal.
    expect(api(500000, "internal error")).toMatchObject({ status: 502, code: "PROVIDER_ERROR" });
    // Any other code answering an order is LongPort refusing it; answering a read, an error.
    expect(api(602012, "insufficient buying power")).toMatchObject({
      status: 422,
      code: "PROVIDER_REFUSED",
      message: "LongPort refused submitOrder: insufficient buying power (code 602012)",
      extra: { provider_code: 602012, provider_message: "insufficient buying power" },
    });
    expect(api(602012, "insufficient buying power", "todayOrders")).toMatchObject({ status: 502, code: "PROVIDER_ERROR" });
    // The SDK's own texts for a second quote connection: the socket's answer, and the socket token's.
    const socket = 'response error: 6: detail:Some(WsResponseErrorDetail { code: 403, msg: "connections limitation is hit" })';
    expect(longportError(new Error(socket), "the connection")).toMatchObject({ status: 503, code: "PROVIDER_CONNECTION_LIMIT" });
    expect(longportError(new Error("connections limitation is hit, limit = 2, online = 2"), "the connection")).toMatchObject({
      code: "PROVIDER_CONNECTION_LIMIT",
    });
    // A status without LongPort's body (after the SDK's own retries of a 429).
    expect(longportError(new Error("status error: 429 Too Many Requests"), "todayOrders")).toMatchObject({ status: 429, code: "PROVIDER_RATE_LIMITED" });
    expect(longportError(new Error("status error: 502 Bad Gateway"), "todayOrders")).toMatchObject({ status: 503, code: "PROVIDER_UNAVAILABLE" });
  });

  it("keeps a DomainError as it is and answers anything else as PROVIDER_ERROR", () => {
    const domain = new DomainError(404, "SYMBOL_NOT_FOUND", "no such symbol");
    expect(longportError(domain, "quote")).toBe(domain);
    expect(longportError("parse field: lot_size: bad", "staticInfo")).toMatchObject({ status: 502, code: "PROVIDER_ERROR" });
  });
});
