import { z } from "zod";

/**
 * One finding of a configuration check. Errors and warnings share this shape across risk,
 * strategy and channel-preset validation so front ends render them with one component:
 * `code` is stable SCREAMING_SNAKE, `field` a dotted path into the checked object
 * (`channels.0.risk_limits.max_drawdown`), `message` a sentence carrying the numbers.
 */
export const ConfigIssue = z
  .object({
    code: z.string().describe("Stable SCREAMING_SNAKE code"),
    field: z.string().describe("Dotted path into the checked object; empty for the object as a whole"),
    message: z.string(),
  })
  .meta({ id: "ConfigIssue" });
export type ConfigIssue = z.infer<typeof ConfigIssue>;

/** Builds an issue; `field` is a dotted path, empty for the object as a whole. */
export const issue = (code: string, field: string, message: string): ConfigIssue => ({ code, field, message });

/** Joins a path prefix and a key into a dotted field path. */
export const joinField = (...parts: (string | number | symbol | undefined)[]) =>
  parts
    .filter((p) => p !== undefined && p !== "")
    .map(String)
    .join(".");

const valueAt = (input: unknown, path: readonly PropertyKey[]): unknown => {
  let current: unknown = input;
  for (const key of path) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
};

const describe = (value: unknown) => (value === undefined ? "nothing" : JSON.stringify(value));

/**
 * Turns a zod error into issues with messages that name the field, the allowed range and the
 * value received. `input` is the object that was parsed, used to quote the offending value.
 */
export const fromZod = (error: z.ZodError, input: unknown, prefix = ""): ConfigIssue[] =>
  error.issues.flatMap((zodIssue): ConfigIssue[] => {
    const field = joinField(prefix, ...zodIssue.path);
    const value = valueAt(input, zodIssue.path);
    const got = describe(value);
    if (value === undefined && (zodIssue.code === "invalid_type" || zodIssue.code === "invalid_value")) {
      return [issue("MISSING_FIELD", field, `${field} is required`)];
    }
    switch (zodIssue.code) {
      case "too_small": {
        const bound = zodIssue.inclusive === false ? ">" : ">=";
        const what = zodIssue.origin === "array" ? "item count" : zodIssue.origin === "string" ? "length" : "value";
        return [issue("OUT_OF_RANGE", field, `${field} ${what} must be ${bound} ${zodIssue.minimum} (got ${got})`)];
      }
      case "too_big": {
        const bound = zodIssue.inclusive === false ? "<" : "<=";
        const what = zodIssue.origin === "array" ? "item count" : zodIssue.origin === "string" ? "length" : "value";
        return [issue("OUT_OF_RANGE", field, `${field} ${what} must be ${bound} ${zodIssue.maximum} (got ${got})`)];
      }
      case "invalid_type":
        return [issue("INVALID_TYPE", field, `${field} must be ${article(zodIssue.expected)} (got ${got})`)];
      case "invalid_value":
        return [issue("INVALID_VALUE", field, `${field} must be one of ${zodIssue.values.map((v) => JSON.stringify(v)).join(", ")} (got ${got})`)];
      case "unrecognized_keys":
        return zodIssue.keys.map((key) => {
          const unknownField = joinField(field, key);
          return issue("UNKNOWN_FIELD", unknownField, `${unknownField} is not a recognised field`);
        });
      default:
        return [issue("INVALID_VALUE", field, `${field || "value"}: ${zodIssue.message}`)];
    }
  });

const article = (expected: string) => (expected === "int" ? "an integer" : /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`);
