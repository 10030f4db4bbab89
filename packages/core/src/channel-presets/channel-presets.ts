import { z } from "zod";
import { notFound } from "../errors";
import { ConfigIssue, fromZod, issue, joinField } from "../risk/config-issue";
import { Limits, warningsFor } from "../risk/risk";
import { Strategies } from "../strategies";
import * as Jsonc from "./jsonc";
import { aggressiveMomentum } from "./presets/aggressive-momentum";
import { balancedMulti } from "./presets/balanced-multi";
import { conservativeValue } from "./presets/conservative-value";

/** Risk appetite of a channel. */
export const ChannelType = z.enum(["AGGRESSIVE", "BALANCED", "CONSERVATIVE"]).meta({ id: "ChannelType" });
export type ChannelType = z.infer<typeof ChannelType>;

/** One strategy run by a channel; `weight` is its share of the channel's capital. */
export const ChannelStrategy = z
  .object({
    strategy_name: z.string().min(1),
    parameters: z.record(z.string(), z.unknown()).default({}),
    weight: z.number().gt(0).max(1),
  })
  .meta({ id: "ChannelStrategy" });
export type ChannelStrategy = z.infer<typeof ChannelStrategy>;

/** One channel of a multi-channel configuration. */
export const ChannelConfig = z
  .object({
    channel_id: z
      .string()
      .min(1)
      .max(64)
      .regex(/^[A-Za-z0-9_-]+$/, "letters, digits, '_' and '-' only"),
    channel_type: ChannelType,
    capital_allocation: z.number().gt(0).max(1),
    strategies: z.array(ChannelStrategy).min(1),
    risk_limits: Limits,
  })
  .meta({ id: "ChannelConfig" });
export type ChannelConfig = z.infer<typeof ChannelConfig>;

/** A parsed channel preset. */
export const Preset = z
  .object({
    name: z.string().min(1),
    description: z.string(),
    channels: z.array(ChannelConfig).min(1),
  })
  .meta({ id: "ChannelPreset" });
export type Preset = z.infer<typeof Preset>;

/** Ids of the built-in presets. */
export const PresetId = z.enum(["aggressive-momentum", "balanced-multi", "conservative-value"]).meta({ id: "ChannelPresetId" });
export type PresetId = z.infer<typeof PresetId>;

/** A preset as listed by `list()`. */
export const PresetSummary = z
  .object({
    id: PresetId,
    name: z.string(),
    description: z.string(),
    channel_count: z.int(),
    channel_types: z.array(ChannelType),
    total_allocation: z.number().describe("Sum of the channels' capital_allocation"),
    strategy_count: z.int(),
  })
  .meta({ id: "ChannelPresetSummary" });
export type PresetSummary = z.infer<typeof PresetSummary>;

/** Interface PresetListResponse. */
export const PresetList = z.object({ presets: z.array(PresetSummary), total: z.int() }).meta({ id: "PresetListResponse" });
export type PresetList = z.infer<typeof PresetList>;

/**
 * Body of POST /channel-presets/validate (interface ConfigValidationRequest). Channels are
 * taken as they come; their problems are reported in the answer, not refused with a 422.
 */
export const ValidationRequest = z.object({ channels: z.array(z.unknown()) }).meta({ id: "ConfigValidationRequest" });
export type ValidationRequest = z.infer<typeof ValidationRequest>;

/** Outcome of `validate` (interface ConfigValidationResponse). */
export const ValidationResult = z
  .object({ valid: z.boolean(), errors: z.array(ConfigIssue), warnings: z.array(ConfigIssue) })
  .meta({ id: "ConfigValidationResponse" });
export type ValidationResult = z.infer<typeof ValidationResult>;

const TEXTS: Record<PresetId, string> = {
  "aggressive-momentum": aggressiveMomentum,
  "balanced-multi": balancedMulti,
  "conservative-value": conservativeValue,
};

const presetId = (id: string): PresetId => {
  const parsed = PresetId.safeParse(id);
  if (!parsed.success) {
    throw notFound("PRESET_NOT_FOUND", `Channel preset '${id}' does not exist; available: ${PresetId.options.join(", ")}`);
  }
  return parsed.data;
};

/** The preset's JSON-with-comments text exactly as stored; 404 `PRESET_NOT_FOUND` when unknown. */
export const raw = (id: string): string => TEXTS[presetId(id)];

/** The preset parsed into channels; 404 `PRESET_NOT_FOUND` when unknown. */
export const get = (id: string): Preset => Preset.parse(Jsonc.parse(TEXTS[presetId(id)]));

// Sums of fractions drift in the last bits (0.6 + 0.3 + 0.1 = 0.9999999999999999).
const EPSILON = 1e-9;
const round = (value: number) => Math.round(value * 1e9) / 1e9;

/** The built-in presets with a summary of each (interface PresetListResponse). */
export const list = (): PresetList => {
  const presets = PresetId.options.map((id): PresetSummary => {
    const preset = get(id);
    return {
      id,
      name: preset.name,
      description: preset.description,
      channel_count: preset.channels.length,
      channel_types: preset.channels.map((c) => c.channel_type),
      total_allocation: round(preset.channels.reduce((sum, c) => sum + c.capital_allocation, 0)),
      strategy_count: preset.channels.reduce((sum, c) => sum + c.strategies.length, 0),
    };
  });
  return { presets, total: presets.length };
};

// Limits past which a channel is looser than its type promises.
const TYPE_CEILINGS: Record<ChannelType, { max_drawdown: number; leverage_limit: number }> = {
  CONSERVATIVE: { max_drawdown: 0.15, leverage_limit: 1 },
  BALANCED: { max_drawdown: 0.25, leverage_limit: 2 },
  AGGRESSIVE: { max_drawdown: 1, leverage_limit: 10 },
};

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value);

const checkStrategies = (channel: Record<string, unknown>, prefix: string, errors: ConfigIssue[], warnings: ConfigIssue[]) => {
  if (!Array.isArray(channel.strategies)) return;
  let weightSum = 0;
  let allWeightsNumeric = true;
  channel.strategies.forEach((entry, j) => {
    if (!isObject(entry)) return;
    const field = joinField(prefix, "strategies", j);
    if (typeof entry.weight === "number") weightSum += entry.weight;
    else allWeightsNumeric = false;
    if (typeof entry.strategy_name !== "string" || entry.strategy_name === "") return;
    const result = Strategies.validate(entry.strategy_name, entry.parameters ?? {}, joinField(field, "parameters"));
    if (result.errors.some((e) => e.code === "STRATEGY_NOT_FOUND")) {
      errors.push(
        issue(
          "STRATEGY_NOT_FOUND",
          joinField(field, "strategy_name"),
          `${joinField(field, "strategy_name")}: strategy '${entry.strategy_name}' does not exist`,
        ),
      );
      return;
    }
    errors.push(...result.errors);
    warnings.push(...result.warnings);
    if (channel.channel_type === "CONSERVATIVE" && Strategies.get(entry.strategy_name).risk_level === "high") {
      warnings.push(
        issue(
          "HIGH_RISK_STRATEGY_IN_CONSERVATIVE_CHANNEL",
          joinField(field, "strategy_name"),
          `strategy '${entry.strategy_name}' is rated high risk but runs in a CONSERVATIVE channel`,
        ),
      );
    }
  });
  if (allWeightsNumeric && channel.strategies.length > 0 && Math.abs(weightSum - 1) > EPSILON) {
    warnings.push(
      issue("WEIGHTS_NOT_NORMALISED", joinField(prefix, "strategies"), `strategy weights of ${prefix} sum to ${round(weightSum)}; they are scaled to sum to 1`),
    );
  }
};

const checkTypeCeilings = (channel: Record<string, unknown>, prefix: string, warnings: ConfigIssue[]) => {
  const type = ChannelType.safeParse(channel.channel_type);
  if (!type.success || !isObject(channel.risk_limits)) return;
  const ceilings = TYPE_CEILINGS[type.data];
  for (const key of ["max_drawdown", "leverage_limit"] as const) {
    const value = channel.risk_limits[key];
    if (typeof value === "number" && value > ceilings[key]) {
      const field = joinField(prefix, "risk_limits", key);
      warnings.push(
        issue("LIMITS_LOOSER_THAN_CHANNEL_TYPE", field, `${field} ${value} is above ${ceilings[key]}, the usual ceiling for a ${type.data} channel`),
      );
    }
  }
};

/**
 * Checks a multi-channel configuration: each channel's shape and ranges, unique ids,
 * allocations summing to at most 1, strategies that exist with valid parameters, and risk
 * limits in range. Warnings cover idle capital, unnormalised weights, risky parameter choices
 * and limits looser than the channel type suggests.
 */
export const validate = (channels: unknown): ValidationResult => {
  const errors: ConfigIssue[] = [];
  const warnings: ConfigIssue[] = [];
  if (!Array.isArray(channels)) {
    return { valid: false, errors: [issue("INVALID_TYPE", "channels", "channels must be an array")], warnings };
  }
  if (channels.length === 0) {
    return { valid: false, errors: [issue("NO_CHANNELS", "channels", "channels must contain at least one channel")], warnings };
  }
  const seen = new Map<string, number>();
  let allocationSum = 0;
  let allAllocationsNumeric = true;
  channels.forEach((channel, i) => {
    const prefix = joinField("channels", i);
    const parsed = ChannelConfig.safeParse(channel);
    if (!parsed.success) errors.push(...fromZod(parsed.error, channel, prefix));
    if (!isObject(channel)) return;
    if (typeof channel.channel_id === "string") {
      const first = seen.get(channel.channel_id);
      if (first !== undefined) {
        errors.push(
          issue("DUPLICATE_CHANNEL_ID", joinField(prefix, "channel_id"), `channel_id '${channel.channel_id}' is used by channels.${first} and ${prefix}`),
        );
      } else {
        seen.set(channel.channel_id, i);
      }
    }
    if (typeof channel.capital_allocation === "number") allocationSum += channel.capital_allocation;
    else allAllocationsNumeric = false;
    checkStrategies(channel, prefix, errors, warnings);
    if (isObject(channel.risk_limits)) warnings.push(...warningsFor(channel.risk_limits, joinField(prefix, "risk_limits")));
    checkTypeCeilings(channel, prefix, warnings);
  });
  if (allAllocationsNumeric) {
    if (allocationSum > 1 + EPSILON) {
      errors.push(issue("ALLOCATION_EXCEEDS_CAPITAL", "channels", `capital_allocation of all channels sums to ${round(allocationSum)}, more than 1`));
    } else if (allocationSum < 1 - EPSILON) {
      warnings.push(
        issue(
          "UNALLOCATED_CAPITAL",
          "channels",
          `capital_allocation of all channels sums to ${round(allocationSum)}; ${round(1 - allocationSum)} of capital stays idle`,
        ),
      );
    }
  }
  return { valid: errors.length === 0, errors, warnings };
};
