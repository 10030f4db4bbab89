import type { components } from "@tp/client";
import { api, unwrap } from "../app";
import { actionButton, field, fields, h, onSubmit, statusLine, symbolList, table, when } from "../ui";

type ApiKey = components["schemas"]["ApiKeyResponse"];
type Scope = ApiKey["scopes"][number];
const SCOPES: [Scope, string][] = [
  ["read", "Read: GET requests"],
  ["trade", "Trade: orders, sessions, channels, risk and every other command"],
  ["backtest", "Backtest: backtests and sweeps"],
  ["admin", "Admin: everything (administrators only)"],
];

/** /console/api-keys: the caller's API keys (never their secrets), a new key shown once, and revoking one. */
export async function apiKeysPage(main: HTMLElement): Promise<void> {
  const status = statusLine();
  const list = h("div", {});
  main.append(h("h1", {}, "API keys"), h("p", { class: "muted" }, "Keys let a bot call the API with only the scopes and sessions it needs."), status);
  let keys: ApiKey[] = [];
  const showList = () =>
    list.replaceChildren(
      keys.length === 0
        ? h("p", { class: "muted" }, "No keys yet.")
        : table(
            ["Name", "Key", "Scopes", "Sessions", "Created", "Expires", "Status", ""],
            keys.map((key) => [
              key.name,
              h("code", {}, `${key.prefix}_…`),
              key.scopes.join(", "),
              key.session_ids?.join(", ") ?? "all",
              when(key.created_at),
              when(key.expires_at),
              key.status,
              key.status === "active"
                ? actionButton(
                    `Revoke ${key.name}`,
                    async () => {
                      const revoked = unwrap(await api.DELETE("/api/v1/auth/api-keys/{key_id}", { params: { path: { key_id: key.id } } }));
                      keys = keys.map((known) => (known.id === revoked.id ? revoked : known));
                      showList();
                      return `Key ${revoked.name} revoked: it no longer works.`;
                    },
                    status,
                  )
                : "",
            ]),
            `Your keys (${keys.length})`,
          ),
    );
  try {
    keys = unwrap(await api.GET("/api/v1/auth/api-keys")).items;
  } catch (error) {
    status.fail(error);
  }
  showList();
  main.append(
    list,
    newKeyForm((created) => {
      keys = [created, ...keys];
      showList();
    }),
  );
}

/** The form of a new key; the key itself is shown under it once, with a warning that it is not shown again. */
function newKeyForm(created: (key: ApiKey) => void): HTMLFormElement {
  const status = statusLine();
  const name = h("input", { name: "name", autocomplete: "off" });
  const scopes = SCOPES.map(([scope, label]) => ({ scope, box: h("input", { type: "checkbox", name: `scope-${scope}`, checked: scope === "read" }), label }));
  const days = h("input", { name: "expires_in_days", type: "number", min: 1, max: 365, value: 90 });
  const sessions = h("input", { name: "session_ids", autocomplete: "off", placeholder: "all sessions" });
  const shown = h("div", { "aria-live": "polite" });
  const form = h(
    "form",
    { class: "card", "aria-label": "New API key", novalidate: true },
    h("h2", {}, "New API key"),
    fields(
      field("Name", name, "What the key is for"),
      field("Expires in days", days, "1 to 365"),
      field("Sessions", sessions, "Session ids, comma-separated; empty: all your sessions"),
    ),
    h(
      "fieldset",
      { name: "scopes" },
      h("legend", {}, "Scopes"),
      scopes.map(({ box, label }) => {
        box.id = `${box.name}-box`;
        return h("div", {}, box, h("label", { for: box.id }, label));
      }),
    ),
    h("button", { type: "submit" }, "Create key"),
    status,
    shown,
  );
  onSubmit(form, status, async () => {
    const chosen = scopes.filter(({ box }) => box.checked).map(({ scope }) => scope);
    const sessionIds = symbolList(sessions.value);
    const answer = unwrap(
      await api.POST("/api/v1/auth/api-keys", {
        body: {
          name: name.value.trim(),
          scopes: chosen,
          expires_in_days: Number(days.value),
          ...(sessionIds.length ? { session_ids: sessionIds } : {}),
        },
      }),
    );
    const { key, ...listed } = answer;
    shown.replaceChildren(
      h(
        "div",
        { class: "card", role: "alert" },
        h("p", {}, h("strong", {}, "Copy this key now: it is not shown again.")),
        h("code", { class: "secret", "aria-label": "The new key" }, key),
        h("p", { class: "muted" }, "Send it as Authorization: Bearer <key> or X-API-Key: <key>."),
      ),
    );
    name.value = "";
    created(listed);
    return `Key ${answer.name} created.`;
  });
  return form;
}
