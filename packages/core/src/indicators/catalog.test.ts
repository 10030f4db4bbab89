import { describe, expect, it } from "vitest";
import { DomainError } from "../errors";
import * as Library from "./index";
import { IndicatorMetadata, Indicators } from "./index";
import { indicatorCases, streamAll } from "./testing/cases";
import { randomBars } from "./testing/random-bars";

type Constructor = new (...parameters: number[]) => object;

// The classes the catalog describes, by id; parameters are listed in constructor order.
const classes: Record<string, Constructor> = {
  sma: Library.Sma,
  ema: Library.Ema,
  wma: Library.Wma,
  rsi: Library.Rsi,
  macd: Library.Macd,
  bollinger_bands: Library.BollingerBands,
  atr: Library.Atr,
  stochastic: Library.Stochastic,
  adx: Library.Adx,
  cci: Library.Cci,
  obv: Library.Obv,
  vwap: Library.Vwap,
  mfi: Library.Mfi,
  williams_r: Library.WilliamsR,
  roc: Library.Roc,
  keltner_channels: Library.KeltnerChannels,
  donchian_channels: Library.DonchianChannels,
  parabolic_sar: Library.ParabolicSar,
  ichimoku: Library.Ichimoku,
  supertrend: Library.SuperTrend,
};

const camelCase = (name: string) => name.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());

const errorOf = (action: () => unknown): DomainError | undefined => {
  try {
    action();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  return undefined;
};

describe("Indicators.catalog", () => {
  it("lists the twenty indicators with valid, unique metadata", () => {
    expect(Indicators.catalog.map((entry) => entry.id)).toEqual(Object.keys(classes));
    for (const entry of Indicators.catalog) expect(IndicatorMetadata.parse(entry)).toEqual(entry);
    expect(Indicators.ids).toEqual(Object.keys(classes));
  });

  it("relates indicators only to indicators it lists, never to themselves", () => {
    for (const entry of Indicators.catalog) {
      for (const related of entry.related_indicators) {
        expect(Indicators.ids).toContain(related);
        expect(related).not.toBe(entry.id);
      }
    }
  });

  it("cannot be modified by a caller", () => {
    const entry = Indicators.get("rsi");
    expect(() => {
      (entry as { name_en: string }).name_en = "changed";
    }).toThrow(TypeError);
    expect(Object.isFrozen(entry.parameters[0])).toBe(true);
  });

  it("publishes the constructors' default parameters in constructor order", () => {
    for (const entry of Indicators.catalog) {
      const instance = new classes[entry.id]() as Record<string, unknown>;
      for (const parameter of entry.parameters) {
        expect(instance[camelCase(parameter.name)], `${entry.id}.${parameter.name}`).toBe(parameter.default);
      }
      const positional = new classes[entry.id](...entry.parameters.map((parameter) => parameter.default)) as Record<string, unknown>;
      for (const parameter of entry.parameters) expect(positional[camelCase(parameter.name)]).toBe(parameter.default);
    }
  });

  it("publishes the bounds the constructors enforce", () => {
    for (const entry of Indicators.catalog) {
      entry.parameters.forEach((parameter, position) => {
        const build = (value: number) => () => {
          const values = entry.parameters.map((other) => other.default);
          values[position] = value;
          return new classes[entry.id](...values);
        };
        for (const inside of [parameter.min, parameter.max]) {
          // Only a rule between two parameters (MACD fast < slow, SAR step ≤ maximum) may refuse a bound.
          const error = errorOf(build(inside));
          if (error) expect(error.message, `${entry.id}.${parameter.name}=${inside}`).toMatch(/must (be less than|not exceed)/);
        }
        const step = parameter.type === "integer" ? 1 : 1e-6;
        for (const outside of [parameter.min - step, parameter.max + step]) {
          expect(errorOf(build(outside))?.code, `${entry.id}.${parameter.name}=${outside}`).toBe("INVALID_INDICATOR_PARAMETER");
        }
        if (parameter.type === "integer") {
          expect(errorOf(build(parameter.default + 0.5))?.code).toBe("INVALID_INDICATOR_PARAMETER");
        }
      });
    }
  });

  it("names the outputs the streaming and batch forms return", () => {
    const bars = randomBars(5, 1);
    for (const entry of Indicators.catalog) {
      const indicator = indicatorCases.find((candidate) => candidate.id === entry.id)!;
      const parameters = entry.parameters.map((parameter) => parameter.default);
      const names = entry.outputs.map((output) => output.name).sort();
      expect(Object.keys(streamAll(indicator.stream(parameters), bars)[0]).sort(), entry.id).toEqual(names);
      expect(Object.keys(indicator.batch(bars, parameters)).sort(), entry.id).toEqual(names);
    }
  });
});

describe("Indicators.get", () => {
  it("returns the entry for a known id", () => {
    expect(Indicators.get("bollinger_bands").lib_ta).toBe("BBANDS");
    expect(Indicators.get("supertrend").name_en).toBe("SuperTrend");
  });

  it("throws INDICATOR_NOT_FOUND (404) for an unknown id", () => {
    const error = errorOf(() => Indicators.get("rsi2"));
    expect([error?.status, error?.code]).toEqual([404, "INDICATOR_NOT_FOUND"]);
    expect(error?.message).toContain("rsi2");
  });
});
