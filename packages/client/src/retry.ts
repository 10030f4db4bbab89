/** How the client retries an answer that says to come back later. */
export interface RetryOptions {
  /** Retries after the first attempt (default 3). */
  attempts?: number;
  /** A wait longer than this many seconds is not waited for: the answer is returned (default 30; a login lockout is 15 minutes). */
  maxWaitSeconds?: number;
}

export type Sleep = (ms: number) => Promise<void>;
export const sleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Seconds an answer asks to wait: the `Retry-After` header, else the body's `retry_after`. */
async function retryAfterOf(response: Response): Promise<number | undefined> {
  const header = Number(response.headers.get("Retry-After"));
  if (response.headers.has("Retry-After") && Number.isFinite(header)) return header;
  try {
    const body = (await response.clone().json()) as { retry_after?: unknown };
    return typeof body.retry_after === "number" ? body.retry_after : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A fetch that sends a request again when the service answers 429 or 503 with a wait
 * (`Retry-After` / `retry_after`), after that wait, at most `attempts` times; other answers,
 * and waits longer than `maxWaitSeconds`, are returned as they are.
 */
export function retryingFetch(fetcher: (request: Request) => Promise<Response>, options: RetryOptions = {}, wait: Sleep = sleep) {
  const attempts = options.attempts ?? 3;
  const maxWaitSeconds = options.maxWaitSeconds ?? 30;
  return async (request: Request): Promise<Response> => {
    // Kept unread, so the body can be sent again.
    const original = request.clone();
    let response = await fetcher(request);
    for (let attempt = 0; attempt < attempts && (response.status === 429 || response.status === 503); attempt++) {
      const seconds = await retryAfterOf(response);
      if (seconds === undefined || seconds > maxWaitSeconds) return response;
      await response.body?.cancel();
      await wait(seconds * 1000);
      response = await fetcher(original.clone());
    }
    return response;
  };
}
