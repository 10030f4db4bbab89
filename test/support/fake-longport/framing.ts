import { gunzipSync } from "node:zlib";

/**
 * LongPort's binary packet framing, one packet per WebSocket binary message (docs: socket/protocol;
 * the SDK's rust/crates/wsclient/src/codec.rs). Multi-byte integers are big-endian.
 *
 * Header byte: bits 0-3 the packet type (1 request, 2 response, 3 push), bit 4 "verify" (a
 * 8-byte nonce and 16-byte signature follow the body), bit 5 "gzip" (the body is gzipped).
 *
 * - request:  header, cmd (1), request_id (4), timeout_ms (2), body_len (3), body
 * - response: header, cmd (1), request_id (4), status (1), body_len (3), body
 * - push:     header, cmd (1), body_len (3), body
 *
 * A response with a status other than 0 carries a `{code, msg}` error body (control/error.proto).
 */

export const PACKET_REQUEST = 1;
export const PACKET_RESPONSE = 2;
export const PACKET_PUSH = 3;

const FLAG_VERIFY = 0b0001_0000;
const FLAG_GZIP = 0b0010_0000;
const SIGNATURE_BYTES = 8 + 16;

export type Packet =
  | { type: "request"; command: number; requestId: number; timeoutMs: number; body: Buffer }
  | { type: "response"; command: number; requestId: number; status: number; body: Buffer }
  | { type: "push"; command: number; body: Buffer };

/** Decodes one packet; throws on a truncated or unknown one. */
export function decodePacket(data: Buffer): Packet {
  if (data.length === 0) throw new Error("empty packet");
  const header = data[0];
  const kind = header & 0x0f;
  const gzip = (header & FLAG_GZIP) !== 0;
  const verify = (header & FLAG_VERIFY) !== 0;
  const bodyAt = (offset: number) => {
    const length = data.readUIntBE(offset, 3);
    const end = offset + 3 + length;
    if (end + (verify ? SIGNATURE_BYTES : 0) > data.length) throw new Error("truncated packet");
    const raw = data.subarray(offset + 3, end);
    return gzip ? gunzipSync(raw) : Buffer.from(raw);
  };
  const command = data[1];
  switch (kind) {
    case PACKET_REQUEST:
      return { type: "request", command, requestId: data.readUInt32BE(2), timeoutMs: data.readUInt16BE(6), body: bodyAt(8) };
    case PACKET_RESPONSE:
      return { type: "response", command, requestId: data.readUInt32BE(2), status: data[6], body: bodyAt(7) };
    case PACKET_PUSH:
      return { type: "push", command, body: bodyAt(2) };
    default:
      throw new Error(`unknown packet type ${kind}`);
  }
}

const bodyLength = (body: Buffer) => {
  if (body.length >= 1 << 24) throw new Error("body too long for a 24-bit length");
  const out = Buffer.alloc(3);
  out.writeUIntBE(body.length, 0, 3);
  return out;
};

export function encodeRequest(command: number, requestId: number, timeoutMs: number, body: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head[0] = PACKET_REQUEST;
  head[1] = command;
  head.writeUInt32BE(requestId, 2);
  head.writeUInt16BE(timeoutMs, 6);
  return Buffer.concat([head, bodyLength(body), body]);
}

export function encodeResponse(command: number, requestId: number, status: number, body: Buffer): Buffer {
  const head = Buffer.alloc(7);
  head[0] = PACKET_RESPONSE;
  head[1] = command;
  head.writeUInt32BE(requestId, 2);
  head[6] = status;
  return Buffer.concat([head, bodyLength(body), body]);
}

export function encodePush(command: number, body: Buffer): Buffer {
  return Buffer.concat([Buffer.from([PACKET_PUSH, command]), bodyLength(body), body]);
}
