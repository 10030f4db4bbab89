import { z } from "zod";
import type { ValidationIssue } from "../errors";

/**
 * The input bounds every route gets (docs/security.md): what a request may hold before any route
 * schema looks at it, chosen so nothing valid is refused and nothing the store or the runtime
 * cannot keep gets through (DynamoDB numbers stop at 1e126 and below 1e-130, keys at 1 KB).
 */
export const Bounds = {
  /** A request body larger than this is a 413. */
  maxBodyBytes: 1024 * 1024,
  /** Arrays and objects nested deeper than this. */
  maxDepth: 32,
  /** Characters of one string value in a body. */
  maxStringLength: 65_536,
  /** Numbers: finite, at most 2^53 − 1 in magnitude (exact in JSON and JavaScript) … */
  maxNumber: Number.MAX_SAFE_INTEGER,
  /** … and either 0 or at least this far from it (smaller ones DynamoDB cannot keep). */
  minMagnitude: 1e-130,
  /** Characters of one path segment (ids end up in table keys). */
  maxPathSegment: 256,
  /** Characters of one query parameter value. */
  maxQueryValue: 4096,
  /** Problems listed at most in one 422. */
  maxIssues: 50,
} as const;

/** Object keys refused anywhere in a body: they name JavaScript's object machinery, not data. */
const RESERVED_KEYS = new Set(["__proto__", "constructor", "prototype"]);

/** An identifier field (order, session, channel ids…): 1 to 128 characters. */
export const Id = z.string().trim().min(1).max(128);

/** Problems of a parsed JSON value against the bounds, each located (`loc` starts with `location`). */
export function valueProblems(value: unknown, location: string): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const visit = (node: unknown, path: (string | number)[], depth: number): void => {
    if (issues.length >= Bounds.maxIssues) return;
    if (typeof node === "string") {
      if (node.length > Bounds.maxStringLength)
        issues.push({ loc: [location, ...path], msg: `at most ${Bounds.maxStringLength} characters (got ${node.length})`, type: "string_too_long" });
      return;
    }
    if (typeof node === "number") {
      const magnitude = Math.abs(node);
      if (!Number.isFinite(node) || magnitude > Bounds.maxNumber) {
        issues.push({
          loc: [location, ...path],
          msg: `numbers must be finite and at most ${Bounds.maxNumber} in magnitude (send larger values as strings)`,
          type: "number_out_of_range",
        });
      } else if (node !== 0 && magnitude < Bounds.minMagnitude) {
        issues.push({ loc: [location, ...path], msg: `numbers must be 0 or at least ${Bounds.minMagnitude} in magnitude`, type: "number_out_of_range" });
      }
      return;
    }
    if (node === null || typeof node !== "object") return;
    if (depth >= Bounds.maxDepth) {
      issues.push({ loc: [location, ...path], msg: `nested more than ${Bounds.maxDepth} levels deep`, type: "too_deep" });
      return;
    }
    if (Array.isArray(node))
      node.forEach((item, index) => {
        visit(item, [...path, index], depth + 1);
      });
    else {
      for (const [key, item] of Object.entries(node)) {
        if (RESERVED_KEYS.has(key)) issues.push({ loc: [location, ...path, key], msg: `"${key}" is a reserved key`, type: "reserved_key" });
        else visit(item, [...path, key], depth + 1);
      }
    }
  };
  visit(value, [], 0);
  return issues;
}
