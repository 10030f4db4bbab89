import { z } from "zod";

/** Currencies of cash and positions. `USD` is the default of an account that names none. */
export const CurrencyType = z.enum(["USD", "HKD", "CNY", "SGD"]).meta({ id: "CurrencyType" });
export type CurrencyType = z.infer<typeof CurrencyType>;
export const DEFAULT_CURRENCY: CurrencyType = "USD";
