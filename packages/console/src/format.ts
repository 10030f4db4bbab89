import Decimal from "decimal.js";

/**
 * Figures as a trader reads them (docs/console.md "Figures"): money with its currency, ratios in
 * percent, times in the market's time zone with the zone named, daily data as dates. The API's
 * money is decimal strings: they are rounded to cents with decimal.js, never through a float sum.
 */

type Amount = string | number | null | undefined;
const missing = (value: Amount): value is null | undefined | "" => value === null || value === undefined || value === "" || Number.isNaN(value);

/** The time zone of a market, from a symbol's suffix (`.HK` Hong Kong, anything else New York). */
export const zoneOf = (symbol: string | undefined): string => (symbol?.toUpperCase().endsWith(".HK") ? "Asia/Hong_Kong" : "America/New_York");
/** The currency a market trades in. */
export const currencyOfSymbol = (symbol: string | undefined): string => (symbol?.toUpperCase().endsWith(".HK") ? "HKD" : "USD");

const groups = new Map<string, Intl.NumberFormat>();
const grouped = (currency: string): Intl.NumberFormat => {
  let format = groups.get(currency);
  if (!format) {
    format = new Intl.NumberFormat("en-US", { style: "currency", currency, currencyDisplay: "code", minimumFractionDigits: 2, maximumFractionDigits: 2 });
    groups.set(currency, format);
  }
  return format;
};

/** `USD 12,345.67` (a negative amount `-USD 45.80`); exact to the cent from a decimal string. */
export function money(value: Amount, currency: string): string {
  if (missing(value)) return "–";
  const cents = new Decimal(value).toDecimalPlaces(2, Decimal.ROUND_HALF_UP);
  // Intl formats a JavaScript number: cents of amounts below 2^53 / 100 survive the conversion.
  return grouped(currency)
    .format(cents.toNumber())
    .replace(/\u00a0/g, " ");
}

/** A change of money with its sign: `+USD 12.00`, `-USD 45.80`. */
export function signedMoney(value: Amount, currency: string): string {
  const text = money(value, currency);
  return missing(value) || text.startsWith("-") || new Decimal(value).isZero() ? text : `+${text}`;
}

/** A ratio in percent: `0.1234` → `12.34%`. */
export function percent(value: Amount, digits = 2): string {
  if (missing(value)) return "–";
  return `${(Number(value) * 100).toFixed(digits)}%`;
}

const dateTimes = new Map<string, Intl.DateTimeFormat>();
function formatter(zone: string, kind: "datetime" | "date" | "time"): Intl.DateTimeFormat {
  const key = `${zone}|${kind}`;
  let format = dateTimes.get(key);
  if (!format) {
    const options: Intl.DateTimeFormatOptions =
      kind === "date"
        ? { year: "numeric", month: "short", day: "2-digit", timeZone: zone }
        : kind === "time"
          ? { hour: "2-digit", minute: "2-digit", second: "2-digit", hour12: false, timeZone: zone, timeZoneName: "short" }
          : { year: "numeric", month: "short", day: "2-digit", hour: "2-digit", minute: "2-digit", hour12: false, timeZone: zone, timeZoneName: "short" };
    format = new Intl.DateTimeFormat("en-US", options);
    dateTimes.set(key, format);
  }
  return format;
}

/** An instant in a market's zone, the zone named: `Mar 15, 2024, 09:31 EDT`. */
export function marketTime(iso: string | number | null | undefined, zone: string): string {
  if (iso === null || iso === undefined || iso === "") return "–";
  const at = typeof iso === "number" ? iso : Date.parse(iso);
  return Number.isFinite(at) ? formatter(zone, "datetime").format(at) : String(iso);
}

/** The clock time only, with seconds and the zone: `09:31:05 EDT` (a live list's rows). */
export function marketClock(iso: string | number | null | undefined, zone: string): string {
  if (iso === null || iso === undefined || iso === "") return "–";
  const at = typeof iso === "number" ? iso : Date.parse(iso);
  return Number.isFinite(at) ? formatter(zone, "time").format(at) : String(iso);
}

/**
 * A trading day: `Mar 15, 2024`. A date (`2024-03-15`) or the instant a daily bar is stamped with
 * (midnight UTC, or the market's open): the day is read in UTC for a date or a midnight-UTC stamp,
 * else in the market's zone, so a daily fill never reads as "5:00:00 AM" or the day before.
 */
export function tradingDay(value: string | null | undefined, zone: string): string {
  if (!value) return "–";
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return formatter("UTC", "date").format(Date.parse(`${value}T00:00:00Z`));
  const at = Date.parse(value);
  if (!Number.isFinite(at)) return value;
  return formatter(at % 86_400_000 === 0 ? "UTC" : zone, "date").format(at);
}

/** Whether a value looks like an id the API made (a UUID): never shown as a name. */
export const isUuid = (text: string): boolean => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(text);

/** A decimal string's value for a chart (floats are fine for drawing). */
export const chartValue = (value: Amount): number => (missing(value) ? 0 : Number(value));
