import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { embeddedDocument, OPENAPI_FILE, openApiText } from "../../scripts/openapi";

describe("packages/api/openapi.json (what the docs function serves)", () => {
  it("is the embedded app's OpenAPI document: after changing a route, run npm run openapi", async () => {
    const written = readFileSync(OPENAPI_FILE, "utf8");
    const document = await embeddedDocument();
    expect(Object.keys((document as { paths: object }).paths).length).toBeGreaterThan(150);
    expect(written, "packages/api/openapi.json is stale: run npm run openapi").toBe(openApiText(document));
  });
});
