import { conflict } from "@tp/core/errors";
import type { CorporateActionStore, StoredCorporateActions } from "@tp/core/candles/corporate-actions";
import type { Db } from "../dynamo/db";
import { Keys } from "../dynamo/keys";
import { Repository } from "../dynamo/repository";

const CHANGED = "CORPORATE_ACTIONS_CHANGED";
const changed = () => conflict(CHANGED, "The corporate actions changed meanwhile");

/** Corporate actions: one item per symbol (its actions sorted by ex-date, a few dozen at most), replaced conditionally on `version`. */
export class DynamoCorporateActionStore implements CorporateActionStore {
  private readonly records: Repository<StoredCorporateActions>;

  constructor(db: Db) {
    this.records = new Repository<StoredCorporateActions>(db, { type: "CorporateActions", key: (record) => Keys.corporateActions(record.symbol) });
  }

  get(symbol: string) {
    return this.records.get(Keys.corporateActions(symbol));
  }

  async save(record: StoredCorporateActions): Promise<boolean> {
    try {
      if (record.version === 1) await this.records.put(record, { ifAbsent: true, conflict: changed });
      else await this.records.replaceIf(record, "version", record.version - 1, changed);
      return true;
    } catch (error) {
      if ((error as { code?: string }).code === CHANGED) return false;
      throw error;
    }
  }
}
