import { beforeAll, describe, expect, it } from "vitest";
import { createTestApi, type TestApi } from "../support/harness";

let api: TestApi;
let token: string;
beforeAll(async () => {
  api = await createTestApi();
  token = (await api.createUser()).token;
});

const INDICATOR_FIELDS = [
  "category",
  "description",
  "id",
  "lib_ta",
  "name_cn",
  "name_en",
  "outputs",
  "parameters",
  "related_indicators",
  "usage_notes",
  "version",
];

describe("indicator catalog", () => {
  it("serves the same array of IndicatorMetadata at /indicators/ and /indicators", async () => {
    const slash = await api.json("GET", "/api/v1/indicators/", 200, { token });
    const bare = await api.json("GET", "/api/v1/indicators", 200, { token });
    expect(bare).toEqual(slash);
    expect(slash).toHaveLength(20);
    expect(slash.slice(0, 6).map((i: any) => i.id)).toEqual(["sma", "ema", "wma", "rsi", "macd", "bollinger_bands"]);
    for (const entry of slash) expect(Object.keys(entry).sort(), entry.id).toEqual(INDICATOR_FIELDS);
  });

  it("gives one indicator with its parameters, outputs and version", async () => {
    const rsi = await api.json("GET", "/api/v1/indicators/rsi", 200, { token });
    expect(rsi).toMatchObject({
      id: "rsi",
      name_en: "Relative Strength Index",
      category: "momentum",
      parameters: [{ name: "period", type: "integer", default: 14, min: 1, max: 10000 }],
      outputs: [{ name: "value" }],
      lib_ta: "RSI",
      version: "1.0.0",
    });
    expect(rsi.description).toEqual({ summary: expect.any(String), formula: expect.any(String), interpretation: expect.any(String) });
    const bands = await api.json("GET", "/api/v1/indicators/bollinger_bands", 200, { token });
    expect(bands.outputs.map((o: any) => o.name)).toEqual(["upper", "middle", "lower"]);
  });

  it("answers 404 INDICATOR_NOT_FOUND for an unknown indicator", async () => {
    const body = await api.json("GET", "/api/v1/indicators/not_an_indicator", 404, { token });
    expect(body).toMatchObject({ error_code: "INDICATOR_NOT_FOUND", path: "/api/v1/indicators/not_an_indicator" });
  });

  it("answers 401 without a token", async () => {
    await api.json("GET", "/api/v1/indicators", 401);
    await api.json("GET", "/api/v1/indicators/", 401);
    await api.json("GET", "/api/v1/indicators/rsi", 401);
  });
});
