export {
  createPaperBroker,
  paperBrokerDeps,
  DEFAULT_PAPER_INITIAL_CASH,
  PaperOrderGateway,
  type PaperBrokerHandle,
  parsePaperInitialCash,
  type PaperBrokerOptions,
} from "./paper-order-gateway";
export { DynamoPaperAccountStore, paperOrderId } from "./dynamo-paper-store";
