export { LongportCodec, decimalText, instantOf, isoDateOf, timeText, type LongportSdk, type SdkEnumName } from "./codec";
export { LongportConnection, configFor, longportLimiters, type LongportConnectionOptions, type LongportSettings } from "./connection";
export { longportError } from "./errors";
export { LongportMarketData } from "./longport-market-data";
export { LongportOrderGateway } from "./longport-order-gateway";
export { LongportTokenRefresher } from "./token-refresher";
