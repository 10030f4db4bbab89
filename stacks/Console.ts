import { StaticSite, use, type StackContext } from "sst/constructs";
import { Api } from "./Api";
import { Realtime } from "./Realtime";

/**
 * The web console (packages/console) as a static site: S3 behind CloudFront, built at deploy time
 * at the site's root (`CONSOLE_BASE=/`) with the API's and the socket's URLs baked in
 * (`VITE_API_URL`, `VITE_SOCKET_URL`: SST puts the deployed values in after the build). Every path
 * that is not a file answers index.html, so deep links (`/backtests/{id}`) open the app; scripts and
 * styles (hashed names) are cached for a year, HTML never (StaticSite's defaults). A
 * production stage lists the console's URL in CORS_ORIGINS (docs/console.md).
 */
export function Console({ stack }: StackContext) {
  const { api } = use(Api);
  const { socketUrl } = use(Realtime);
  const site = new StaticSite(stack, "Console", {
    path: "packages/console",
    buildCommand: "CONSOLE_BASE=/ npm run build",
    buildOutput: "dist",
    errorPage: "redirect_to_index_page",
    environment: { VITE_API_URL: api.url, VITE_SOCKET_URL: socketUrl },
  });
  stack.addOutputs({ ConsoleUrl: site.url ?? "" });
  return { site };
}
