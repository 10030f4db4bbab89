import "./style.css";
import { BASE, client, go, href, remember } from "./app";
import { h } from "./ui";
import { signInPage } from "./pages/sign-in";
import { backtestsPage, backtestResultPage } from "./pages/backtests";
import { comparePage } from "./pages/compare";
import { sessionsPage } from "./pages/sessions";
import { sessionPage } from "./pages/session-page";
import { accountsPage } from "./pages/accounts";
import { symbolPage } from "./pages/symbols";
import { settingsPage } from "./pages/settings";
import { apiKeysPage } from "./pages/api-keys";
import { auditPage } from "./pages/audit";
import { webhooksPage } from "./pages/webhooks";
import { killSwitchPage } from "./pages/kill-switch";
import { sweepPage, sweepsPage } from "./pages/sweeps";

/** A page: renders into `main` and returns what to do when the user leaves it (close sockets, stop timers). */
export type Page = (main: HTMLElement, params: Record<string, string>) => void | (() => void) | Promise<void | (() => void)>;

const routes: [RegExp, Page, string][] = [
  [/^\/backtests\/compare$/, comparePage, "Compare backtests"],
  [/^\/backtests\/(?<backtest_id>[^/]+)$/, backtestResultPage, "Backtest"],
  [/^\/backtests$/, backtestsPage, "Backtests"],
  [/^\/sweeps\/(?<sweep_id>[^/]+)$/, sweepPage, "Sweep"],
  [/^\/sweeps$/, sweepsPage, "Sweeps"],
  [/^\/sessions\/(?<session_id>[^/]+)$/, sessionPage, "Session"],
  [/^\/sessions$/, sessionsPage, "Sessions"],
  [/^\/accounts$/, accountsPage, "Accounts"],
  [/^\/symbols\/(?<symbol>[^/]+)$/, symbolPage, "Market data"],
  [/^\/symbols$/, symbolPage, "Market data"],
  [/^\/settings$/, settingsPage, "Settings and users"],
  [/^\/api-keys$/, apiKeysPage, "API keys"],
  [/^\/audit$/, auditPage, "Audit trail"],
  [/^\/webhooks$/, webhooksPage, "Webhooks"],
  [/^\/kill-switch$/, killSwitchPage, "Kill switch"],
];

const NAV: [string, string][] = [
  ["/backtests", "Backtests"],
  ["/sweeps", "Sweeps"],
  ["/sessions", "Sessions"],
  ["/accounts", "Accounts"],
  ["/symbols/AAPL.US", "Market data"],
  ["/settings", "Settings"],
  ["/api-keys", "API keys"],
  ["/audit", "Audit"],
  ["/webhooks", "Webhooks"],
  ["/kill-switch", "Kill switch"],
];

let leave: (() => void) | void;

function header(): void {
  const top = document.getElementById("top")!;
  top.replaceChildren();
  if (!client.token) return;
  const link = (path: string, label: string) =>
    h("a", { href: href(path), "aria-current": location.pathname.startsWith(href(path.split("/").slice(0, 2).join("/"))) ? "page" : undefined }, label);
  const signOut = h("button", { type: "button", class: "link" }, "Sign out");
  signOut.addEventListener("click", async () => {
    try {
      await client.logout();
    } catch {
      // The token may have expired already: forgetting it is what signing out means here.
    }
    client.token = undefined;
    remember(undefined);
    go("/");
  });
  top.append(
    h(
      "nav",
      { "aria-label": "Console" },
      h("strong", {}, "Trading console"),
      NAV.map(([path, label]) => link(path, label)),
      signOut,
    ),
  );
}

let renders = 0;
/**
 * Shows the page of the current address. Each render draws into a view of its own: when another
 * navigation starts while a page is still loading (a backtest's socket and its polling both
 * seeing it done), the older page goes on into its detached view, never into the newer one, and
 * what it returns to leave with is called at once.
 */
async function render(): Promise<void> {
  const generation = ++renders;
  leave?.();
  leave = undefined;
  const view = h("div", {});
  document.getElementById("app")!.replaceChildren(view);
  const show = async (page: Page, params: Record<string, string>) => {
    const cleanup = await page(view, params);
    if (generation === renders) leave = cleanup;
    else cleanup?.();
  };
  const path = location.pathname.slice(BASE.length).replace(/\/+$/, "") || "/";
  header();
  if (!client.token || path === "/") {
    if (client.token && path === "/") return go("/backtests");
    document.title = "Sign in · Trading console";
    return show(signInPage, {});
  }
  for (const [pattern, page, title] of routes) {
    const match = pattern.exec(path);
    if (!match) continue;
    const params = Object.fromEntries(Object.entries(match.groups ?? {}).map(([key, value]) => [key, decodeURIComponent(value)]));
    document.title = `${title} · Trading console`;
    return show(page, params);
  }
  view.append(h("h1", {}, "Not found"), h("p", {}, "No console page has this address. "), h("a", { href: href("/backtests") }, "Go to the backtests"));
}

// Links inside the console navigate without a reload.
document.addEventListener("click", (event) => {
  const anchor = (event.target as Element).closest?.("a");
  if (!anchor || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
  const target = anchor.getAttribute("href");
  if (!target?.startsWith(`${BASE}/`)) return;
  event.preventDefault();
  go(target.slice(BASE.length) || "/");
});
addEventListener("popstate", () => void render());
void render();
