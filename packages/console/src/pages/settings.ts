import type { components } from "@tp/client";
import { api, unwrap } from "../app";
import { actionButton, field, h, statusLine, table, when } from "../ui";

type User = components["schemas"]["UserResponse"];

/** /console/settings: provider, data source, asset mode, lookback days; users for administrators. */
export async function settingsPage(main: HTMLElement): Promise<void> {
  main.append(h("h1", {}, "Settings and users"));
  const status = statusLine();
  main.append(status);

  const jsonCard = async (title: string, load: () => Promise<unknown>, save: (value: unknown) => Promise<unknown>) => {
    const text = h("textarea", { rows: 8, spellcheck: "false" });
    const card = h("section", { class: "card", "aria-label": title }, h("h2", {}, title), field(`${title} (JSON)`, text));
    try {
      text.value = JSON.stringify(await load(), null, 2);
    } catch (error) {
      status.fail(error);
    }
    card.append(
      actionButton(
        `Save ${title.toLowerCase()}`,
        async () => {
          let value: unknown;
          try {
            value = JSON.parse(text.value);
          } catch {
            throw new Error(`${title}: the text is not valid JSON`);
          }
          text.value = JSON.stringify(await save(value), null, 2);
          return `${title} saved.`;
        },
        status,
      ),
    );
    return card;
  };

  main.append(
    await jsonCard(
      "Provider",
      async () => unwrap(await api.GET("/api/v1/settings/provider")),
      async (body) => unwrap(await api.PUT("/api/v1/settings/provider", { body: body as never })),
    ),
    await jsonCard(
      "Data source",
      async () => unwrap(await api.GET("/api/v1/settings/data-source")),
      async (body) => unwrap(await api.PUT("/api/v1/settings/data-source", { body: body as never })),
    ),
    await jsonCard(
      "Asset mode",
      async () => unwrap(await api.GET("/api/v1/settings/asset-mode")),
      async (body) => unwrap(await api.PUT("/api/v1/settings/asset-mode", { body: body as never })),
    ),
  );

  const lookback = h("input", { type: "number", min: 1, step: 1, name: "lookback_days" });
  try {
    const sync = unwrap(await api.GET("/api/v1/data-sync/status")) as unknown as { lookback_days?: number };
    lookback.value = String(sync.lookback_days ?? "");
  } catch (error) {
    status.fail(error);
  }
  main.append(
    h(
      "section",
      { class: "card", "aria-label": "Lookback days" },
      h("h2", {}, "Data sync"),
      field("Lookback days", lookback, "Days of history settled and backfilled per symbol"),
      actionButton(
        "Save lookback days",
        async () => {
          unwrap(await api.PUT("/api/v1/data-sync/config/lookback-days", { body: { lookback_days: Number(lookback.value) } as never }));
          return `Lookback set to ${lookback.value} days.`;
        },
        status,
      ),
    ),
  );

  const users = h("section", { class: "card", "aria-label": "Users" }, h("h2", {}, "Users"));
  main.append(users);
  try {
    const list = unwrap(await api.GET("/api/v1/users")) as unknown as User[] | { users: User[] };
    const rows = Array.isArray(list) ? list : list.users;
    users.append(
      table(
        ["Username", "Email", "Type", "Status", "Created"],
        rows.map((u) => [u.username, u.email ?? "–", u.user_type, u.status, when(u.created_at)]),
      ),
    );
  } catch (error) {
    users.append(h("p", { class: "muted" }, `Only administrators see the users (${(error as Error).message}).`));
  }
}
