import type { components } from "@tp/client";
import Decimal from "decimal.js";
import { isApiError } from "@tp/client";
import { api, unwrap } from "../app";
import { currencyOfSymbol, money, signedMoney } from "../format";
import { actionButton, describeError, field, fields, h, onSubmit, statusLine, table } from "../ui";

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
          currencies(cash).map((c) => [c, money(cash[c as "USD"] ?? "0", c)]),
          "Cash",
        ),
        positionsTable(positions),
      );
    } catch (error) {
      if (isApiError(error) && error.status === 404) real.append(h("p", { class: "muted" }, "No real account yet."), await createRealAccount(load));
      else real.append(h("p", { class: "muted" }, describeError(error)));
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
            money(account.cash_by_currency?.[c as "USD"] ?? "0", c),
            money(free?.[c as "USD"] ?? "0", c),
            money(inSessions?.[c as "USD"] ?? "0", c),
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

/**
 * The real account's form when there is none: its cash and currency, created for the caller
 * (`POST /api/v1/assets`), or filled by a sync (the buttons above).
 */
async function createRealAccount(reload: () => Promise<void>): Promise<HTMLFormElement> {
  const status = statusLine();
  const cash = h("input", { name: "cash_assets", type: "number", step: "any", value: "0" });
  const currency = h(
    "select",
    { name: "currency" },
    ["USD", "HKD", "CNY", "SGD"].map((code) => h("option", { value: code }, code)),
  );
  const form = h(
    "form",
    { "aria-label": "Create the real account", novalidate: true },
    h("p", {}, "Create it with the cash you hold, or sync it from the broker or the provider above."),
    fields(field("Cash", cash), field("Currency", currency)),
    h("button", { type: "submit" }, "Create the real account"),
    status,
  );
  onSubmit(form, status, async () => {
    const me = unwrap(await api.GET("/api/v1/me"));
    unwrap(await api.POST("/api/v1/assets", { body: { user_id: me.id, cash_assets: cash.value, currency: currency.value as "USD" } }));
    await reload();
    return "Real account created.";
  });
  return form;
}

/** Positions with their P&L at the last price (cost and price as the API gives them, decimal strings; the P&L exact). */
function positionsTable(positions: Record<string, string>[]): HTMLTableElement {
  return table(
    ["Symbol", "Quantity", "Cost", "Price", "P&L"],
    positions.map((p) => {
      const currency = p.currency ?? currencyOfSymbol(p.symbol);
      const pnl = p.current_price ? new Decimal(p.current_price).minus(p.cost_price ?? "0").times(p.quantity ?? "0") : null;
      return [
        p.symbol,
        p.quantity,
        money(p.cost_price, currency),
        p.current_price ? money(p.current_price, currency) : "–",
        pnl ? signedMoney(pnl.toString(), currency) : "–",
      ];
    }),
    `Positions (${positions.length})`,
  );
}
