import type { MiddlewareHandler } from "hono";
import { Bounds, valueProblems } from "@tp/core/util/bounds";
import { DomainError, ValidationError, type ValidationIssue } from "@tp/core/errors";
import { requestHeader } from "./edge";

const BODY_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);
const tooLarge = () => new DomainError(413, "PAYLOAD_TOO_LARGE", `Request bodies are at most ${Bounds.maxBodyBytes} bytes`, { max_bytes: Bounds.maxBodyBytes });

/**
 * The input bounds (core/bounds.ts) on every request, before any route: path segments and query
 * values by length; JSON bodies by size (413), nesting, string length and number range (422
 * listing every problem). The parsed body stays cached for the route's own validator, so a new
 * route gets the bounds without doing anything.
 */
export const inputBounds: MiddlewareHandler = async (c, next) => {
  const issues: ValidationIssue[] = [];
  const segments = c.req.path.split("/");
  segments.forEach((segment, index) => {
    if (segment.length > Bounds.maxPathSegment)
      issues.push({
        loc: ["path", index],
        msg: `path segments are at most ${Bounds.maxPathSegment} characters (got ${segment.length})`,
        type: "string_too_long",
      });
  });
  const query = c.req.url.indexOf("?");
  if (query >= 0) {
    for (const [name, value] of new URLSearchParams(c.req.url.slice(query + 1))) {
      if (value.length > Bounds.maxQueryValue)
        issues.push({
          loc: ["query", name],
          msg: `query values are at most ${Bounds.maxQueryValue} characters (got ${value.length})`,
          type: "string_too_long",
        });
    }
  }
  if (BODY_METHODS.has(c.req.method)) {
    const declared = Number(requestHeader(c, "Content-Length") ?? NaN);
    if (declared > Bounds.maxBodyBytes) throw tooLarge();
    if (/json/i.test(requestHeader(c, "Content-Type") ?? "")) {
      const text = await c.req.text();
      if (Buffer.byteLength(text) > Bounds.maxBodyBytes) throw tooLarge();
      let parsed: unknown;
      let valid = true;
      try {
        parsed = JSON.parse(text);
      } catch (error) {
        // Malformed JSON is the route validator's 422; nesting too deep for the parser is ours.
        valid = false;
        if (error instanceof RangeError) issues.push({ loc: ["body"], msg: `nested more than ${Bounds.maxDepth} levels deep`, type: "too_deep" });
      }
      if (valid) issues.push(...valueProblems(parsed, "body"));
    }
  }
  if (issues.length > 0) throw new ValidationError(issues.slice(0, Bounds.maxIssues));
  await next();
};
