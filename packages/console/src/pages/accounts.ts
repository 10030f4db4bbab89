import type { components } from "@tp/client";
import { api, unwrap } from "../app";
import { actionButton, describeError, h, statusLine, table } from "../ui";

type Simulated = components["schemas"]["SimulatedAssetResponse"];
type Money = Partial<Record<"USD" | "HKD" | "CNY" | "SGD", string>> | null | undefined;

const currencies = (...books: Money[]) => [...new Set(books.flatMap((book) => Object.keys(book ?? {})))].sort();

/** /console/accounts: the real and the simulated account, cash by currency and positions, and the syncs. */
export async function accountsPage(main: HTMLElement): Promise<void> {
  const status = statusLine();
  const real = h("section", { class: "card", "aria-label": "Real account" });
  const simulated = h("section", { class: "card", "aria-label": "Simulated account" });
  const sync = (label: string, run: () => Promise<unknown>) =>
    actionButton(
      label,
      async () => {
        const answer = (await run()) as { message?: string };
        await load();
        return answer?.message ?? `${label}: done`;
      },
      status,
    );
  main.append(
    h("h1", {}, "Accounts"),
    h(
      "div",
      { class: "row" },
      sync("Sync from the broker", async () => unwrap(await api.POST("/api/v1/assets/sync", { body: {} as never }))),
      sync("Sync from the provider", async () => unwrap(await api.POST("/api/v1/assets/sync-from-provider", { body: {} as never }))),
      sync("Copy real into simulated", async () => unwrap(await api.POST("/api/v1/assets/sync-to-simulated", { body: {} as never }))),
    ),
    status,
    h("div", { class: "columns" }, real, simulated),
  );
  async function load(): Promise<void> {
    real.replaceChildren(h("h2", {}, "Real account"));
    simulated.replaceChildren(h("h2", {}, "Simulated account"));
    try {
      const account = unwrap(await api.GET("/api/v1/assets")) as unknown as { cash_assets: string; currency: string; cash_by_currency?: Money };
      const positions = unwrap(await api.GET("/api/v1/assets/positions")) as unknown as Record<string, string>[];
      const cash = account.cash_by_currency ?? { [account.currency]: account.cash_assets };
      real.append(
        table(
          ["Currency", "Cash"],
          currencies(cash).map((c) => [c, cash[c as "USD"] ?? "0"]),
          "Cash",
        ),
        positionsTable(positions),
      );
    } catch (error) {
      real.append(h("p", { class: "muted" }, `No real account yet (${describeError(error)}). Sync from the broker or the provider to fill it.`));
    }
    try {
      const account = unwrap(await api.GET("/api/v1/assets/simulated")) as Simulated;
      const positions = unwrap(await api.GET("/api/v1/assets/simulated/positions")) as unknown as Record<string, string>[];
      const free = account.free_cash_by_currency;
      const inSessions = (account as unknown as { in_sessions_by_currency?: Money }).in_sessions_by_currency;
      simulated.append(
        table(
          ["Currency", "Cash", "Free", "In sessions"],
          currencies(account.cash_by_currency, free).map((c) => [
            c,
            account.cash_by_currency?.[c as "USD"] ?? "0",
            free?.[c as "USD"] ?? "0",
            inSessions?.[c as "USD"] ?? "0",
          ]),
          "Cash",
        ),
      );
      simulated.append(positionsTable(positions));
    } catch (error) {
      simulated.append(h("p", { class: "muted" }, `No simulated account yet (${describeError(error)}). It opens with your first simulated trade.`));
    }
  }
  await load();
}

/** Positions with their P&L at the last price (cost and price as the API gives them, decimal strings). */
function positionsTable(positions: Record<string, string>[]): HTMLTableElement {
  return table(
    ["Symbol", "Quantity", "Cost", "Price", "P&L"],
    positions.map((p) => {
      const pnl = p.current_price ? ((Number(p.current_price) - Number(p.cost_price)) * Number(p.quantity)).toFixed(2) : "–";
      return [p.symbol, p.quantity, p.cost_price, p.current_price ?? "–", pnl];
    }),
    `Positions (${positions.length})`,
  );
}
