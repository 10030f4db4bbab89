import { settingsChanged, type ProviderSettings, type SettingsStore, type StoredAssetMode } from "@tp/core/settings/index";
import type { Db } from "../dynamo/db";
import { Keys } from "../dynamo/keys";
import { Repository } from "../dynamo/repository";

const PROVIDER = "PROVIDER";
const ASSET_MODE = "ASSET_MODE";

/**
 * Settings on the single table: the service-wide provider settings are one item guarded by its
 * version (conditional writes), a user's asset mode one item in their partition.
 */
export class DynamoSettingsStore implements SettingsStore {
  private readonly provider: Repository<ProviderSettings>;
  private readonly assetModes: Repository<StoredAssetMode>;

  constructor(db: Db) {
    this.provider = new Repository<ProviderSettings>(db, { type: "ProviderSettings", key: () => Keys.serviceSettings(PROVIDER) });
    this.assetModes = new Repository<StoredAssetMode>(db, {
      type: "AssetModeSetting",
      key: (setting) => Keys.userSetting(setting.user_id, ASSET_MODE),
    });
  }

  getProvider() {
    return this.provider.get(Keys.serviceSettings(PROVIDER));
  }

  async putProvider(settings: ProviderSettings, expectedVersion: number): Promise<void> {
    if (expectedVersion === 0) await this.provider.put(settings, { ifAbsent: true, conflict: settingsChanged });
    else await this.provider.replaceIf(settings, "version", expectedVersion, settingsChanged);
  }

  getAssetMode(userId: string) {
    return this.assetModes.get(Keys.userSetting(userId, ASSET_MODE));
  }

  async putAssetMode(setting: StoredAssetMode): Promise<void> {
    await this.assetModes.put(setting);
  }
}
