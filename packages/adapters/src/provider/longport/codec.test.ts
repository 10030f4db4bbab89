import type * as Sdk from "longport";
import { describe, expect, it } from "vitest";
import { isoDateOf, timeText } from "./codec";
import { codec, dec, E, sdk, shaped, withLongportSdk } from "./testing/sdk-fixture";

withLongportSdk();

describe("SDK results become the ports' plain JSON", () => {
  it("converts Time to HH:MM:SS and NaiveDate to YYYY-MM-DD, padding short parts", () => {
    expect(timeText(new sdk.Time(9, 30, 0))).toBe("09:30:00");
    expect(timeText(new sdk.Time(16, 0, 5))).toBe("16:00:05");
    expect(isoDateOf(new sdk.NaiveDate(2026, 1, 2))).toBe("2026-01-02");
  });

  it("converts static info with decimal strings and enum names", () => {
    const info = codec.staticInfo(
      shaped<Sdk.SecurityStaticInfo>({
        symbol: "700.HK",
        nameCn: "腾讯控股",
        nameEn: "Tencent Holdings Ltd.",
        nameHk: "騰訊控股",
        exchange: "SEHK",
        currency: "HKD",
        lotSize: 100,
        totalShares: 9_200_000_000,
        circulatingShares: 9_200_000_000,
        hkShares: 9_200_000_000,
        eps: dec("21.000"),
        epsTtm: dec("23.00"),
        bps: dec("125"),
        dividendYield: dec("4.50"),
        stockDerivatives: [E.DerivativeType.Warrant],
        board: E.SecurityBoard.HKEquity,
      }),
    );
    expect(info).toEqual({
      symbol: "700.HK",
      name_cn: "腾讯控股",
      name_en: "Tencent Holdings Ltd.",
      name_hk: "騰訊控股",
      exchange: "SEHK",
      currency: "HKD",
      lot_size: 100,
      total_shares: 9_200_000_000,
      circulating_shares: 9_200_000_000,
      hk_shares: 9_200_000_000,
      eps: "21.000",
      eps_ttm: "23.00",
      bps: "125",
      dividend_yield: "4.50",
      stock_derivatives: ["Warrant"],
      board: "HKEquity",
    });
  });

  it("converts a US quote with its extended-session quotes and a null overnight quote", () => {
    const prePost = (last: string) =>
      shaped<Sdk.PrePostQuote>({
        lastDone: dec(last),
        timestamp: new Date("2026-03-09T23:59:00Z"),
        volume: 1200,
        turnover: dec("276000.50"),
        high: dec("231.00"),
        low: dec("229.50"),
        prevClose: dec("230.12"),
      });
    const quote = codec.quote(
      shaped<Sdk.SecurityQuote>({
        symbol: "AAPL.US",
        lastDone: dec("230.12"),
        prevClose: dec("228.00"),
        open: dec("228.50"),
        high: dec("231.40"),
        low: dec("227.90"),
        timestamp: new Date("2026-03-09T20:00:00Z"),
        volume: 51_000_000,
        turnover: dec("11736000000.00"),
        tradeStatus: E.TradeStatus.Normal,
        preMarketQuote: prePost("228.40"),
        postMarketQuote: prePost("230.40"),
        overnightQuote: null,
      }),
    );
    expect(quote).toMatchObject({
      symbol: "AAPL.US",
      last_done: "230.12",
      timestamp: "2026-03-09T20:00:00.000Z",
      trade_status: "Normal",
      overnight_quote: null,
      post_market_quote: { last_done: "230.40", prev_close: "230.12", volume: 1200, timestamp: "2026-03-09T23:59:00.000Z" },
    });
    expect(quote.pre_market_quote!.last_done).toBe("228.40");
  });

  it("converts depth (a level without a price is null), trades, intraday lines and candlesticks", () => {
    const level = (position: number, price: string | null) =>
      shaped<Sdk.Depth>({ position, price: price === null ? null : dec(price), volume: 300, orderNum: 2 });
    expect(codec.depth(shaped<Sdk.SecurityDepth>({ asks: [level(1, "388.6")], bids: [level(1, null)] }))).toEqual({
      asks: [{ position: 1, price: "388.6", volume: 300, order_num: 2 }],
      bids: [{ position: 1, price: null, volume: 300, order_num: 2 }],
    });
    expect(
      codec.trade(
        shaped<Sdk.Trade>({
          price: dec("388.4"),
          volume: 100,
          timestamp: new Date("2026-03-10T02:59:55Z"),
          tradeType: "",
          direction: E.TradeDirection.Up,
          tradeSession: E.TradeSession.Intraday,
        }),
      ),
    ).toEqual({ price: "388.4", volume: 100, timestamp: "2026-03-10T02:59:55.000Z", trade_type: "", direction: "Up", trade_session: "Intraday" });
    expect(
      codec.intradayLine(
        shaped<Sdk.IntradayLine>({
          price: dec("388.4"),
          timestamp: new Date("2026-03-10T01:30:00Z"),
          volume: 5000,
          turnover: dec("1942000"),
          avgPrice: dec("388.40"),
        }),
      ),
    ).toEqual({ price: "388.4", timestamp: "2026-03-10T01:30:00.000Z", volume: 5000, turnover: "1942000", avg_price: "388.40" });
    expect(
      codec.candlestick(
        shaped<Sdk.Candlestick>({
          close: dec("231.1"),
          open: dec("230.0"),
          low: dec("229.8"),
          high: dec("231.5"),
          volume: 80_000,
          turnover: dec("18456000"),
          timestamp: new Date("2026-03-09T08:00:00Z"),
          tradeSession: E.TradeSession.Pre,
        }),
      ),
    ).toMatchObject({ close: "231.1", open: "230.0", trade_session: "Pre", timestamp: "2026-03-09T08:00:00.000Z" });
  });

  it("converts trading days, and trading sessions of the named markets only", () => {
    expect(
      codec.tradingDays(shaped<Sdk.MarketTradingDays>({ tradingDays: [new sdk.NaiveDate(2026, 12, 23)], halfTradingDays: [new sdk.NaiveDate(2026, 12, 24)] })),
    ).toEqual({ trading_days: ["2026-12-23"], half_trading_days: ["2026-12-24"] });
    const session = (begin: [number, number], end: [number, number], kind: string) =>
      shaped<Sdk.TradingSessionInfo>({
        beginTime: new sdk.Time(begin[0], begin[1], 0),
        endTime: new sdk.Time(end[0], end[1], 0),
        tradeSession: E.TradeSession[kind],
      });
    const sessions = codec.tradingSessions([
      shaped<Sdk.MarketTradingSession>({ market: E.Market.HK, tradeSessions: [session([9, 30], [12, 0], "Intraday"), session([13, 0], [16, 0], "Intraday")] }),
      shaped<Sdk.MarketTradingSession>({ market: E.Market.Crypto, tradeSessions: [session([0, 0], [23, 59], "Intraday")] }),
    ]);
    expect(sessions).toEqual([
      {
        market: "HK",
        trade_sessions: [
          { begin_time: "09:30:00", end_time: "12:00:00", trade_session: "Intraday" },
          { begin_time: "13:00:00", end_time: "16:00:00", trade_session: "Intraday" },
        ],
      },
    ]);
  });

  it("converts calc indexes to the requested snake_case fields only, with dates, numbers and nulls", () => {
    const index = codec.calcIndex(
      shaped<Sdk.SecurityCalcIndex>({
        symbol: "700.HK",
        lastDone: dec("388.6"),
        changeRate: dec("1.25"),
        volume: 12_000_000,
        expiryDate: new sdk.NaiveDate(2026, 6, 29),
        delta: null,
        peTtmRatio: dec("16.89"),
      }),
      ["LastDone", "ChangeRate", "Volume", "ExpiryDate", "Delta"],
    );
    expect(index).toEqual({ symbol: "700.HK", last_done: "388.6", change_rate: "1.25", volume: 12_000_000, expiry_date: "2026-06-29", delta: null });
  });

  it("converts subscriptions and push events", () => {
    expect(
      codec.subscription(
        shaped<Sdk.Subscription>({ symbol: "700.HK", subTypes: [E.SubType.Quote, E.SubType.Depth], candlesticks: [E.Period.Min_5, E.Period.Day] }),
      ),
    ).toEqual({ symbol: "700.HK", sub_types: ["Quote", "Depth"], candlesticks: ["5m", "1d"] });
    expect(
      codec.pushQuote(
        shaped<Sdk.PushQuote>({
          lastDone: dec("388.6"),
          open: dec("386"),
          high: dec("389"),
          low: dec("385.2"),
          timestamp: new Date("2026-03-10T03:00:00Z"),
          volume: 9_000_000,
          turnover: dec("3490000000"),
          tradeStatus: E.TradeStatus.Halted,
          tradeSession: E.TradeSession.Intraday,
          currentVolume: 1200,
          currentTurnover: dec("466320"),
        }),
      ),
    ).toMatchObject({ trade_status: "Halted", current_volume: 1200, current_turnover: "466320" });
    const candle = shaped<Sdk.Candlestick>({
      close: dec("1"),
      open: dec("1"),
      low: dec("1"),
      high: dec("1"),
      volume: 1,
      turnover: dec("1"),
      timestamp: new Date("2026-03-10T03:00:00Z"),
      tradeSession: E.TradeSession.Intraday,
    });
    expect(codec.pushCandlestick(shaped<Sdk.PushCandlestick>({ period: E.Period.Min_1, candlestick: candle, isConfirmed: true }))).toMatchObject({
      period: "1m",
      is_confirmed: true,
    });
  });

  it("converts orders: statuses, tags, time in force, outside-RTH and trigger status to wire strings", () => {
    const order = codec.order(
      shaped<Sdk.Order>({
        orderId: "709043056541253632",
        status: E.OrderStatus.Filled,
        stockName: "Tencent",
        quantity: dec("200"),
        executedQuantity: dec("200"),
        price: dec("388.6"),
        executedPrice: dec("388.5"),
        submittedAt: new Date("2026-03-10T02:00:00Z"),
        side: E.OrderSide.Buy,
        symbol: "700.HK",
        orderType: E.OrderType.LIT,
        lastDone: null,
        triggerPrice: dec("388"),
        msg: "",
        tag: E.OrderTag.LongTerm,
        timeInForce: E.TimeInForceType.GoodTilCanceled,
        expireDate: new sdk.NaiveDate(2026, 6, 30),
        updatedAt: new Date("2026-03-10T02:01:00Z"),
        triggerAt: null,
        trailingAmount: null,
        trailingPercent: null,
        limitOffset: null,
        triggerStatus: E.TriggerStatus.Active,
        currency: "HKD",
        outsideRth: E.OutsideRTH.Unknown,
        remark: "",
      }),
    );
    expect(order).toMatchObject({
      status: "FilledStatus",
      side: "Buy",
      order_type: "LIT",
      tag: "GTC",
      time_in_force: "GTC",
      trigger_status: "ACTIVE",
      outside_rth: null,
      expire_date: "2026-06-30",
      updated_at: "2026-03-10T02:01:00.000Z",
      trigger_at: null,
      last_done: null,
      executed_price: "388.5",
    });
    expect(codec.orderStatus(E.OrderStatus.PendingReplace)).toBe("PendingReplaceStatus");
    expect(codec.orderStatus(E.OrderStatus.PartialWithdrawal)).toBe("PartialWithdrawal");
  });

  it("converts an order detail's history and charges, and account balances", () => {
    const detail = codec.orderDetail(
      shaped<Sdk.OrderDetail>({
        orderId: "1",
        status: E.OrderStatus.Canceled,
        stockName: "Apple",
        quantity: dec("10"),
        executedQuantity: dec("0"),
        price: dec("230"),
        executedPrice: null,
        submittedAt: new Date("2026-03-09T15:00:00Z"),
        side: E.OrderSide.Sell,
        symbol: "AAPL.US",
        orderType: E.OrderType.LO,
        lastDone: null,
        triggerPrice: null,
        msg: "",
        tag: E.OrderTag.Normal,
        timeInForce: E.TimeInForceType.Day,
        expireDate: null,
        updatedAt: null,
        triggerAt: null,
        trailingAmount: null,
        trailingPercent: null,
        limitOffset: null,
        // How the SDK hands over LongPort's `"trigger_status": "NOT_USED"`.
        triggerStatus: null,
        currency: "USD",
        outsideRth: E.OutsideRTH.AnyTime,
        remark: "",
        freeStatus: E.CommissionFreeStatus.None,
        freeAmount: null,
        freeCurrency: null,
        deductionsStatus: E.DeductionStatus.NoData,
        deductionsAmount: null,
        deductionsCurrency: null,
        platformDeductedStatus: E.DeductionStatus.Done,
        platformDeductedAmount: dec("1.00"),
        platformDeductedCurrency: "USD",
        history: [
          shaped<Sdk.OrderHistoryDetail>({
            price: dec("230"),
            quantity: dec("10"),
            status: E.OrderStatus.Canceled,
            msg: "cancelled",
            time: new Date("2026-03-09T15:05:00Z"),
          }),
        ],
        chargeDetail: shaped<Sdk.OrderChargeDetail>({
          totalAmount: dec("1.02"),
          currency: "USD",
          items: [
            shaped<Sdk.OrderChargeItem>({
              code: E.ChargeCategoryCode.Third,
              name: "Third-party fees",
              fees: [shaped<Sdk.OrderChargeFee>({ code: "SEC_FEE", name: "SEC fee", amount: dec("0.02"), currency: "USD" })],
            }),
          ],
        }),
      }),
    );
    expect(detail).toMatchObject({
      status: "CanceledStatus",
      time_in_force: "Day",
      outside_rth: "ANY_TIME",
      trigger_status: "NOT_USED",
      free_status: "None",
      deductions_status: "NO_DATA",
      platform_deducted_status: "DONE",
      platform_deducted_amount: "1.00",
      history: [{ price: "230", quantity: "10", status: "CanceledStatus", msg: "cancelled", time: "2026-03-09T15:05:00.000Z" }],
      charge_detail: {
        total_amount: "1.02",
        currency: "USD",
        items: [{ code: "THIRD_FEES", name: "Third-party fees", fees: [{ code: "SEC_FEE", name: "SEC fee", amount: "0.02", currency: "USD" }] }],
      },
    });

    const balance = codec.accountBalance(
      shaped<Sdk.AccountBalance>({
        totalCash: dec("100000.00"),
        maxFinanceAmount: dec("0"),
        remainingFinanceAmount: dec("0"),
        riskLevel: 1,
        marginCall: dec("0"),
        currency: "HKD",
        cashInfos: [
          shaped<Sdk.CashInfo>({ withdrawCash: dec("90000"), availableCash: dec("95000"), frozenCash: dec("5000"), settlingCash: dec("0"), currency: "HKD" }),
        ],
        netAssets: dec("120000.50"),
        initMargin: dec("0"),
        maintenanceMargin: dec("0"),
        buyPower: dec("95000"),
        frozenTransactionFees: [shaped<Sdk.FrozenTransactionFee>({ currency: "HKD", frozenTransactionFee: dec("15.3") })],
      }),
    );
    expect(balance).toMatchObject({
      total_cash: "100000.00",
      net_assets: "120000.50",
      risk_level: 1,
      cash_infos: [{ withdraw_cash: "90000", available_cash: "95000", frozen_cash: "5000", settling_cash: "0", currency: "HKD" }],
      frozen_transaction_fees: [{ currency: "HKD", frozen_transaction_fee: "15.3" }],
    });
  });

  it("converts stock positions of every channel: decimals as sent, the market by name, a missing initial quantity as null", () => {
    const position = (fields: Record<string, unknown>) =>
      shaped<Sdk.StockPosition>({ availableQuantity: dec("0"), currency: "USD", initQuantity: null, ...fields });
    const response = codec.stockPositions(
      shaped<Sdk.StockPositionsResponse>({
        channels: [
          shaped<Sdk.StockPositionChannel>({
            accountChannel: "lb",
            positions: [
              position({
                symbol: "700.HK",
                symbolName: "Tencent",
                quantity: dec("200"),
                availableQuantity: dec("100"),
                currency: "HKD",
                costPrice: dec("388.600"),
                market: E.Market.HK,
                initQuantity: dec("200"),
              }),
              position({
                symbol: "AAPL.US",
                symbolName: "Apple",
                quantity: dec("10"),
                availableQuantity: dec("10"),
                costPrice: dec("150.25"),
                market: E.Market.US,
              }),
            ],
          }),
          shaped<Sdk.StockPositionChannel>({
            accountChannel: "lb_margin",
            positions: [position({ symbol: "BTCUSD.HAS", symbolName: "Bitcoin", quantity: dec("0.5"), costPrice: dec("60000"), market: E.Market.Crypto })],
          }),
        ],
      }),
    );
    expect(response).toEqual({
      channels: [
        {
          account_channel: "lb",
          positions: [
            {
              symbol: "700.HK",
              symbol_name: "Tencent",
              quantity: "200",
              available_quantity: "100",
              currency: "HKD",
              cost_price: "388.600",
              market: "HK",
              init_quantity: "200",
            },
            {
              symbol: "AAPL.US",
              symbol_name: "Apple",
              quantity: "10",
              available_quantity: "10",
              currency: "USD",
              cost_price: "150.25",
              market: "US",
              init_quantity: null,
            },
          ],
        },
        {
          account_channel: "lb_margin",
          positions: [
            {
              symbol: "BTCUSD.HAS",
              symbol_name: "Bitcoin",
              quantity: "0.5",
              available_quantity: "0",
              currency: "USD",
              cost_price: "60000",
              market: "Crypto",
              init_quantity: null,
            },
          ],
        },
      ],
    });
  });
});
