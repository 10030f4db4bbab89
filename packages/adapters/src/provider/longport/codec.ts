import type * as Sdk from "longport";
import { Market } from "@tp/core/market/market";
import type { TradeSession } from "@tp/core/market/trade-session";
import type { IsoDate } from "@tp/core/market/zoned-time";
import type {
  AccountBalance,
  CommissionFreeStatus,
  DeductionStatus,
  EstimateMaxPurchaseQuantityOptions,
  EstimateMaxPurchaseQuantityResponse,
  Execution,
  GetHistoryExecutionsOptions,
  GetHistoryOrdersOptions,
  GetTodayExecutionsOptions,
  GetTodayOrdersOptions,
  Order,
  OrderChargeItem,
  OrderDetail,
  ReplaceOrderOptions,
  StockPositionsResponse,
  SubmitOrderOptions,
} from "@tp/core/provider/order-gateway";
import {
  LongportOrderStatusName,
  LongportOutsideRthName,
  LongportTimeInForceName,
  type OrderSide,
  type OrderStatus,
  type OrderTag,
  type OrderType,
  type OutsideRth,
  type TimeInForce,
  type TriggerStatus,
} from "@tp/core/provider/order-types";
import {
  CalcIndexField,
  LongportPeriodName,
  periodFromLongport,
  type AdjustType,
  type CalcIndex,
  type DerivativeType,
  type Period,
  type SubType,
  type TradeDirection,
  type TradeSessions,
  type TradeStatus,
} from "@tp/core/provider/quote-enums";
import type {
  Candlestick,
  Depth,
  IntradayLine,
  MarketTradingDays,
  MarketTradingSession,
  PrePostQuote,
  PushCandlestick,
  PushDepth,
  PushQuote,
  PushTrades,
  RealtimeQuote,
  SecurityCalcIndex,
  SecurityDepth,
  SecurityQuote,
  SecurityStaticInfo,
  Subscription,
  Trade,
} from "@tp/core/provider/quote-types";
import type { LanguageType } from "@tp/core/settings/index";

/** The `longport` module as loaded at run time. */
export type LongportSdk = typeof Sdk;

/** SDK enumerations the adapter reads; each is a plain `{ Member: number }` object at run time. */
const ENUMS = [
  "AdjustType",
  "CalcIndex",
  "ChargeCategoryCode",
  "CommissionFreeStatus",
  "DeductionStatus",
  "DerivativeType",
  "Language",
  "Market",
  "OrderSide",
  "OrderStatus",
  "OrderTag",
  "OrderType",
  "OutsideRTH",
  "Period",
  "SecurityBoard",
  "SubType",
  "TimeInForceType",
  "TradeDirection",
  "TradeSession",
  "TradeSessions",
  "TradeStatus",
  "TriggerStatus",
] as const;
export type SdkEnumName = (typeof ENUMS)[number];

const invert = <K extends string, V extends string>(table: Record<K, V>) =>
  Object.fromEntries(Object.entries(table).map(([key, value]) => [value, key])) as Record<V, K>;

const wireOrderStatus = invert(LongportOrderStatusName);
const wireTimeInForce = invert(LongportTimeInForceName);
const wireOutsideRth = invert(LongportOutsideRthName);
// Wire strings of enums whose SDK member names differ from them.
const wireOrderTag: Record<string, OrderTag> = { LongTerm: "GTC" };
const wireTriggerStatus: Record<string, TriggerStatus> = { Unknown: "NOT_USED", Deactive: "DEACTIVE", Active: "ACTIVE", Released: "RELEASED" };
const wireDeductionStatus: Record<string, DeductionStatus> = { None: "NONE", NoData: "NO_DATA", Pending: "PENDING", Done: "DONE" };
const wireChargeCategory: Record<string, OrderChargeItem["code"]> = { Broker: "BROKER_FEES", Third: "THIRD_FEES" };
const sdkLanguage: Record<LanguageType, string> = { "zh-CN": "ZH_CN", "zh-HK": "ZH_HK", en: "EN" };

// ---- SDK value types → JSON (no SDK module needed) ----

/** A LongPort `Decimal` as a decimal string, digits kept as given (`"612.500"`). */
export const decimalText = (value: Sdk.Decimal): string => value.toString();
export const optionalDecimalText = (value: Sdk.Decimal | null | undefined): string | null => (value == null ? null : value.toString());

const pad = (value: number, width = 2) => String(value).padStart(width, "0");

/** A `NaiveDate` as `YYYY-MM-DD`. */
export const isoDateOf = (date: Sdk.NaiveDate): IsoDate => `${pad(date.year, 4)}-${pad(date.month)}-${pad(date.day)}` as IsoDate;
export const optionalIsoDateOf = (date: Sdk.NaiveDate | null | undefined): IsoDate | null => (date == null ? null : isoDateOf(date));

/** A `Time` as `HH:MM:SS` (its JSON form; the class declares `toString` as a getter, so `String(time)` throws). */
export function timeText(time: Sdk.Time): string {
  const text = String(time.toJSON());
  return /^\d{2}:\d{2}(:\d{2})?$/.test(text) ? (text.length === 5 ? `${text}:00` : text) : `${pad(time.hour)}:${pad(time.monute)}:00`;
}

/** A JS `Date` from the SDK as an ISO 8601 UTC instant. */
export const instantOf = (date: Date): string => date.toISOString();
export const optionalInstantOf = (date: Date | null | undefined): string | null => (date == null ? null : date.toISOString());

const lowerFirst = (name: string) => name.charAt(0).toLowerCase() + name.slice(1);

/**
 * Converts between the SDK's classes and enums and the ports' plain JSON. Enumerations are
 * mapped by member *name*: the Node enum numbers are the binding's own (`Period.Day` is 14),
 * not LongPort's wire values. Members the service does not know pass through by name.
 */
export class LongportCodec {
  private readonly values: Record<SdkEnumName, Readonly<Record<string, number>>>;
  private readonly names: Record<SdkEnumName, ReadonlyMap<number, string>>;

  constructor(private readonly sdk: LongportSdk) {
    // The SDK declares its enums `const`, which isolated modules cannot read by name; the objects exist at run time.
    const module = sdk as unknown as Record<string, Readonly<Record<string, number>> | undefined>;
    this.values = {} as typeof this.values;
    this.names = {} as typeof this.names;
    for (const name of ENUMS) {
      const table = module[name];
      if (!table) throw new Error(`The longport SDK has no enum ${name}`);
      this.values[name] = table;
      this.names[name] = new Map(Object.entries(table).map(([member, value]) => [value, member]));
    }
  }

  /** The SDK number of an enum member. */
  value<T = number>(enumName: SdkEnumName, member: string): T {
    const value = this.values[enumName][member];
    if (value === undefined) throw new Error(`The longport SDK has no ${enumName}.${member}`);
    return value as T;
  }

  /** The member name of an SDK enum number (`Unknown` when the binding sends a number it does not list). */
  name(enumName: SdkEnumName, value: unknown): string {
    return this.names[enumName].get(value as number) ?? "Unknown";
  }

  // ---- port arguments → SDK values ----

  period(period: Period): Sdk.Period {
    return this.value("Period", LongportPeriodName[period]);
  }

  adjustType(adjustType: AdjustType): Sdk.AdjustType {
    return this.value("AdjustType", adjustType);
  }

  tradeSessions(tradeSessions: TradeSessions): Sdk.TradeSessions {
    return this.value("TradeSessions", tradeSessions);
  }

  subTypes(subTypes: SubType[]): Sdk.SubType[] {
    return subTypes.map((subType) => this.value<Sdk.SubType>("SubType", subType));
  }

  calcIndexes(indexes: CalcIndex[]): Sdk.CalcIndex[] {
    return indexes.map((index) => this.value<Sdk.CalcIndex>("CalcIndex", index));
  }

  market(market: Market): Sdk.Market {
    return this.value("Market", market);
  }

  language(language: LanguageType): Sdk.Language {
    return this.value("Language", sdkLanguage[language]);
  }

  naiveDate(date: IsoDate | string): Sdk.NaiveDate {
    const [year, month, day] = date.slice(0, 10).split("-").map(Number);
    return new this.sdk.NaiveDate(year, month, day);
  }

  decimal(value: string): Sdk.Decimal {
    return new this.sdk.Decimal(value);
  }

  private optionalDecimal(value: string | undefined): Sdk.Decimal | undefined {
    return value === undefined ? undefined : this.decimal(value);
  }

  submitOrder(options: SubmitOrderOptions): Sdk.SubmitOrderOptions {
    return dropUndefined({
      symbol: options.symbol,
      orderType: this.value<Sdk.OrderType>("OrderType", options.order_type),
      side: this.value<Sdk.OrderSide>("OrderSide", options.side),
      submittedQuantity: this.decimal(options.submitted_quantity),
      timeInForce: this.value<Sdk.TimeInForceType>("TimeInForceType", LongportTimeInForceName[options.time_in_force]),
      submittedPrice: this.optionalDecimal(options.submitted_price),
      triggerPrice: this.optionalDecimal(options.trigger_price),
      limitOffset: this.optionalDecimal(options.limit_offset),
      trailingAmount: this.optionalDecimal(options.trailing_amount),
      trailingPercent: this.optionalDecimal(options.trailing_percent),
      expireDate: options.expire_date === undefined ? undefined : this.naiveDate(options.expire_date),
      outsideRth: options.outside_rth === undefined ? undefined : this.value<Sdk.OutsideRTH>("OutsideRTH", LongportOutsideRthName[options.outside_rth]),
      remark: options.remark,
    });
  }

  replaceOrder(options: ReplaceOrderOptions): Sdk.ReplaceOrderOptions {
    return dropUndefined({
      orderId: options.order_id,
      quantity: this.decimal(options.quantity),
      price: this.optionalDecimal(options.price),
      triggerPrice: this.optionalDecimal(options.trigger_price),
      limitOffset: this.optionalDecimal(options.limit_offset),
      trailingAmount: this.optionalDecimal(options.trailing_amount),
      trailingPercent: this.optionalDecimal(options.trailing_percent),
      remark: options.remark,
    });
  }

  private statuses(statuses: OrderStatus[] | undefined): Sdk.OrderStatus[] | undefined {
    return statuses?.map((status) => this.value<Sdk.OrderStatus>("OrderStatus", LongportOrderStatusName[status]));
  }

  private side(side: OrderSide | undefined): Sdk.OrderSide | undefined {
    return side === undefined ? undefined : this.value<Sdk.OrderSide>("OrderSide", side);
  }

  private optionalMarket(market: Market | undefined): Sdk.Market | undefined {
    return market === undefined ? undefined : this.market(market);
  }

  todayOrdersOptions(options: GetTodayOrdersOptions = {}): Sdk.GetTodayOrdersOptions {
    return dropUndefined({
      symbol: options.symbol,
      status: this.statuses(options.status),
      side: this.side(options.side),
      market: this.optionalMarket(options.market),
      orderId: options.order_id,
    });
  }

  historyOrdersOptions(options: GetHistoryOrdersOptions = {}): Sdk.GetHistoryOrdersOptions {
    return dropUndefined({
      symbol: options.symbol,
      status: this.statuses(options.status),
      side: this.side(options.side),
      market: this.optionalMarket(options.market),
      startAt: optionalDate(options.start_at),
      endAt: optionalDate(options.end_at),
    });
  }

  todayExecutionsOptions(options: GetTodayExecutionsOptions = {}): Sdk.GetTodayExecutionsOptions {
    return dropUndefined({ symbol: options.symbol, orderId: options.order_id });
  }

  historyExecutionsOptions(options: GetHistoryExecutionsOptions = {}): Sdk.GetHistoryExecutionsOptions {
    return dropUndefined({ symbol: options.symbol, startAt: optionalDate(options.start_at), endAt: optionalDate(options.end_at) });
  }

  estimateMaxPurchaseOptions(options: EstimateMaxPurchaseQuantityOptions): Sdk.EstimateMaxPurchaseQuantityOptions {
    return dropUndefined({
      symbol: options.symbol,
      orderType: this.value<Sdk.OrderType>("OrderType", options.order_type),
      side: this.value<Sdk.OrderSide>("OrderSide", options.side),
      price: this.optionalDecimal(options.price),
      currency: options.currency,
      orderId: options.order_id,
      fractionalShares: options.fractional_shares ?? false,
    });
  }

  // ---- SDK results → port JSON ----

  staticInfo(info: Sdk.SecurityStaticInfo): SecurityStaticInfo {
    return {
      symbol: info.symbol,
      name_cn: info.nameCn,
      name_en: info.nameEn,
      name_hk: info.nameHk,
      exchange: info.exchange,
      currency: info.currency,
      lot_size: info.lotSize,
      total_shares: info.totalShares,
      circulating_shares: info.circulatingShares,
      hk_shares: info.hkShares,
      eps: decimalText(info.eps),
      eps_ttm: decimalText(info.epsTtm),
      bps: decimalText(info.bps),
      dividend_yield: decimalText(info.dividendYield),
      stock_derivatives: info.stockDerivatives.map((derivative) => this.name("DerivativeType", derivative) as DerivativeType),
      board: this.name("SecurityBoard", info.board),
    };
  }

  private prePostQuote(quote: Sdk.PrePostQuote | null): PrePostQuote | null {
    if (!quote) return null;
    return {
      last_done: decimalText(quote.lastDone),
      timestamp: instantOf(quote.timestamp),
      volume: quote.volume,
      turnover: decimalText(quote.turnover),
      high: decimalText(quote.high),
      low: decimalText(quote.low),
      prev_close: decimalText(quote.prevClose),
    };
  }

  quote(quote: Sdk.SecurityQuote): SecurityQuote {
    return {
      ...this.realtimeQuote(quote),
      prev_close: decimalText(quote.prevClose),
      pre_market_quote: this.prePostQuote(quote.preMarketQuote),
      post_market_quote: this.prePostQuote(quote.postMarketQuote),
      overnight_quote: this.prePostQuote(quote.overnightQuote),
    };
  }

  depthLevel(level: Sdk.Depth): Depth {
    return { position: level.position, price: optionalDecimalText(level.price), volume: level.volume, order_num: level.orderNum };
  }

  depth(depth: Sdk.SecurityDepth | Sdk.PushDepth): SecurityDepth {
    return { asks: depth.asks.map((level) => this.depthLevel(level)), bids: depth.bids.map((level) => this.depthLevel(level)) };
  }

  private tradeSession(session: Sdk.TradeSession): TradeSession {
    return this.name("TradeSession", session) as TradeSession;
  }

  trade(trade: Sdk.Trade): Trade {
    return {
      price: decimalText(trade.price),
      volume: trade.volume,
      timestamp: instantOf(trade.timestamp),
      trade_type: trade.tradeType,
      direction: this.name("TradeDirection", trade.direction) as TradeDirection,
      trade_session: this.tradeSession(trade.tradeSession),
    };
  }

  intradayLine(line: Sdk.IntradayLine): IntradayLine {
    return {
      price: decimalText(line.price),
      timestamp: instantOf(line.timestamp),
      volume: line.volume,
      turnover: decimalText(line.turnover),
      avg_price: decimalText(line.avgPrice),
    };
  }

  candlestick(candle: Sdk.Candlestick): Candlestick {
    return {
      close: decimalText(candle.close),
      open: decimalText(candle.open),
      low: decimalText(candle.low),
      high: decimalText(candle.high),
      volume: candle.volume,
      turnover: decimalText(candle.turnover),
      timestamp: instantOf(candle.timestamp),
      trade_session: this.tradeSession(candle.tradeSession),
    };
  }

  tradingDays(days: Sdk.MarketTradingDays): MarketTradingDays {
    return { trading_days: days.tradingDays.map(isoDateOf), half_trading_days: days.halfTradingDays.map(isoDateOf) };
  }

  /** Timetables of the markets the service names (US, HK, CN, SG); others (crypto) are left out. */
  tradingSessions(sessions: Sdk.MarketTradingSession[]): MarketTradingSession[] {
    return sessions.flatMap((entry) => {
      const market = Market.safeParse(this.name("Market", entry.market));
      if (!market.success) return [];
      return [
        {
          market: market.data,
          trade_sessions: entry.tradeSessions.map((session) => ({
            begin_time: timeText(session.beginTime),
            end_time: timeText(session.endTime),
            trade_session: this.tradeSession(session.tradeSession),
          })),
        },
      ];
    });
  }

  /** Only the requested indexes, under their snake_case fields; dates as `YYYY-MM-DD`, decimals as strings. */
  calcIndex(index: Sdk.SecurityCalcIndex, requested: CalcIndex[]): SecurityCalcIndex {
    const result: SecurityCalcIndex = { symbol: index.symbol };
    const getters = index as unknown as Record<string, unknown>;
    for (const name of requested) {
      const value = getters[lowerFirst(name)];
      result[CalcIndexField[name]] =
        value == null
          ? null
          : typeof value === "number"
            ? value
            : typeof (value as Sdk.NaiveDate).year === "number"
              ? isoDateOf(value as Sdk.NaiveDate)
              : String(value);
    }
    return result;
  }

  subscription(subscription: Sdk.Subscription): Subscription {
    return {
      symbol: subscription.symbol,
      sub_types: subscription.subTypes.map((subType) => this.name("SubType", subType) as SubType),
      candlesticks: subscription.candlesticks.map((period) => this.periodOf(period)),
    };
  }

  periodOf(period: Sdk.Period): Period {
    return periodFromLongport(this.name("Period", period) as LongportPeriodName);
  }

  /** The fields a pushed quote and a snapshot quote share (the SDK's two classes name them alike). */
  realtimeQuote(quote: Sdk.RealtimeQuote | Sdk.SecurityQuote): RealtimeQuote {
    return {
      symbol: quote.symbol,
      last_done: decimalText(quote.lastDone),
      open: decimalText(quote.open),
      high: decimalText(quote.high),
      low: decimalText(quote.low),
      timestamp: instantOf(quote.timestamp),
      volume: quote.volume,
      turnover: decimalText(quote.turnover),
      trade_status: this.name("TradeStatus", quote.tradeStatus) as TradeStatus,
    };
  }

  pushQuote(quote: Sdk.PushQuote): PushQuote {
    return {
      last_done: decimalText(quote.lastDone),
      open: decimalText(quote.open),
      high: decimalText(quote.high),
      low: decimalText(quote.low),
      timestamp: instantOf(quote.timestamp),
      volume: quote.volume,
      turnover: decimalText(quote.turnover),
      trade_status: this.name("TradeStatus", quote.tradeStatus) as TradeStatus,
      trade_session: this.tradeSession(quote.tradeSession),
      current_volume: quote.currentVolume,
      current_turnover: decimalText(quote.currentTurnover),
    };
  }

  pushDepth(depth: Sdk.PushDepth): PushDepth {
    return this.depth(depth);
  }

  pushTrades(trades: Sdk.PushTrades): PushTrades {
    return { trades: trades.trades.map((trade) => this.trade(trade)) };
  }

  pushCandlestick(push: Sdk.PushCandlestick): PushCandlestick {
    return { period: this.periodOf(push.period), candlestick: this.candlestick(push.candlestick), is_confirmed: push.isConfirmed };
  }

  execution(execution: Sdk.Execution): Execution {
    return {
      order_id: execution.orderId,
      trade_id: execution.tradeId,
      symbol: execution.symbol,
      trade_done_at: instantOf(execution.tradeDoneAt),
      quantity: decimalText(execution.quantity),
      price: decimalText(execution.price),
    };
  }

  orderStatus(status: Sdk.OrderStatus): OrderStatus {
    const name = this.name("OrderStatus", status);
    return (wireOrderStatus[name as keyof typeof wireOrderStatus] ?? name) as OrderStatus;
  }

  order(order: Sdk.Order | Sdk.OrderDetail): Order {
    const tag = this.name("OrderTag", order.tag);
    const timeInForce = this.name("TimeInForceType", order.timeInForce);
    const outsideRth = order.outsideRth == null ? null : this.name("OutsideRTH", order.outsideRth);
    const triggerStatus = order.triggerStatus == null ? null : this.name("TriggerStatus", order.triggerStatus);
    return {
      order_id: order.orderId,
      status: this.orderStatus(order.status),
      stock_name: order.stockName,
      quantity: decimalText(order.quantity),
      executed_quantity: decimalText(order.executedQuantity),
      price: optionalDecimalText(order.price),
      executed_price: optionalDecimalText(order.executedPrice),
      submitted_at: instantOf(order.submittedAt),
      side: this.name("OrderSide", order.side) as OrderSide,
      symbol: order.symbol,
      order_type: this.name("OrderType", order.orderType) as OrderType,
      last_done: optionalDecimalText(order.lastDone),
      trigger_price: optionalDecimalText(order.triggerPrice),
      msg: order.msg,
      tag: (wireOrderTag[tag] ?? tag) as OrderTag,
      time_in_force: (wireTimeInForce[timeInForce as keyof typeof wireTimeInForce] ?? timeInForce) as TimeInForce,
      expire_date: optionalIsoDateOf(order.expireDate),
      updated_at: optionalInstantOf(order.updatedAt),
      trigger_at: optionalInstantOf(order.triggerAt),
      trailing_amount: optionalDecimalText(order.trailingAmount),
      trailing_percent: optionalDecimalText(order.trailingPercent),
      limit_offset: optionalDecimalText(order.limitOffset),
      // The SDK reads LongPort's `NOT_USED` (an order without a trigger) as null.
      trigger_status: triggerStatus === null ? "NOT_USED" : (wireTriggerStatus[triggerStatus] ?? (triggerStatus as TriggerStatus)),
      currency: order.currency,
      // `Unknown` is how the binding reports an order placed without the flag.
      outside_rth:
        outsideRth === null || outsideRth === "Unknown" ? null : ((wireOutsideRth[outsideRth as keyof typeof wireOutsideRth] ?? outsideRth) as OutsideRth),
      remark: order.remark,
    };
  }

  private deductionStatus(status: Sdk.DeductionStatus): DeductionStatus {
    const name = this.name("DeductionStatus", status);
    return wireDeductionStatus[name] ?? (name as DeductionStatus);
  }

  orderDetail(detail: Sdk.OrderDetail): OrderDetail {
    const charges = detail.chargeDetail;
    return {
      ...this.order(detail),
      free_status: this.name("CommissionFreeStatus", detail.freeStatus) as CommissionFreeStatus,
      free_amount: optionalDecimalText(detail.freeAmount),
      free_currency: detail.freeCurrency,
      deductions_status: this.deductionStatus(detail.deductionsStatus),
      deductions_amount: optionalDecimalText(detail.deductionsAmount),
      deductions_currency: detail.deductionsCurrency,
      platform_deducted_status: this.deductionStatus(detail.platformDeductedStatus),
      platform_deducted_amount: optionalDecimalText(detail.platformDeductedAmount),
      platform_deducted_currency: detail.platformDeductedCurrency,
      history: detail.history.map((step) => ({
        price: decimalText(step.price),
        quantity: decimalText(step.quantity),
        status: this.orderStatus(step.status),
        msg: step.msg,
        time: instantOf(step.time),
      })),
      charge_detail: {
        total_amount: decimalText(charges.totalAmount),
        currency: charges.currency,
        items: charges.items.map((item) => {
          const code = this.name("ChargeCategoryCode", item.code);
          return {
            code: wireChargeCategory[code] ?? (code as OrderChargeItem["code"]),
            name: item.name,
            fees: item.fees.map((fee) => ({ code: fee.code, name: fee.name, amount: decimalText(fee.amount), currency: fee.currency })),
          };
        }),
      },
    };
  }

  accountBalance(balance: Sdk.AccountBalance): AccountBalance {
    return {
      total_cash: decimalText(balance.totalCash),
      max_finance_amount: decimalText(balance.maxFinanceAmount),
      remaining_finance_amount: decimalText(balance.remainingFinanceAmount),
      risk_level: balance.riskLevel,
      margin_call: decimalText(balance.marginCall),
      currency: balance.currency,
      cash_infos: balance.cashInfos.map((cash) => ({
        withdraw_cash: decimalText(cash.withdrawCash),
        available_cash: decimalText(cash.availableCash),
        frozen_cash: decimalText(cash.frozenCash),
        settling_cash: decimalText(cash.settlingCash),
        currency: cash.currency,
      })),
      net_assets: decimalText(balance.netAssets),
      init_margin: decimalText(balance.initMargin),
      maintenance_margin: decimalText(balance.maintenanceMargin),
      buy_power: decimalText(balance.buyPower),
      frozen_transaction_fees: balance.frozenTransactionFees.map((fee) => ({
        currency: fee.currency,
        frozen_transaction_fee: decimalText(fee.frozenTransactionFee),
      })),
    };
  }

  /** Holdings by channel; the market by member name (`Crypto` and `Unknown` pass through for the caller to skip). */
  stockPositions(response: Sdk.StockPositionsResponse): StockPositionsResponse {
    return {
      channels: response.channels.map((channel) => ({
        account_channel: channel.accountChannel,
        positions: channel.positions.map((position) => ({
          symbol: position.symbol,
          symbol_name: position.symbolName,
          quantity: decimalText(position.quantity),
          available_quantity: decimalText(position.availableQuantity),
          currency: position.currency,
          cost_price: decimalText(position.costPrice),
          market: this.name("Market", position.market),
          init_quantity: optionalDecimalText(position.initQuantity),
        })),
      })),
    };
  }

  maxPurchase(response: Sdk.EstimateMaxPurchaseQuantityResponse): EstimateMaxPurchaseQuantityResponse {
    return { cash_max_qty: decimalText(response.cashMaxQty), margin_max_qty: decimalText(response.marginMaxQty) };
  }
}

/** An ISO instant or date as a JS Date (a bare date is UTC midnight). */
const optionalDate = (value: string | undefined): Date | undefined => (value === undefined ? undefined : new Date(value));

/** Absent options are left out of the objects handed to the native binding rather than passed as `undefined`. */
function dropUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as T;
}
