import { gunzipSync, gzipSync } from "node:zlib";

/** A value as gzipped JSON, for a binary attribute (a run's state, its outbox, its blocks). */
export const gzipJson = (value: unknown): Uint8Array => gzipSync(JSON.stringify(value));

/** The value a `gzipJson` attribute holds. */
export const gunzipJson = <T>(body: Uint8Array): T => JSON.parse(gunzipSync(body).toString("utf8")) as T;
