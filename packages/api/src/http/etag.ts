import { createHash } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import { DomainError } from "@tp/core/errors";
/** What the conditional-requests middleware sets for the handlers (the HTTP conventions' `AppEnv` has it). */
export interface ConditionalEnv {
  Variables: { ifMatchVersion?: number };
}

/** The app whose GET a PUT's `If-Match` is checked against. */
interface Readable {
  request(url: string, init: RequestInit, env: unknown): Response | Promise<Response>;
}

/**
 * Conditional requests (docs/api-conventions.md "Concurrent updates"): every GET and PUT that
 * answers 200 with JSON carries an `ETag`; a PUT with `If-Match` is refused with 412
 * `PRECONDITION_FAILED` when the resource's current tag (its GET, as this caller) is not among
 * those given. A resource whose answer carries an integer `version` is tagged by it (`"v3"`), and
 * (a handler whose answer leaves the version out sets the header itself, `versionTag`), and
 * its PUT is written conditionally on that version (`ifMatchVersion`): of concurrent writers with
 * the same tag one wins and the others answer the resource's 409 (`BROKER_CHANGED`,
 * `FLOW_CHANGED`). Without `If-Match` the last writer wins.
 */
export function entityTag(body: string): string {
  try {
    const version = (JSON.parse(body) as { version?: unknown } | null)?.version;
    if (Number.isInteger(version)) return versionTag(version as number);
  } catch {
    // Not JSON: tagged by its bytes.
  }
  return `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`;
}

/** The tag of a resource's version; a handler whose answer does not show the version sets it itself (`ETag` header). */
export const versionTag = (version: number) => `"v${version}"`;

/** The version an `If-Match` tag names (`"v3"` → 3), when it names one. */
const versionOf = (tag: string) => {
  const match = /^"v(\d+)"$/.exec(tag);
  return match ? Number(match[1]) : undefined;
};

export const preconditionFailed = (currentTag: string) =>
  new DomainError(412, "PRECONDITION_FAILED", `The resource has changed since it was read (its ETag is now ${currentTag}); read it again and retry`, {
    current_etag: currentTag,
  });

export function conditionalRequests(app: Readable): MiddlewareHandler<ConditionalEnv> {
  return async (c, next) => {
    const method = c.req.method;
    const ifMatch = method === "PUT" ? c.req.header("If-Match") : undefined;
    if (ifMatch !== undefined) {
      const given = ifMatch
        .split(",")
        .map((tag) => tag.trim())
        .filter(Boolean);
      if (!given.includes("*")) {
        const headers: Record<string, string> = {};
        const authorization = c.req.header("Authorization");
        if (authorization) headers.Authorization = authorization;
        const current = await app.request(c.req.url, { method: "GET", headers }, c.env);
        // A resource the caller cannot read answers the PUT's own 401, 403 or 404 below.
        if (current.status === 200) {
          const tag = current.headers.get("ETag") ?? entityTag(await current.text());
          if (!given.includes(tag)) throw preconditionFailed(tag);
          const version = versionOf(tag);
          if (version !== undefined) c.set("ifMatchVersion", version);
        }
      }
    }
    await next();
    if (
      (method === "GET" || method === "PUT") &&
      c.res.status === 200 &&
      (c.res.headers.get("Content-Type") ?? "").includes("application/json") &&
      !c.res.headers.has("ETag")
    ) {
      c.header("ETag", entityTag(await c.res.clone().text()));
    }
  };
}

type Operation = { parameters?: unknown[]; responses?: Record<string, Record<string, unknown>> };

/**
 * The OpenAPI document with the conditional requests written in: the `ETag` header on every GET's
 * and PUT's 200, and on every PUT the `If-Match` header and its 412.
 */
export function withConditionalRequests<T extends object>(document: T): T {
  const paths = (document as { paths?: Record<string, Record<string, Operation | undefined>> }).paths ?? {};
  for (const item of Object.values(paths)) {
    for (const method of ["get", "put"] as const) {
      const operation = item[method];
      const ok = operation?.responses?.["200"];
      if (!operation || !ok) continue;
      ok.headers = {
        ...(ok.headers as object | undefined),
        ETag: {
          description: 'The answer\'s entity tag: `"v<version>"` for a versioned resource, else a digest of the body. Send it back in `If-Match`.',
          schema: { type: "string" },
        },
      };
      if (method !== "put") continue;
      operation.parameters = [
        ...(operation.parameters ?? []),
        {
          in: "header",
          name: "If-Match",
          required: false,
          schema: { type: "string" },
          description:
            "Entity tags of the representation the change is based on (or `*`): 412 when the resource's current tag is not among them. Without it the last writer wins.",
        },
      ];
      operation.responses!["412"] = {
        description: "PRECONDITION_FAILED: the resource changed since the If-Match tag was read (`current_etag`)",
        content: { "application/json": { schema: { $ref: "#/components/schemas/ErrorBody" } } },
      };
    }
  }
  return document;
}
