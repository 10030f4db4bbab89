/**
 * Plain-JSON snapshots of streaming state (indicator instances, their ring buffers, a
 * strategy's own fields). The indicator classes keep their state in ordinary fields and typed
 * arrays, so a snapshot walks own enumerable properties; restoring writes the values back into
 * a freshly constructed object of the same shape, which keeps prototypes, readonly buffers and
 * constructor-derived constants intact. NaN and infinities, which JSON cannot carry, are
 * encoded as `{"$num": "NaN"}`; typed arrays as `{"$typed": [...]}`.
 */

/** A JSON value. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const NUMBER_TAG = "$num";
const TYPED_TAG = "$typed";

const encodeNumber = (value: number): Json => (Number.isFinite(value) ? value : { [NUMBER_TAG]: String(value) });

const decodeNumber = (value: Json): number => {
  if (typeof value === "number") return value;
  if (isTagged(value, NUMBER_TAG)) return Number(value[NUMBER_TAG]);
  throw new TypeError(`snapshot holds ${JSON.stringify(value)} where a number was expected`);
};

const isTagged = (value: Json, tag: string): value is { [key: string]: Json } =>
  value !== null && typeof value === "object" && !Array.isArray(value) && tag in value;

/** Encodes a value and everything it owns as JSON. */
export const capture = (value: unknown): Json => {
  if (typeof value === "number") return encodeNumber(value);
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  if (ArrayBuffer.isView(value)) {
    return { [TYPED_TAG]: Array.from(value as unknown as ArrayLike<number>, encodeNumber) };
  }
  if (Array.isArray(value)) return value.map(capture);
  if (typeof value === "object") {
    const out: { [key: string]: Json } = {};
    for (const [key, field] of Object.entries(value as Record<string, unknown>)) {
      if (field === undefined || typeof field === "function") continue;
      out[key] = capture(field);
    }
    return out;
  }
  throw new TypeError(`cannot snapshot a value of type ${typeof value}`);
};

const decode = (snapshot: Json): unknown => {
  if (isTagged(snapshot, NUMBER_TAG)) return decodeNumber(snapshot);
  if (isTagged(snapshot, TYPED_TAG)) return Float64Array.from((snapshot[TYPED_TAG] as Json[]).map(decodeNumber));
  if (Array.isArray(snapshot)) return snapshot.map(decode);
  if (snapshot !== null && typeof snapshot === "object") {
    return Object.fromEntries(Object.entries(snapshot as { [key: string]: Json }).map(([key, field]) => [key, decode(field)]));
  }
  return snapshot;
};

/**
 * Writes a snapshot back into `target`, an object built the same way as the one captured.
 * Typed arrays are refilled in place, nested objects restored recursively, other fields set.
 */
export const restoreInto = (target: object, snapshot: Json): void => {
  if (snapshot === null || typeof snapshot !== "object" || Array.isArray(snapshot)) {
    throw new TypeError("an object snapshot was expected");
  }
  const fields = target as Record<string, unknown>;
  for (const [key, saved] of Object.entries(snapshot)) {
    const current = fields[key];
    if (ArrayBuffer.isView(current) && isTagged(saved, TYPED_TAG)) {
      const values = (saved[TYPED_TAG] as Json[]).map(decodeNumber);
      const array = current as unknown as { length: number; set(values: ArrayLike<number>): void };
      if (values.length !== array.length) {
        throw new TypeError(`snapshot buffer '${key}' has ${values.length} values, expected ${array.length}`);
      }
      array.set(values);
    } else if (
      current !== null &&
      typeof current === "object" &&
      !Array.isArray(current) &&
      saved !== null &&
      typeof saved === "object" &&
      !Array.isArray(saved) &&
      !isTagged(saved, NUMBER_TAG)
    ) {
      restoreInto(current, saved);
    } else {
      fields[key] = decode(saved);
    }
  }
};
