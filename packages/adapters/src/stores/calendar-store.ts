import { conflict } from "@tp/core/errors";
import type { CalendarEntry, CalendarEntryStore } from "@tp/core/trading-calendar/index";
import type { Db } from "../dynamo/db";
import { Keys } from "../dynamo/keys";
import { Repository } from "../dynamo/repository";

const ENTRY_EXISTS = "CALENDAR_ENTRY_EXISTS";

/** Calendar entries: one item per symbol and date in the symbol's partition, so a range is one Query. */
export class DynamoCalendarStore implements CalendarEntryStore {
  private readonly entries: Repository<CalendarEntry>;

  constructor(db: Db) {
    this.entries = new Repository<CalendarEntry>(db, {
      type: "CalendarEntry",
      key: (entry) => Keys.calendarEntry(entry.symbol, entry.date),
    });
  }

  list(symbol: string, start: string, end: string): Promise<CalendarEntry[]> {
    return this.entries.queryAll(Keys.calendarPartition(symbol), { between: [start, end] });
  }

  async createIfAbsent(entry: CalendarEntry): Promise<boolean> {
    try {
      await this.entries.put(entry, { ifAbsent: true, conflict: () => conflict(ENTRY_EXISTS, `${entry.symbol} ${entry.date} exists`) });
      return true;
    } catch (error) {
      if ((error as { code?: string }).code === ENTRY_EXISTS) return false;
      throw error;
    }
  }
}
