/**
 * A small protobuf (proto3) codec driven by message tables, enough for LongPort's control, quote
 * and trade messages. Hand-written rather than a dependency: the fake needs only varints,
 * length-delimited fields, nested messages and string maps, and a table per message keeps the
 * field numbers beside the names the .proto files give them.
 *
 * Values: strings; `bytes` as Buffer; booleans; every integer (int32/int64/uint32/uint64/enum) as a
 * JS number (LongPort's int64 fields hold Unix seconds, volumes and ids well inside 2^53).
 */

export type Scalar = "string" | "bytes" | "bool" | "int32" | "int64" | "uint32" | "uint64" | "enum";

export interface FieldSpec {
  no: number;
  type: Scalar | Schema;
  repeated?: boolean;
  /** A `map<string, V>`: V is `type` (a scalar or a message). */
  map?: boolean;
}

export type Schema = { [name: string]: FieldSpec };

export const field = (no: number, type: Scalar | Schema): FieldSpec => ({ no, type });
export const repeated = (no: number, type: Scalar | Schema): FieldSpec => ({ no, type, repeated: true });
export const mapOf = (no: number, type: Scalar | Schema): FieldSpec => ({ no, type, map: true });

const WIRE_VARINT = 0;
const WIRE_64 = 1;
const WIRE_LEN = 2;
const WIRE_32 = 5;

const isMessage = (type: Scalar | Schema): type is Schema => typeof type === "object";
const isNumeric = (type: Scalar | Schema) => !isMessage(type) && type !== "string" && type !== "bytes";

class Writer {
  private readonly parts: Buffer[] = [];

  varint(value: number | bigint | boolean): void {
    // Negative int32/int64 values take ten bytes: their two's complement as uint64.
    let n = BigInt.asUintN(64, BigInt(typeof value === "boolean" ? Number(value) : value));
    const bytes: number[] = [];
    while (n >= 0x80n) {
      bytes.push(Number(n & 0x7fn) | 0x80);
      n >>= 7n;
    }
    bytes.push(Number(n));
    this.parts.push(Buffer.from(bytes));
  }

  tag(no: number, wire: number): void {
    this.varint((no << 3) | wire);
  }

  lengthDelimited(no: number, data: Buffer): void {
    this.tag(no, WIRE_LEN);
    this.varint(data.length);
    this.parts.push(data);
  }

  finish(): Buffer {
    return Buffer.concat(this.parts);
  }
}

class Reader {
  pos = 0;
  constructor(private readonly buf: Buffer) {}

  get done(): boolean {
    return this.pos >= this.buf.length;
  }

  varint(): bigint {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (this.pos >= this.buf.length) throw new Error("protobuf: truncated varint");
      const byte = this.buf[this.pos++];
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7n;
    }
  }

  bytes(): Buffer {
    const length = Number(this.varint());
    if (this.pos + length > this.buf.length) throw new Error("protobuf: truncated field");
    const out = this.buf.subarray(this.pos, this.pos + length);
    this.pos += length;
    return out;
  }

  skip(wire: number): void {
    if (wire === WIRE_VARINT) this.varint();
    else if (wire === WIRE_64) this.pos += 8;
    else if (wire === WIRE_LEN) this.bytes();
    else if (wire === WIRE_32) this.pos += 4;
    else throw new Error(`protobuf: unsupported wire type ${wire}`);
  }
}

function writeValue(w: Writer, no: number, type: Scalar | Schema, value: unknown): void {
  if (isMessage(type)) return w.lengthDelimited(no, encode(type, value as Record<string, unknown>));
  switch (type) {
    case "string":
      return w.lengthDelimited(no, Buffer.from(String(value), "utf8"));
    case "bytes":
      return w.lengthDelimited(no, Buffer.isBuffer(value) ? value : Buffer.from(value as Uint8Array));
    default:
      w.tag(no, WIRE_VARINT);
      return w.varint(value as number | boolean);
  }
}

const isDefault = (value: unknown) => value === 0 || value === "" || value === false;

/** Encodes `value` by `schema`; absent fields and proto3 default scalars are left out, as protobuf does. */
export function encode(schema: Schema, value: Record<string, unknown>): Buffer {
  const w = new Writer();
  for (const [name, spec] of Object.entries(schema)) {
    const v = value[name];
    if (v === undefined || v === null) continue;
    if (spec.map) {
      const entrySchema: Schema = { key: field(1, "string"), value: field(2, spec.type) };
      for (const [key, entry] of Object.entries(v as Record<string, unknown>)) w.lengthDelimited(spec.no, encode(entrySchema, { key, value: entry }));
    } else if (spec.repeated) {
      for (const item of v as unknown[]) writeValue(w, spec.no, spec.type, item);
    } else if (isMessage(spec.type) || !isDefault(v)) {
      writeValue(w, spec.no, spec.type, v);
    }
  }
  return w.finish();
}

function scalarFrom(type: Scalar, raw: bigint): number | boolean {
  if (type === "bool") return raw !== 0n;
  if (type === "int32" || type === "enum") return Number(BigInt.asIntN(32, raw));
  if (type === "int64") return Number(BigInt.asIntN(64, raw));
  return Number(raw);
}

function readValue(r: Reader, type: Scalar | Schema, wire: number): unknown {
  if (isMessage(type)) return decode(type, r.bytes());
  if (type === "string") return r.bytes().toString("utf8");
  if (type === "bytes") return Buffer.from(r.bytes());
  if (wire !== WIRE_VARINT) throw new Error(`protobuf: ${type} on wire type ${wire}`);
  return scalarFrom(type, r.varint());
}

function defaultOf(spec: FieldSpec): unknown {
  if (spec.map) return {};
  if (spec.repeated) return [];
  if (isMessage(spec.type)) return undefined;
  if (spec.type === "string") return "";
  if (spec.type === "bytes") return Buffer.alloc(0);
  if (spec.type === "bool") return false;
  return 0;
}

/** Decodes `data` by `schema`; unknown fields are skipped, missing ones take proto3 defaults. */
export function decode<T = Record<string, any>>(schema: Schema, data: Buffer): T {
  const byNo = new Map<number, [string, FieldSpec]>();
  const out: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(schema)) {
    byNo.set(spec.no, [name, spec]);
    out[name] = defaultOf(spec);
  }
  const r = new Reader(data);
  while (!r.done) {
    const tag = Number(r.varint());
    const no = tag >>> 3;
    const wire = tag & 7;
    const known = byNo.get(no);
    if (!known) {
      r.skip(wire);
      continue;
    }
    const [name, spec] = known;
    if (spec.map) {
      const entry = decode<{ key: string; value: unknown }>({ key: field(1, "string"), value: field(2, spec.type) }, r.bytes());
      (out[name] as Record<string, unknown>)[entry.key] = entry.value;
    } else if (spec.repeated && wire === WIRE_LEN && isNumeric(spec.type)) {
      // Packed repeated scalars (proto3's default for numbers and enums, as prost writes them).
      const packed = new Reader(r.bytes());
      while (!packed.done) (out[name] as unknown[]).push(scalarFrom(spec.type as Scalar, packed.varint()));
    } else if (spec.repeated) {
      (out[name] as unknown[]).push(readValue(r, spec.type, wire));
    } else {
      out[name] = readValue(r, spec.type, wire);
    }
  }
  return out as T;
}
