import type { z } from "zod";
/**
 * Domain errors carry a stable SCREAMING_SNAKE code and the HTTP status the edge maps them to.
 * One `onError` in the HTTP layer turns them into the interface's error body; nothing else
 * catches and re-shapes them.
 */
export class DomainError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = "DomainError";
  }
}

/** One problem with a request's input, as listed in a 422 body. */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/** Input that fails validation: answered 422 with every problem listed. */
export class ValidationError extends DomainError {
  constructor(readonly issues: ValidationIssue[]) {
    super(422, "VALIDATION_ERROR", issues.map((i) => `${i.loc.join(".")}: ${i.msg}`).join("; "));
    this.name = "ValidationError";
  }
}

export const notFound = (code: string, message: string) => new DomainError(404, code, message);
export const badRequest = (code: string, message: string, extra?: Record<string, unknown>) => new DomainError(400, code, message, extra);
export const conflict = (code: string, message: string, extra?: Record<string, unknown>) => new DomainError(409, code, message, extra);
export const forbidden = (message = "You do not have permission for this resource") => new DomainError(403, "ACCESS_DENIED", message);
export const unauthorized = (message = "Not authenticated") => new DomainError(401, "UNAUTHORIZED", message);
export const tooManyRequests = (message: string, retryAfterSeconds: number) =>
  new DomainError(429, "TOO_MANY_REQUESTS", message, { retry_after: retryAfterSeconds });
export const serviceUnavailable = (message: string, retryAfterSeconds: number) =>
  new DomainError(503, "SERVICE_UNAVAILABLE", message, { retry_after: retryAfterSeconds });

/** Parses with a schema or throws a 422 listing every problem, each located under `loc`. */
export const parseOrThrow = <S extends z.ZodType>(schema: S, input: unknown, loc: (string | number)[] = []): z.output<S> => {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw new ValidationError(
    parsed.error.issues.map((issue) => ({
      loc: [...loc, ...issue.path.map((key) => (typeof key === "number" ? key : String(key)))],
      msg: issue.message,
      type: issue.code,
    })),
  );
};

/**
 * Options for a cross-field `superRefine` that must run even when some fields already failed,
 * so one 422 lists every problem. The refinement then sees raw input and must check types itself.
 */
export const evenWithIssues = {
  when: (payload: { value: unknown }) => typeof payload.value === "object" && payload.value !== null,
};
