import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Group } from "./group";

/**
 * The API docs page (Swagger UI) served from the pinned `swagger-ui-dist` package, not a CDN:
 * it works on a machine without internet access and runs no third party's latest script. The
 * assets are read once, on first request, and cached by browsers for a day (they change only
 * with the package version).
 */
const require = createRequire(import.meta.url);
const ASSETS = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
} as const;
type Asset = keyof typeof ASSETS;

const cache = new Map<Asset, string>();
const asset = (name: Asset): string => {
  let text = cache.get(name);
  if (text === undefined) {
    text = readFileSync(require.resolve(`swagger-ui-dist/${name}`), "utf8");
    cache.set(name, text);
  }
  return text;
};

const page = (title: string, specUrl: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script>window.ui = SwaggerUIBundle({ url: ${JSON.stringify(specUrl)}, dom_id: "#swagger-ui", deepLinking: true });</script>
</body>
</html>`;

/** `GET /docs` and its assets under `/docs/assets/`. */
export function mountDocsPage(app: Group, options: { title: string; specUrl: string }): void {
  const html = page(options.title, options.specUrl);
  app.get("/docs", (c) => c.html(html));
  app.get("/docs/assets/:name", (c) => {
    const name = c.req.param("name") as Asset;
    if (!(name in ASSETS)) return c.notFound();
    return c.body(asset(name), 200, { "Content-Type": ASSETS[name], "Cache-Control": "public, max-age=86400" });
  });
}
