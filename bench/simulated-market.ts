/**
 * Throughput of the simulated market: 1-minute candles generated, longer periods aggregated,
 * candlesticks formatted through the port, and quotes answered. Run with
 * `npx tsx bench/simulated-market.ts`; prints a table (it is a benchmark, not a timed test).
 */
import { pathToFileURL } from "node:url";
import { ManualClock } from "../packages/core/src/provider/clock";
import type { Period } from "../packages/core/src/provider/quote-enums";
import { MASK_ALL, MASK_INTRADAY } from "../packages/adapters/src/provider/simulated/day-layout";
import { SimulatedMarketData } from "../packages/adapters/src/provider/simulated/simulated-market-data";
import { generateDay, SimulationEngine } from "../packages/adapters/src/provider/simulated/simulation-engine";

interface Row {
  benchmark: string;
  items: number;
  seconds: number;
}

const END = Date.parse("2030-01-01T00:00:00Z");

function timed(benchmark: string, run: () => number): Row {
  const started = process.hrtime.bigint();
  const items = run();
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { benchmark, items, seconds };
}

async function timedAsync(benchmark: string, run: () => Promise<number>): Promise<Row> {
  const started = process.hrtime.bigint();
  const items = await run();
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { benchmark, items, seconds };
}

/** Runs every measurement and returns the rows (also used by a bench runner, if any). */
export async function runSimulatedMarketBench(): Promise<Row[]> {
  const rows: Row[] = [];
  const symbols = new SimulationEngine().instruments.map((i) => i.spec.symbol);

  // Warm-up: JIT, calendars, anchors, quantile tables.
  {
    const engine = new SimulationEngine();
    for (const instrument of engine.instruments) engine.bars(instrument, "1m", 1500, 1510, END, MASK_ALL);
  }

  // Raw generation: every minute of every session (overnight included), no caching involved.
  {
    const engine = new SimulationEngine();
    rows.push(
      timed("generate 1m bars (all sessions, raw engine)", () => {
        let bars = 0;
        for (const instrument of engine.instruments) {
          instrument.anchors();
          for (let ordinal = 1000; ordinal < 1250; ordinal++) bars += generateDay(instrument, instrument.timeline.layout(ordinal)).close.length;
        }
        return bars;
      }),
    );
  }

  // Columnar 1m bars through the engine's range query, cold cache (a fresh engine).
  {
    const engine = new SimulationEngine();
    rows.push(
      timed("1m bars, one year per symbol (columnar, cold)", () => {
        let bars = 0;
        for (const instrument of engine.instruments) bars += engine.bars(instrument, "1m", 1250, 1500, END, MASK_ALL).length;
        return bars;
      }),
    );
  }

  // Longer periods aggregated from the 1m path (cold: each minute is generated once). Counted in
  // 1-minute bars consumed, since that is the work; the output is far fewer bars.
  for (const period of ["5m", "1h", "1d"] as Period[]) {
    const engine = new SimulationEngine();
    let output = 0;
    const row = timed(`${period} bars aggregated from 1m, one year per symbol (cold)`, () => {
      let minutes = 0;
      for (const instrument of engine.instruments) {
        output += engine.bars(instrument, period, 1250, 1500, END, MASK_INTRADAY).length;
        for (let ordinal = 1250; ordinal <= 1500; ordinal++) {
          const shape = instrument.timeline.layout(ordinal).shape;
          minutes += shape.blockLength.reduce((sum, length, b) => sum + (shape.blockSession[b] === 0 ? length : 0), 0);
        }
      }
      return minutes;
    });
    rows.push({ ...row, benchmark: `${row.benchmark} → ${output.toLocaleString("en-US")} bars` });
  }

  // Through the port: JSON candlesticks (decimal strings, ISO times), one month of 1m per call.
  {
    const md = new SimulatedMarketData({ clock: new ManualClock("2027-01-01T00:00:00Z") });
    rows.push(
      await timedAsync("1m candlesticks via historyCandlesticksByDate (JSON)", async () => {
        let bars = 0;
        for (const symbol of symbols) {
          for (const [start, end] of [
            ["2026-03-01", "2026-03-31"],
            ["2026-04-01", "2026-04-30"],
          ]) {
            bars += (await md.historyCandlesticksByDate(symbol, "1m", "NoAdjust", start, end, "All")).length;
          }
        }
        return bars;
      }),
    );
  }

  // Quotes: the clock moves a minute at a time through a trading day, every symbol quoted each
  // minute. One unmeasured pass first, so the table shows steady state rather than JIT warm-up.
  {
    const clock = new ManualClock("2026-03-10T13:31:00Z");
    const md = new SimulatedMarketData({ clock });
    const stepThroughDay = async () => {
      let quotes = 0;
      for (let minute = 0; minute < 960; minute++) {
        clock.set(Date.parse("2026-03-10T01:31:00Z") + minute * 60_000);
        for (const symbol of symbols) {
          await md.quote([symbol]);
          quotes++;
        }
      }
      return quotes;
    };
    await stepThroughDay();
    rows.push(await timedAsync("quote(), one symbol per call, clock stepping by the minute", stepThroughDay));
    rows.push(
      await timedAsync("quote(), all symbols per call, same minute repeated", async () => {
        let quotes = 0;
        clock.set("2026-03-10T15:00:00Z");
        for (let call = 0; call < 4000; call++) quotes += (await md.quote(symbols)).length;
        return quotes;
      }),
    );
  }

  // Quotes at random instants over 2020–2028: every quote lands on a different (uncached) day.
  {
    const clock = new ManualClock(0);
    const md = new SimulatedMarketData({ clock });
    const from = Date.parse("2020-02-01T00:00:00Z");
    const span = Date.parse("2028-12-01T00:00:00Z") - from;
    let seed = 12345;
    rows.push(
      await timedAsync("quote() at random instants 2020–2028 (cold days)", async () => {
        let quotes = 0;
        for (let i = 0; i < 3000; i++) {
          seed = (seed * 1103515245 + 12345) & 0x7fffffff;
          clock.set(from + (seed / 0x7fffffff) * span);
          await md.quote([symbols[i % symbols.length]]);
          quotes++;
        }
        return quotes;
      }),
    );
  }
  return rows;
}

function print(rows: Row[]): void {
  const table = rows.map((r) => ({
    benchmark: r.benchmark,
    items: r.items.toLocaleString("en-US"),
    seconds: r.seconds.toFixed(3),
    "per second": Math.round(r.items / r.seconds).toLocaleString("en-US"),
  }));
  const widths = Object.keys(table[0]).map((key) => Math.max(key.length, ...table.map((row) => String(row[key as keyof typeof row]).length)));
  const line = (cells: string[]) => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join("  ");
  console.log(line(Object.keys(table[0])));
  console.log(line(widths.map((w) => "-".repeat(w))));
  for (const row of table) console.log(line(Object.values(row)));
  console.log(`\nnode ${process.version}, ${process.platform}/${process.arch}`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  runSimulatedMarketBench().then(print, (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
