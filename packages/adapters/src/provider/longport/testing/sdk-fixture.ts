import { beforeAll } from "vitest";
import { LongportCodec, type LongportSdk } from "../codec";
import { loadLongport } from "../sdk";

/**
 * The codec's tests' SDK: conversions are tested with the SDK's own Decimal, NaiveDate and Time
 * and its enum objects. Result classes (quotes, orders, ...) have no public constructor, so objects
 * shaped like them, built from SDK values, go through the same functions. A test file calls
 * `withLongportSdk()` once; the bindings below are set before its tests run.
 */
export let sdk: LongportSdk;
export let codec: LongportCodec;
/** The SDK's enum objects by name (declared `const`, so read at run time). */
export let E: Record<string, Record<string, number>>;

export function withLongportSdk(): void {
  beforeAll(async () => {
    sdk = await loadLongport();
    codec = new LongportCodec(sdk);
    E = sdk as unknown as Record<string, Record<string, number>>;
  });
}

export const dec = (value: string) => new sdk.Decimal(value);
/** An SDK result object: the fields given, typed as the class. */
export const shaped = <T>(fields: Record<string, unknown>) => fields as unknown as T;
