/**
 * Writes the embedded app's OpenAPI document to packages/api/openapi.json, which the docs
 * function serves (it holds no group itself). Run after changing a route: `npm run openapi`.
 * `test/api/openapi.test.ts` fails while the file differs from the app's document.
 */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { configFromEnv } from "@tp/adapters/config";
import { createServices } from "@tp/adapters/services";
import { createApp, openApiDocumentOf } from "@tp/api/app";

export const OPENAPI_FILE = fileURLToPath(new URL("../packages/api/openapi.json", import.meta.url));

/** The document as the file holds it. */
export const openApiText = (document: unknown) => `${JSON.stringify(document, null, 2)}\n`;

/** The embedded app's document. Composing the services does no I/O; only the routes are read. */
export async function embeddedDocument(): Promise<unknown> {
  const key = new TextEncoder().encode("openapi-document-only-openapi-document");
  return openApiDocumentOf(createApp(createServices(configFromEnv({}, key, key.slice(0, 32)))));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(OPENAPI_FILE, openApiText(await embeddedDocument()));
  console.log(`Wrote ${OPENAPI_FILE}`);
}
