import type { components, paths } from "@tp/client";
import { api, unwrap } from "../app";
import { field, fields, h, onSubmit, statusLine, table, when } from "../ui";

type Entry = components["schemas"]["AuditEntry"];
type Kind = Entry["kind"];
type Query = NonNullable<paths["/api/v1/audit"]["get"]["parameters"]["query"]>;
/** Every kind the API's schema names, in the filter's order (a kind the API adds and this list lacks does not compile). */
const KIND_ORDER = {
  order: true,
  session: true,
  channel: true,
  risk: true,
  backtest: true,
  settings: true,
  user: true,
  broker: true,
  assets: true,
  key: true,
  auth: true,
  configuration: true,
  data: true,
  "kill-switch": true,
  webhook: true,
  other: true,
} as const satisfies Record<Kind, true>;
const KINDS = Object.keys(KIND_ORDER) as Kind[];

/** A datetime-local value as an instant (the browser's zone), or undefined when empty. */
const instant = (value: string): string | undefined => (value ? new Date(value).toISOString() : undefined);

/** /console/audit: who did what, newest first, filtered by user (administrators), session, kind and time, page by page. */
export async function auditPage(main: HTMLElement): Promise<void> {
  const status = statusLine();
  const user = h("input", { name: "user_id", autocomplete: "off", placeholder: "yourself (administrators: everyone)" });
  const session = h("input", { name: "session_id", autocomplete: "off" });
  const kind = h(
    "select",
    { name: "kind" },
    h("option", { value: "" }, "any"),
    KINDS.map((name) => h("option", { value: name }, name)),
  );
  const from = h("input", { name: "from", type: "datetime-local" });
  const to = h("input", { name: "to", type: "datetime-local" });
  const results = h("div", {});
  const more = h("div", {});
  const form = h(
    "form",
    { class: "card", "aria-label": "Audit filters", novalidate: true },
    fields(
      field("User", user),
      field("Session", session),
      field("Kind", kind),
      field("From", from, "Default: a week before To"),
      field("To", to, "Default: now; at most 31 days after From"),
    ),
    h("button", { type: "submit" }, "Show entries"),
    status,
  );
  main.append(
    h("h1", {}, "Audit trail"),
    h("p", { class: "muted" }, "Every command sent to the service, refused ones included: who, what and how it ended."),
    form,
    results,
    more,
  );

  let shown: Entry[] = [];
  const load = async (cursor?: string) => {
    const query: Query = {
      ...(user.value.trim() ? { user_id: user.value.trim() } : {}),
      ...(session.value.trim() ? { session_id: session.value.trim() } : {}),
      ...(kind.value ? { kind: kind.value as Kind } : {}),
      ...(instant(from.value) ? { from: instant(from.value) } : {}),
      ...(instant(to.value) ? { to: instant(to.value) } : {}),
      ...(cursor ? { cursor } : {}),
      limit: 50,
    };
    const page = unwrap(await api.GET("/api/v1/audit", { params: { query } }));
    shown = cursor ? [...shown, ...page.items] : page.items;
    results.replaceChildren(
      shown.length === 0
        ? h("p", { class: "muted" }, "No entries.")
        : table(
            ["When", "Who", "Kind", "Command", "Targets", "Answer", "Request"],
            shown.map((entry) => [
              when(entry.at),
              entry.key_id ? `${entry.user_id} (key ${entry.key_id})` : entry.user_id,
              entry.kind,
              h("code", {}, `${entry.method} ${entry.route}`),
              Object.entries(entry.target_ids)
                .map(([name, id]) => `${name} ${id}`)
                .join(", ") || "–",
              h(
                "span",
                { class: entry.outcome === "succeeded" ? "ok" : "error" },
                `${entry.status} ${entry.outcome}${entry.error_code ? ` (${entry.error_code})` : ""}`,
              ),
              h("code", {}, entry.request_id),
            ]),
            `Entries (${shown.length}${page.next_cursor ? ", more below" : ""})`,
          ),
    );
    more.replaceChildren(
      page.next_cursor
        ? h("button", { type: "button", class: "secondary", onclick: () => void load(page.next_cursor!).catch(status.fail) }, "Older entries")
        : "",
    );
    return `${shown.length} entries.`;
  };
  onSubmit(form, status, () => load());
  try {
    status.say(await load());
  } catch (error) {
    status.fail(error);
  }
}
