import { z } from "zod";
import { type ConfigIssue, issue, joinField } from "../risk/config-issue";

/** The value a parameter may hold. */
export const ParameterValue = z.union([z.number(), z.string(), z.boolean(), z.null()]).meta({ id: "ParameterValue" });
export type ParameterValue = z.infer<typeof ParameterValue>;

/**
 * Definition of one tunable parameter, as served by the strategy and flow-node catalogs.
 * `integer` and `number` honour `min`/`max` (inclusive); `enum` takes one of `options`.
 * `default: null` together with `required: true` means the caller must supply a value.
 */
export const ParameterDefinition = z
  .object({
    name: z.string(),
    type: z.enum(["integer", "number", "boolean", "string", "enum"]),
    default: ParameterValue,
    min: z.number().optional(),
    max: z.number().optional(),
    options: z.array(z.string()).optional(),
    required: z.boolean().optional(),
    description: z.string(),
  })
  .meta({ id: "ParameterDefinition" });
export type ParameterDefinition = z.infer<typeof ParameterDefinition>;

/** Values after validation, with defaults filled in, and the problems found. */
export interface ResolvedParameters {
  values: Record<string, ParameterValue>;
  errors: ConfigIssue[];
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value);

const checkOne = (definition: ParameterDefinition, value: unknown, field: string): ConfigIssue | undefined => {
  const got = JSON.stringify(value);
  switch (definition.type) {
    case "integer":
    case "number": {
      if (typeof value !== "number" || !Number.isFinite(value)) {
        return issue("INVALID_TYPE", field, `${field} must be a number (got ${got})`);
      }
      if (definition.type === "integer" && !Number.isInteger(value)) {
        return issue("INVALID_TYPE", field, `${field} must be an integer (got ${got})`);
      }
      const below = definition.min !== undefined && value < definition.min;
      const above = definition.max !== undefined && value > definition.max;
      if (below || above) {
        const range =
          definition.min !== undefined && definition.max !== undefined
            ? `between ${definition.min} and ${definition.max}`
            : definition.min !== undefined
              ? `>= ${definition.min}`
              : `<= ${definition.max}`;
        return issue("OUT_OF_RANGE", field, `${field} must be ${range} (got ${got})`);
      }
      return undefined;
    }
    case "boolean":
      return typeof value === "boolean" ? undefined : issue("INVALID_TYPE", field, `${field} must be a boolean (got ${got})`);
    case "string":
      return typeof value === "string" && value.trim() !== "" ? undefined : issue("INVALID_TYPE", field, `${field} must be a non-empty string (got ${got})`);
    case "enum":
      return typeof value === "string" && definition.options?.includes(value)
        ? undefined
        : issue("INVALID_VALUE", field, `${field} must be one of ${(definition.options ?? []).join(", ")} (got ${got})`);
  }
};

/**
 * Checks `input` against the definitions: unknown names, wrong types, values out of range and
 * missing required values are errors. Returns the values with defaults filled in; a value in
 * error is replaced by its default so later cross-checks still see a usable number.
 */
export const resolveParameters = (definitions: readonly ParameterDefinition[], input: unknown, prefix = "parameters"): ResolvedParameters => {
  const values: Record<string, ParameterValue> = {};
  if (input !== undefined && input !== null && !isPlainObject(input)) {
    for (const definition of definitions) values[definition.name] = definition.default;
    return { values, errors: [issue("INVALID_TYPE", prefix, `${prefix} must be an object`)] };
  }
  const given = (input ?? {}) as Record<string, unknown>;
  const errors: ConfigIssue[] = [];
  const known = new Set(definitions.map((d) => d.name));
  for (const name of Object.keys(given)) {
    if (!known.has(name)) {
      const field = joinField(prefix, name);
      errors.push(issue("UNKNOWN_PARAMETER", field, `${field} is not a parameter; expected one of ${[...known].join(", ")}`));
    }
  }
  for (const definition of definitions) {
    const field = joinField(prefix, definition.name);
    const value = given[definition.name];
    if (value === undefined || value === null) {
      if (definition.required && definition.default === null) {
        errors.push(issue("MISSING_PARAMETER", field, `${field} is required`));
      }
      values[definition.name] = definition.default;
      continue;
    }
    const problem = checkOne(definition, value, field);
    if (problem) errors.push(problem);
    values[definition.name] = problem ? definition.default : (value as ParameterValue);
  }
  return { values, errors };
};

/** The defaults of a parameter list as a plain object. */
export const defaultsOf = (definitions: readonly ParameterDefinition[]): Record<string, ParameterValue> =>
  Object.fromEntries(definitions.map((d) => [d.name, d.default]));
