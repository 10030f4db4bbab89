import type { components } from "@tp/client";
import { parse as parseJsonc } from "@tp/core/channel-presets/jsonc";
import { api, go, unwrap } from "../app";
import { field, fields, h, onSubmit, statusLine, symbolList, table } from "../ui";

type Summary = components["schemas"]["ChannelPresetSummary"];
type Session = components["schemas"]["TradingSessionResponse"];
/** A channel as a preset stores it (docs/risk-and-presets.md, "A channel"). */
type Channel = {
  channel_id: string;
  channel_type?: string;
  capital_allocation: number;
  strategies: { strategy_name: string; weight?: number }[];
};

/**
 * A new-session form: its card, status line, and the fields every new session has (name, trading
 * mode, initial capital, symbols), each control named by its place in the request body so that a
 * 422's problems are said at it. `create` posts the session with `config` (the symbols added) and opens it.
 */
function sessionForm(title: string, defaultName: string, symbolsHelp: string) {
  const status = statusLine();
  const form = h("form", { class: "card", "aria-label": title, novalidate: true }, h("h2", {}, title));
  const name = h("input", { name: "session_name", value: defaultName });
  const mode = h(
    "select",
    { name: "trading_mode" },
    ["simulation", "paper", "live"].map((m) => h("option", { value: m }, m)),
  );
  const capital = h("input", { name: "initial_capital", type: "number", value: "100000", min: 1, step: "any" });
  const symbols = h("input", { name: "config.symbols", value: "AAPL.US" });
  const basics = [field("Session name", name), field("Trading mode", mode), field("Initial capital", capital), field("Symbols", symbols, symbolsHelp)];
  const create = async (config: Record<string, unknown>) => {
    const created = unwrap(
      await api.POST("/api/v1/trading/sessions", {
        body: {
          session_name: name.value,
          trading_mode: mode.value as Session["trading_mode"],
          asset_mode: "simulated",
          initial_capital: capital.value,
          config: { ...config, symbols: symbolList(symbols.value) },
        },
      }),
    );
    go(`/sessions/${encodeURIComponent(created.id)}`);
  };
  return { form, status, basics, symbols, create };
}

/**
 * A one-channel session running one strategy (its parameters take their defaults) on 1-minute bars,
 * the strategy chosen from the catalog (`GET /strategies`), not typed.
 */
export async function strategySessionForm(): Promise<HTMLFormElement> {
  const { form, status, basics, create } = sessionForm("New session", "console session", "Comma-separated, like AAPL.US, 700.HK");
  const strategy = h("select", { name: "config.strategy_name" });
  const about = h("small", { class: "muted", "data-field": "strategy-description" });
  try {
    const catalog = unwrap(await api.GET("/api/v1/strategies")).strategies;
    strategy.append(
      ...catalog.map((s) =>
        h(
          "option",
          { value: s.strategy_id, selected: s.strategy_id === "ma_crossover", "data-description": s.description },
          `${s.display_name} (${s.category})`,
        ),
      ),
    );
  } catch (error) {
    status.fail(error);
  }
  const describe = () => {
    about.textContent = strategy.selectedOptions[0]?.dataset.description ?? "";
  };
  strategy.addEventListener("change", describe);
  describe();
  form.append(fields(...basics, field("Strategy", strategy)), about, h("button", { type: "submit" }, "Create session"), status);
  onSubmit(form, status, () => create({ strategy_name: strategy.value, timeframe: "1m" }));
  return form;
}

/**
 * A multi-channel session from a channel preset: pick the preset (its channels shown), name it,
 * give its capital and the symbols its strategies trade; the preset's channels go into the
 * session's `config.channels` as they are stored.
 */
export async function presetSessionForm(): Promise<HTMLFormElement> {
  const { form, status, basics, symbols, create } = sessionForm(
    "New session from a channel preset",
    "preset session",
    "Comma-separated: what the preset's strategies trade",
  );
  symbols.value = "AAPL.US, MSFT.US";
  let presets: Summary[];
  try {
    presets = unwrap(await api.GET("/api/v1/channel-presets/presets")).presets;
  } catch (error) {
    status.fail(error);
    form.append(status);
    return form;
  }
  const preset = h(
    "select",
    { name: "preset" },
    presets.map((p) => h("option", { value: p.id }, `${p.name} (${p.channel_count} channels)`)),
  );
  const about = h("p", { class: "muted" });
  const channelsView = h("div", { "data-table": "preset-channels" });
  let channels: Channel[] = [];
  // The chosen preset's stored text (JSON with comments): its channels, shown before the session is made.
  const showPreset = async () => {
    const summary = presets.find((p) => p.id === preset.value);
    about.textContent = summary
      ? `${summary.description} · ${summary.strategy_count} strategies · allocated ${Math.round(summary.total_allocation * 100)}%`
      : "";
    channels = [];
    channelsView.replaceChildren();
    try {
      const text = unwrap(await api.GET("/api/v1/channel-presets/presets/{preset_id}", { params: { path: { preset_id: preset.value } }, parseAs: "text" }));
      channels = (parseJsonc(text) as { channels: Channel[] }).channels;
      channelsView.replaceChildren(
        table(
          ["Channel", "Type", "Allocation", "Strategies"],
          channels.map((channel) => [
            channel.channel_id,
            channel.channel_type ?? "BALANCED",
            `${Math.round(channel.capital_allocation * 100)}%`,
            channel.strategies.map((s) => `${s.strategy_name}${s.weight !== undefined ? ` ×${s.weight}` : ""}`).join(", "),
          ]),
          `Channels of ${summary?.name ?? preset.value}`,
        ),
      );
    } catch (error) {
      status.fail(error);
    }
  };
  preset.addEventListener("change", () => void showPreset());
  form.append(field("Preset", preset), about, channelsView, fields(...basics), h("button", { type: "submit" }, "Create session from preset"), status);
  onSubmit(form, status, () => create({ channels }));
  await showPreset();
  return form;
}
