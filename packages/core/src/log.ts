/**
 * The one logger every layer writes through (docs/code-structure.md, "Logging"). The domain and the
 * adapters log through `log`; each runtime's composition installs its logger with `useLogger`
 * (the functions and `npm start` install Powertools' logger in
 * `packages/functions/src/observability.ts`, which stamps the request id, trace id and cold start
 * in Lambda; the session worker its own in `packages/worker/src/runtime.ts`). Until one is installed (unit tests, scripts) lines go to the console as JSON with
 * the same fields: `level`, `message`, `timestamp`, `service`, then the line's own fields.
 */

/** A log line's own fields (ids, counts, `error`), flat and JSON-serialisable. */
export type LogFields = Record<string, unknown>;

export interface Logger {
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

const consoleLine = (level: "INFO" | "WARN" | "ERROR", message: string, fields: LogFields | undefined) =>
  JSON.stringify({ level, message, timestamp: new Date().toISOString(), service: "trading-platform", ...fields });

/** The logger before a runtime installs its own: JSON lines on the console. */
export const consoleLogger: Logger = {
  info: (message, fields) => console.log(consoleLine("INFO", message, fields)),
  warn: (message, fields) => console.warn(consoleLine("WARN", message, fields)),
  error: (message, fields) => console.error(consoleLine("ERROR", message, fields)),
};

let installed: Logger = consoleLogger;

/** A logger writing to `target` (Powertools' logger), each line's fields as a record of their own (none: an empty one). */
export const loggerOf = (target: { [level in keyof Logger]: (message: string, fields: LogFields) => void }): Logger => ({
  info: (message, fields) => target.info(message, { ...fields }),
  warn: (message, fields) => target.warn(message, { ...fields }),
  error: (message, fields) => target.error(message, { ...fields }),
});

/** Makes `logger` the one every `log` call goes to (a runtime's composition root calls it once). */
export function useLogger(logger: Logger): void {
  installed = logger;
}

/** The logger: each call goes to the installed one. */
export const log: Logger = {
  info: (message, fields) => installed.info(message, fields),
  warn: (message, fields) => installed.warn(message, fields),
  error: (message, fields) => installed.error(message, fields),
};
