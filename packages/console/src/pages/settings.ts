import type { components } from "@tp/client";
import { api, unwrap } from "../app";
import { FieldProblems, field, h, onSubmit, statusLine, when } from "../ui";
import { usersSection } from "./users";

type Provider = components["schemas"]["ProviderConfig"];
const LANGUAGES = ["en", "zh-CN", "zh-HK"] as const;

/** /console/settings: the data source, the LongPort provider, the asset mode and the lookback days as forms; users for administrators. */
export async function settingsPage(main: HTMLElement): Promise<void> {
  const status = statusLine();
  main.append(h("h1", {}, "Settings and users"), status);
  const sections = await Promise.all([dataSourceForm(), providerForm(), assetModeForm(), lookbackForm()]);
  main.append(h("div", { class: "columns" }, sections), await usersSection());
}

/** A settings form: a card with its own status line, filled by `load` (what fails to load is said there). */
async function settingsForm(title: string, build: (form: HTMLFormElement, status: ReturnType<typeof statusLine>) => Promise<void>): Promise<HTMLFormElement> {
  const status = statusLine();
  const form = h("form", { class: "card", "aria-label": title, novalidate: true }, h("h2", {}, title));
  try {
    await build(form, status);
  } catch (error) {
    status.fail(error);
  }
  form.append(status);
  return form;
}

function select(name: string, options: readonly string[], value: string): HTMLSelectElement {
  return h(
    "select",
    { name },
    options.map((option) => h("option", { value: option, selected: option === value }, option)),
  );
}

/** Which market-data provider the service uses: `simulated` or `longport`. */
function dataSourceForm(): Promise<HTMLFormElement> {
  return settingsForm("Data source", async (form, status) => {
    const current = unwrap(await api.GET("/api/v1/settings/data-source"));
    const type = select("type", ["simulated", "longport"], current.type);
    // Version 0 is the defaults, never changed: said so, not "version 0".
    const versionText = (version: number) =>
      version === 0 ? "Never changed: the service's defaults." : `Changed ${version} time${version === 1 ? "" : "s"} (version ${version}).`;
    const version = h("span", { "data-field": "version" }, versionText(current.version));
    form.append(
      field("Provider", type, "LongPort needs its credentials stored first (the LongPort form)"),
      h("p", { class: "muted" }, version),
      h("button", { type: "submit" }, "Save data source"),
    );
    onSubmit(form, status, async () => {
      const saved = unwrap(await api.PUT("/api/v1/settings/data-source", { body: { type: type.value as "simulated" | "longport" } }));
      version.textContent = versionText(saved.version);
      return `Data source: ${saved.type}.`;
    });
  });
}

/** The LongPort credentials (answered masked; a masked value sent back keeps the stored secret), language and overnight data. */
function providerForm(): Promise<HTMLFormElement> {
  return settingsForm("LongPort provider", async (form, status) => {
    const secret = (name: string) => h("input", { name, autocomplete: "off", spellcheck: "false" });
    const appKey = secret("app_key");
    const appSecret = secret("app_secret");
    const accessToken = secret("access_token");
    const language = select("language", LANGUAGES, "en");
    const overnight = h("input", { type: "checkbox", name: "enable_overnight" });
    const state = h("p", { class: "muted", "data-field": "configured" });
    const show = (config: Provider) => {
      appKey.value = config.app_key;
      appSecret.value = config.app_secret;
      accessToken.value = config.access_token;
      language.value = config.language;
      overnight.checked = config.enable_overnight;
      state.textContent = config.configured
        ? `Credentials stored${config.updated_at ? `, changed ${when(config.updated_at)}` : ""}${config.access_token_expires_at ? `; the token expires ${when(config.access_token_expires_at)}` : ""}.`
        : "No credentials stored.";
    };
    show(unwrap(await api.GET("/api/v1/settings/provider")));
    const masked = "Shown masked: leave it as it is to keep the stored one";
    form.append(
      state,
      field("App key", appKey, masked),
      field("App secret", appSecret, masked),
      field("Access token", accessToken, masked),
      field("Language", language),
      field("Overnight data (US, 20:00–03:50 ET)", overnight),
      h("button", { type: "submit" }, "Save provider"),
    );
    onSubmit(form, status, async () => {
      const body = {
        app_key: appKey.value,
        app_secret: appSecret.value,
        access_token: accessToken.value,
        language: language.value as (typeof LANGUAGES)[number],
        enable_overnight: overnight.checked,
      };
      show(unwrap(await api.PUT("/api/v1/settings/provider", { body })));
      return "Provider saved.";
    });
  });
}

/** The caller's own asset mode: the simulated account or the real one. */
function assetModeForm(): Promise<HTMLFormElement> {
  return settingsForm("Asset mode", async (form, status) => {
    const current = unwrap(await api.GET("/api/v1/settings/asset-mode"));
    const mode = select("asset_mode", ["simulated", "real"], current.asset_mode);
    form.append(
      field("Asset mode", mode, "Which account your sessions and the accounts page use (yours only)"),
      h("button", { type: "submit" }, "Save asset mode"),
    );
    onSubmit(form, status, async () => {
      const saved = unwrap(await api.PUT("/api/v1/settings/asset-mode", { body: { asset_mode: mode.value as "simulated" | "real" } }));
      return `Asset mode: ${saved.asset_mode}.`;
    });
  });
}

/** The data sync's lookback: days of history settled and backfilled per symbol. */
function lookbackForm(): Promise<HTMLFormElement> {
  return settingsForm("Data sync", async (form, status) => {
    const sync = unwrap(await api.GET("/api/v1/data-sync/status"));
    const days = h("input", { type: "number", name: "days", min: 1, step: 1, value: String(sync.lookback_days) });
    form.append(field("Lookback days", days, "Days of history settled and backfilled per symbol"), h("button", { type: "submit" }, "Save lookback days"));
    onSubmit(form, status, async () => {
      const value = Number(days.value);
      if (days.value.trim() === "" || !Number.isInteger(value)) throw new FieldProblems([["days", "a whole number of days"]]);
      // The range is the service's: out of it, its 400 names the field and is said next to it.
      const saved = unwrap(await api.PUT("/api/v1/data-sync/config/lookback-days", { params: { query: { days: value } } }));
      return `Lookback set to ${saved.lookback_days} days.`;
    });
  });
}
