import { describe, expect, it } from "vitest";
import { AuditTrail } from "./audit";

describe("the audit trail's summary of a body", () => {
  it("keeps a URL's scheme and host only: a webhook URL's path and query carry its token", () => {
    expect(
      AuditTrail.summarize({
        url: "https://api.telegram.org/bot123456:AAE-secret-token/sendMessage",
        hook: "https://hooks.slack.com/services/T000/B000/XXXXSECRET",
        with_credentials: { endpoint: "http://user:pass@broker.example:8080/?apikey=abc" },
        site: "https://example.com",
        note: "plain text stays",
      }),
    ).toEqual({
      url: "https://api.telegram.org/…",
      hook: "https://hooks.slack.com/…",
      with_credentials: "[redacted]",
      site: "https://example.com",
      note: "plain text stays",
    });
    expect(AuditTrail.summarize({ endpoint: { base: "http://user:pass@broker.example:8080/?apikey=abc" } })).toEqual({
      endpoint: { base: "http://broker.example:8080/…" },
    });
  });
});
