import { describe, expect, it } from "vitest";
import { retryingFetch } from "./retry";

/** A fetch that answers from a list and records what it was sent. */
function scripted(...answers: Response[]) {
  const sent: { method: string; body: string }[] = [];
  const fetcher = async (request: Request) => {
    sent.push({ method: request.method, body: await request.text() });
    return answers.shift()!;
  };
  return { fetcher, sent };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json", ...headers } });

describe("retryingFetch", () => {
  it("sends a request again, body and all, after the Retry-After of a 503", async () => {
    const { fetcher, sent } = scripted(json(503, { error_code: "SERVICE_UNAVAILABLE", retry_after: 9 }, { "Retry-After": "2" }), json(200, { ok: true }));
    const waits: number[] = [];
    const fetch = retryingFetch(fetcher, {}, async (ms) => void waits.push(ms));
    const response = await fetch(new Request("http://service/api/v1/backtest/start", { method: "POST", body: '{"a":1}' }));
    expect(response.status).toBe(200);
    expect(waits).toEqual([2_000]);
    expect(sent).toEqual([
      { method: "POST", body: '{"a":1}' },
      { method: "POST", body: '{"a":1}' },
    ]);
  });

  it("reads the wait from the body's retry_after when there is no header, for 429 too, at most `attempts` times", async () => {
    const busy = () => json(429, { error_code: "TOO_MANY_REQUESTS", retry_after: 1 });
    const { fetcher, sent } = scripted(busy(), busy(), busy());
    const waits: number[] = [];
    const response = await retryingFetch(fetcher, { attempts: 2 }, async (ms) => void waits.push(ms))(new Request("http://service/x"));
    expect(response.status).toBe(429);
    expect(await response.json()).toMatchObject({ error_code: "TOO_MANY_REQUESTS" });
    expect(waits).toEqual([1_000, 1_000]);
    expect(sent).toHaveLength(3);
  });

  it("returns at once a wait longer than maxWaitSeconds, an answer without a wait, and any other status", async () => {
    for (const answer of [
      json(429, { error_code: "TOO_MANY_REQUESTS", retry_after: 900 }),
      json(503, { error_code: "SERVICE_UNAVAILABLE" }),
      json(409, { error_code: "SESSION_RUNNING" }),
    ]) {
      const { fetcher, sent } = scripted(answer);
      const waits: number[] = [];
      const response = await retryingFetch(fetcher, { maxWaitSeconds: 30 }, async (ms) => void waits.push(ms))(new Request("http://service/x"));
      expect(response.status).toBe(answer.status);
      expect(waits).toEqual([]);
      expect(sent).toHaveLength(1);
    }
  });
});
