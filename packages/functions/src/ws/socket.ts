import { DomainError } from "@tp/core/errors";
import { Realtime } from "@tp/core/realtime";
import { realtime } from "@tp/adapters/compose/platform";
import type { Services } from "@tp/adapters/services";
import { observed } from "../observability";
import { lambdaComposition } from "../runtime";
import { log } from "@tp/core/log";

/** The parts of an API Gateway WebSocket event the handlers read (the local server builds the same). */
export interface WebSocketEvent {
  requestContext: { connectionId: string; routeKey?: string };
  queryStringParameters?: Record<string, string | undefined> | null;
  body?: string | null;
}

export interface WebSocketResult {
  statusCode: number;
  body?: string;
}

async function answer(work: () => Promise<unknown>): Promise<WebSocketResult> {
  try {
    await work();
    return { statusCode: 200 };
  } catch (error) {
    if (error instanceof DomainError) {
      return { statusCode: error.status, body: JSON.stringify({ detail: error.message, error_code: error.code }) };
    }
    log.error("WebSocket handler failed", { error: String(error) });
    return { statusCode: 500, body: JSON.stringify({ detail: "Internal server error", error_code: "INTERNAL_ERROR" }) };
  }
}

/**
 * The three WebSocket route handlers over a composition root. Lambda uses its own; the
 * embedded runtime passes its services and calls these same functions.
 */
export function socketHandlers(services: () => Promise<Pick<Services, "realtime">>) {
  return {
    /**
     * `$connect`. API Gateway WebSocket APIs have one URL, so the interface's paths arrive as the
     * `path` query parameter (a CloudFront function rewrites them on AWS; the local server passes them the same way).
     */
    async connect(event: WebSocketEvent): Promise<WebSocketResult> {
      return answer(async () => {
        const query = { ...(event.queryStringParameters ?? {}) };
        await Realtime.connect((await services()).realtime, {
          connectionId: event.requestContext.connectionId,
          path: query.path ?? "",
          query,
        });
      });
    },
    /** `$disconnect`. */
    async disconnect(event: WebSocketEvent): Promise<WebSocketResult> {
      return answer(async () => Realtime.disconnect((await services()).realtime, event.requestContext.connectionId));
    },
    /** `$default`: client messages (ping). */
    async message(event: WebSocketEvent): Promise<WebSocketResult> {
      return answer(async () => Realtime.message((await services()).realtime, event.requestContext.connectionId, event.body ?? undefined));
    },
  };
}

const sockets = socketHandlers(lambdaComposition((c) => ({ realtime: realtime(c) })));
export const connect = observed("ws", (event: WebSocketEvent) => sockets.connect(event));
export const disconnect = observed("ws", (event: WebSocketEvent) => sockets.disconnect(event));
export const message = observed("ws", (event: WebSocketEvent) => sockets.message(event));
