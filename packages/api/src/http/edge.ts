import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Context, MiddlewareHandler } from "hono";

/** What @hono/node-server puts in `c.env`; absent on Lambda and in `app.request()`. */
interface NodeBindings {
  incoming?: IncomingMessage;
  outgoing?: ServerResponse;
}

const nodeBindings = (c: Context): NodeBindings | undefined => c.env as NodeBindings | undefined;

/**
 * A request header. Under @hono/node-server it is read straight from the incoming message:
 * `c.req.header()` would first copy every header into a WHATWG Headers object, a few
 * microseconds that the middleware of every request would pay.
 */
export function requestHeader(c: Context, name: string): string | undefined {
  const incoming = nodeBindings(c)?.incoming;
  if (incoming?.headers) {
    const value = incoming.headers[name.toLowerCase()];
    return Array.isArray(value) ? value.join(", ") : value;
  }
  return c.req.header(name);
}

/**
 * Sets a response header before the handler answers. Under @hono/node-server it goes on the
 * ServerResponse (Node merges it into `writeHead`), keeping the response on the server's fast
 * path; elsewhere through Hono's prepared headers.
 */
export function setResponseHeader(c: Context, name: string, value: string): void {
  const outgoing = nodeBindings(c)?.outgoing;
  if (outgoing && typeof outgoing.setHeader === "function" && !outgoing.headersSent) outgoing.setHeader(name, value);
  else c.header(name, value);
}

/** What the Lambda adapter puts in `c.env`: the API Gateway event (payload 2.0 carries the caller's address). */
interface LambdaBindings {
  event?: { requestContext?: { http?: { sourceIp?: string } } };
}

/**
 * The caller's network address as the edge saw it: API Gateway's `sourceIp` on Lambda, the
 * socket's peer under @hono/node-server, `unknown` in process (`app.request()`). Headers such as
 * `X-Forwarded-For` are never read: a client can write them.
 */
export function clientAddress(c: Context): string {
  const lambda = (c.env as LambdaBindings | undefined)?.event?.requestContext?.http?.sourceIp;
  if (lambda) return lambda;
  const peer = nodeBindings(c)?.incoming?.socket?.remoteAddress;
  return peer ? peer.replace(/^::ffff:/, "") : "unknown";
}

const VALID_REQUEST_ID = /^[\w\-=]{1,255}$/;

/** Every response carries `X-Request-Id`: the caller's when it sent a sane one, else a new UUID. */
export const requestId: MiddlewareHandler = async (c, next) => {
  const given = requestHeader(c, "X-Request-Id");
  const id = given && VALID_REQUEST_ID.test(given) ? given : randomUUID();
  c.set("requestId" as never, id as never);
  setResponseHeader(c, "X-Request-Id", id);
  await next();
};
