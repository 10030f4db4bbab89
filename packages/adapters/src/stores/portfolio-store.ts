import { assetExists, type AssetRecord, type PortfolioMode, type PortfolioStore, type Position } from "@tp/core/assets/index";
import type { Db } from "../dynamo/db";
import { Keys } from "../dynamo/keys";
import { Repository } from "../dynamo/repository";
import { transact, type TransactionStep } from "../dynamo/transactions";

/** TransactWriteItems takes at most 100 actions. */
const TRANSACTION_LIMIT = 100;

/**
 * Cash accounts (one item per user and mode) and positions (one item each, listed per user and
 * mode through gsi1 in creation order, then symbol). A position is read by its id alone, so a request for
 * someone else's position finds it and answers 403 rather than 404.
 */
export class DynamoPortfolioStore implements PortfolioStore {
  private readonly assets: Repository<AssetRecord>;
  private readonly positions: Repository<Position>;

  constructor(db: Db) {
    this.assets = new Repository<AssetRecord>(db, {
      type: "AssetAccount",
      key: (asset) => Keys.assetAccount(asset.user_id, asset.mode),
    });
    this.positions = new Repository<Position>(db, {
      type: "Position",
      key: (position) => Keys.position(position.id),
      indexes: { gsi1: (position) => Keys.positionOfUser(position.user_id, position.mode, position.created_at, position.symbol, position.id) },
    });
  }

  getAsset(userId: string, mode: PortfolioMode) {
    return this.assets.get(Keys.assetAccount(userId, mode));
  }

  async createAsset(asset: AssetRecord): Promise<void> {
    await this.assets.put(asset, { ifAbsent: true, conflict: () => assetExists(asset.mode) });
  }

  async putAsset(asset: AssetRecord): Promise<void> {
    await this.assets.put(asset);
  }

  deleteAsset(userId: string, mode: PortfolioMode) {
    return this.assets.delete(Keys.assetAccount(userId, mode));
  }

  getPosition(id: string) {
    return this.positions.get(Keys.position(id));
  }

  listPositions(userId: string, mode: PortfolioMode) {
    return this.positions.queryAll(Keys.positionsOfUser(userId, mode), { index: "gsi1" });
  }

  async putPosition(position: Position): Promise<void> {
    await this.positions.put(position);
  }

  async deletePosition(position: Position): Promise<void> {
    await this.positions.delete(Keys.position(position.id));
  }

  /**
   * One transaction when the change fits (up to 100 writes, the usual case); larger portfolios
   * are written in chunks, positions first and the account last, so a failure part-way leaves
   * the old cash figure rather than a new one beside half-written holdings.
   */
  async replacePortfolio(asset: AssetRecord, positions: Position[]): Promise<void> {
    const keep = new Set(positions.map((position) => position.id));
    const existing = await this.listPositions(asset.user_id, asset.mode);
    const steps: TransactionStep[] = [
      ...existing.filter((position) => !keep.has(position.id)).map((position) => ({ delete: Keys.position(position.id) })),
      ...positions.map((position) => ({ put: this.positions.toItem(position) })),
      { put: this.assets.toItem(asset) },
    ];
    for (let start = 0; start < steps.length; start += TRANSACTION_LIMIT) {
      await transact(this.assets.db, steps.slice(start, start + TRANSACTION_LIMIT));
    }
  }
}
