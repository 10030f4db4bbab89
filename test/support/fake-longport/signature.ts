import { createHash, createHmac, timingSafeEqual } from "node:crypto";

/**
 * LongPort's HTTP request signature (the SDK's rust/crates/httpclient/src/signature.rs):
 *
 *   canonical = METHOD|path|query|authorization:<token>\nx-api-key:<key>\nx-timestamp:<ts>\n|authorization;x-api-key;x-timestamp|[sha1(body)]
 *   signature = hex(HMAC-SHA256(app_secret, "HMAC-SHA256|" + hex(sha1(canonical))))
 *
 * sent as `X-Api-Signature: HMAC-SHA256 SignedHeaders=authorization;x-api-key;x-timestamp, Signature=<hex>`.
 * `query` is the raw query string as sent; the body digest is appended only when there is a body.
 * `X-Timestamp` is Unix seconds.
 */

const SIGNED_HEADERS = "authorization;x-api-key;x-timestamp";

const sha1 = (data: string | Buffer) => createHash("sha1").update(data).digest("hex");

export interface SignedRequest {
  method: string;
  path: string;
  query: string;
  accessToken: string;
  appKey: string;
  timestamp: string;
  body?: Buffer;
}

/** The `X-Api-Signature` value the SDK sends for `request` signed with `appSecret`. */
export function signatureHeader(request: SignedRequest, appSecret: string): string {
  const values = `authorization:${request.accessToken}\nx-api-key:${request.appKey}\nx-timestamp:${request.timestamp}\n`;
  let canonical = `${request.method.toUpperCase()}|${request.path}|${request.query}|${values}|${SIGNED_HEADERS}|`;
  if (request.body && request.body.length > 0) canonical += sha1(request.body);
  const signature = createHmac("sha256", appSecret)
    .update(`HMAC-SHA256|${sha1(canonical)}`)
    .digest("hex");
  return `HMAC-SHA256 SignedHeaders=${SIGNED_HEADERS}, Signature=${signature}`;
}

/** Whether `header` is the signature of `request` under `appSecret`. */
export function verifySignature(request: SignedRequest, header: string | undefined, appSecret: string): boolean {
  if (!header) return false;
  const expected = Buffer.from(signatureHeader(request, appSecret));
  const actual = Buffer.from(header);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
