import type { components, paths } from "./generated/api";

/** The body of every error answer (`detail`, `error_code`, `timestamp`, `path`, and the extra fields some errors carry). */
export type ErrorBody = components["schemas"]["ErrorBody"];

type Operation = { [P in keyof paths]: { [M in keyof paths[P]]: paths[P][M] }[keyof paths[P]] }[keyof paths];
type CodesOf<O> = O extends { responses: infer R }
  ? { [S in keyof R]: R[S] extends { content: { "application/json": { error_code: infer C } } } ? (C extends string ? C : never) : never }[keyof R]
  : never;

/** Every `error_code` some operation of the API can answer (each operation's own are in its response types). */
export type ErrorCode = CodesOf<Operation>;

/** An error answer as an exception: its status, its body and its `error_code` (typed by the operation when thrown by `unwrap`). */
export class ApiError<Body extends { error_code: string } = ErrorBody> extends Error {
  readonly code: Body["error_code"];
  constructor(
    readonly status: number,
    readonly body: Body,
  ) {
    const detail = (body as { detail?: unknown }).detail;
    super(`${status} ${body.error_code}: ${typeof detail === "string" ? detail : JSON.stringify(detail)}`);
    this.name = "ApiError";
    this.code = body.error_code;
  }

  /** Seconds the service asked to wait (429, 503), when it said. */
  get retryAfter(): number | undefined {
    const value = (this.body as { retry_after?: unknown }).retry_after;
    return typeof value === "number" ? value : undefined;
  }
}

/** Whether `error` is an ApiError carrying one of `codes`. */
export function isApiError<C extends ErrorCode>(error: unknown, ...codes: C[]): error is ApiError<ErrorBody & { error_code: C }> {
  return error instanceof ApiError && (codes.length === 0 || (codes as string[]).includes(error.code));
}

/**
 * The data of an openapi-fetch result, or its error thrown as an ApiError typed by the
 * operation's error answers: `const session = unwrap(await client.api.POST(...))`.
 */
export function unwrap<Data, Error extends { error_code: string }>(result: { data?: Data; error?: Error; response: Response }): Data {
  if (result.error !== undefined) throw new ApiError(result.response.status, result.error);
  if (!result.response.ok) throw new ApiError(result.response.status, { error_code: "HTTP_ERROR", detail: result.response.statusText } as unknown as Error);
  return result.data as Data;
}
