/** The longest a session's sends wait after failures in a row that decided nothing (ms of the wall clock). */
export const SEND_BACKOFF_MAX_MS = 30_000;

/** How long a session's sends wait after its `failures`-th failure in a row: 1 s, doubling, at most `SEND_BACKOFF_MAX_MS`, at least what the broker asked. */
export const sendBackoffMs = (failures: number, askedMs: number): number => Math.max(askedMs, Math.min(SEND_BACKOFF_MAX_MS, 1000 * 2 ** (failures - 1)));
