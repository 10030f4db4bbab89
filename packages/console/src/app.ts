import { createTradingClient, type TradingClient } from "@tp/client";

/** Where the API and its sockets are: the deploy-time settings, else the origin the console came from. */
const apiUrl = (import.meta.env.VITE_API_URL as string | undefined) || location.origin;
const socketUrl = (import.meta.env.VITE_SOCKET_URL as string | undefined) || undefined;
const TOKEN_KEY = "tp-console-token";

export const client: TradingClient = createTradingClient({ baseUrl: apiUrl, socketUrl, token: sessionStorage.getItem(TOKEN_KEY) ?? undefined });

export function remember(token: string | undefined): void {
  if (token) sessionStorage.setItem(TOKEN_KEY, token);
  else sessionStorage.removeItem(TOKEN_KEY);
}

export { unwrap } from "@tp/client";
/** Every operation of the API, typed (openapi-fetch over the generated paths). */
export const api = client.api;

/** Where the console lives: /console under `npm start`, the site's root when deployed (Vite's `base`). */
export const BASE = import.meta.env.BASE_URL.replace(/\/+$/, "");
/** A console page's address: `href("/backtests")`. */
export const href = (path: string): string => `${BASE}${path}`;

/** Client-side navigation inside the console. */
export function go(path: string): void {
  history.pushState(null, "", href(path));
  dispatchEvent(new PopStateEvent("popstate"));
}
