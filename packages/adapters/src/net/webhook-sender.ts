import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP, type LookupFunction } from "node:net";
import type { Destinations, SendOutcome, WebhookSender } from "@tp/core/webhooks/index";
import { EgressRefused, type EgressPolicy } from "./egress";

/** The broker tests' egress rules as the webhooks' URL check: null when the host is allowed, else why not. */
export class EgressDestinations implements Destinations {
  constructor(private readonly egress: EgressPolicy) {}

  async refusal(host: string): Promise<string | null> {
    try {
      await this.egress.pin(host);
      return null;
    } catch (error) {
      if (error instanceof EgressRefused) return error.message;
      throw error;
    }
  }
}

/** How much of a receiver's answer is read (then dropped): a receiver cannot hold the worker with a long body. */
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * POSTs webhook deliveries. The host is resolved and checked by the egress policy at every try and
 * the connection goes to the checked address (the request's `lookup` answers it; TLS still checks
 * the certificate against the host name). Redirects are not followed (a 3xx is the answer): one
 * could point at an address the check would refuse. Every failure is an outcome, never an exception.
 */
export class HttpWebhookSender implements WebhookSender {
  constructor(private readonly egress: EgressPolicy) {}

  async post(url: string, body: string, headers: Record<string, string>, timeoutMs: number): Promise<SendOutcome> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const target = new URL(url);
    let address: string;
    try {
      address = await this.egress.pin(target.hostname);
    } catch (error) {
      return { status_code: null, error: error instanceof Error ? error.message : String(error), refused: true, duration_ms: elapsed() };
    }
    const family = isIP(address);
    const lookup: LookupFunction = (_host, options, done) => {
      if ((options as { all?: boolean }).all) (done as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address, family }]);
      else done(null, address, family);
    };
    const send = target.protocol === "https:" ? httpsRequest : httpRequest;
    return new Promise<SendOutcome>((resolve) => {
      // The whole try (connection, request, answer) within the timeout.
      const timer = setTimeout(() => req.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      const outcome = (status_code: number | null, error: string | null) => {
        clearTimeout(timer);
        resolve({ status_code, error, refused: false, duration_ms: elapsed() });
      };
      const req = send(target, { method: "POST", headers: { ...headers, "Content-Length": String(Buffer.byteLength(body)) }, lookup }, (res) => {
        let read = 0;
        res.on("data", (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_ANSWER_BYTES) res.destroy();
        });
        res.on("close", () => outcome(res.statusCode ?? null, null));
        res.on("error", () => undefined);
      });
      req.on("error", (error) => outcome(null, error.message.startsWith("no answer") ? error.message : "the connection failed"));
      req.end(body);
    });
  }
}
