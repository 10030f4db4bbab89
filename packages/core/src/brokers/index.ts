export {
  Brokers,
  BrokerCreate,
  BrokerResponse,
  BrokerUpdate,
  FeeCalculateRequest,
  TestResponse,
  brokerChanged,
  type Broker,
  type BrokerConnector,
  type BrokerStore,
  type BrokersDeps,
} from "./brokers";
export {
  BrokerConfig,
  BrokerConfigUpdate,
  BrokerStatus,
  BrokerType,
  MASK,
  SECRET_FIELDS,
  configIssues,
  mask,
  maskConfig,
  mergeConfig,
  requiredConfig,
} from "./config";
export type { SecretBox } from "./secret-box";
