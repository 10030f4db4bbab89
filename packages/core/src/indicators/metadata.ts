import { z } from "zod";

/** The family an indicator belongs to. */
export const IndicatorCategory = z.enum(["trend", "momentum", "volatility", "volume"]).meta({ id: "IndicatorCategory" });
export type IndicatorCategory = z.infer<typeof IndicatorCategory>;

/** What an indicator measures, how it is computed and how traders read it. */
export const IndicatorDescription = z
  .object({
    summary: z.string(),
    formula: z.string(),
    interpretation: z.string(),
  })
  .meta({ id: "IndicatorDescription" });
export type IndicatorDescription = z.infer<typeof IndicatorDescription>;

/**
 * One constructor parameter, listed in constructor order. Values outside [min, max] (inclusive)
 * are rejected by the constructors with INVALID_INDICATOR_PARAMETER.
 */
export const IndicatorParameter = z
  .object({
    name: z.string(),
    type: z.enum(["integer", "number"]),
    default: z.number(),
    min: z.number(),
    max: z.number(),
    description: z.string(),
  })
  .meta({ id: "IndicatorParameter" });
export type IndicatorParameter = z.infer<typeof IndicatorParameter>;

/** One output line; for multi-output indicators `name` is the field of the result object. */
export const IndicatorOutput = z
  .object({
    name: z.string(),
    description: z.string(),
  })
  .meta({ id: "IndicatorOutput" });
export type IndicatorOutput = z.infer<typeof IndicatorOutput>;

/** Catalog entry served by GET /api/v1/indicators and /api/v1/indicators/{indicator_id}. */
export const IndicatorMetadata = z
  .object({
    id: z.string(),
    name_cn: z.string(),
    name_en: z.string(),
    category: IndicatorCategory,
    description: IndicatorDescription,
    parameters: z.array(IndicatorParameter),
    outputs: z.array(IndicatorOutput),
    lib_ta: z.string().nullable().describe("TA-Lib function whose conventions are followed; null where TA-Lib has none"),
    usage_notes: z.array(z.string()),
    related_indicators: z.array(z.string()),
    version: z.string(),
  })
  .meta({ id: "IndicatorMetadata" });
export type IndicatorMetadata = z.infer<typeof IndicatorMetadata>;
