export {
  createPaperBroker,
  DEFAULT_PAPER_INITIAL_CASH,
  PaperOrderGateway,
  parsePaperInitialCash,
  type PaperBrokerOptions,
} from "./paper-order-gateway";
export { DynamoPaperAccountStore, paperOrderId } from "./dynamo-paper-store";
