import { z } from "zod";

/**
 * A request enum that accepts canonical values and a fixed set of aliases and always yields the
 * canonical value. Listing aliases in the enum (rather than normalising free text) keeps every
 * accepted spelling visible in the generated OpenAPI document.
 */
export function enumWithAliases<const C extends readonly string[]>(canonical: C, aliases: Readonly<Record<string, C[number]>>) {
  const accepted = [...canonical, ...Object.keys(aliases)] as unknown as [string, ...string[]];
  return z.enum(accepted).transform((value) => (aliases[value] ?? value) as C[number]);
}
