export {
  DataSource,
  DataSourceCreate,
  DataSourceStatus,
  DataSourceType,
  DataSourceUpdate,
  DataSources,
  MAX_PRIORITY,
  type DataSourceStore,
  type DataSourcesDeps,
} from "./data-sources";
