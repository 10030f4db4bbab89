import type { DerivativeType } from "@tp/core/provider/quote-enums";

/**
 * The fixed universe of the simulated market. Reference data is illustrative (close to the real
 * companies in 2025, rounded) and never changes; prices are generated, around `basePrice`.
 */
export interface InstrumentSpec {
  symbol: string;
  market: "US" | "HK";
  nameEn: string;
  nameCn: string;
  nameHk: string;
  exchange: string;
  board: string;
  currency: "USD" | "HKD";
  lotSize: number;
  /** Exchange-traded product: HK ETPs use HKEX's ETP spread table. */
  etp: boolean;
  /** Long-run price level around mid-2025; the path mean-reverts slowly to a trend through it. */
  basePrice: number;
  annualVolatility: number;
  /** Annual drift of the long-run level (log terms). */
  annualDrift: number;
  /** Average shares traded in the regular session per day. */
  averageDailyVolume: number;
  totalShares: number;
  circulatingShares: number;
  hkShares: number;
  eps: number;
  epsTtm: number;
  bps: number;
  /** Trailing dividend per share (LongPort's static `dividend_yield` field carries this). */
  dividendPerShare: number;
  derivatives: DerivativeType[];
  /** Trades in the US overnight session ("24H" securities). */
  overnight: boolean;
}

type UsRow = [
  symbol: string,
  nameEn: string,
  nameCn: string,
  nameHk: string,
  exchange: string,
  base: number,
  vol: number,
  drift: number,
  adv: number,
  shares: number,
  eps: number,
  epsTtm: number,
  bps: number,
  dps: number,
  etp?: boolean,
];
type HkRow = [
  symbol: string,
  nameEn: string,
  nameCn: string,
  nameHk: string,
  lot: number,
  base: number,
  vol: number,
  drift: number,
  adv: number,
  shares: number,
  hkShares: number,
  eps: number,
  epsTtm: number,
  bps: number,
  dps: number,
  etp?: boolean,
];

const US: UsRow[] = [
  ["AAPL.US", "Apple Inc.", "苹果", "蘋果", "NASD", 230, 0.28, 0.1, 55e6, 14_900_000_000, 6.4, 6.6, 4.4, 1.02],
  ["MSFT.US", "Microsoft Corporation", "微软", "微軟", "NASD", 450, 0.25, 0.12, 22e6, 7_430_000_000, 12.0, 13.6, 46, 3.32],
  ["NVDA.US", "NVIDIA Corporation", "英伟达", "輝達", "NASD", 150, 0.5, 0.25, 200e6, 24_300_000_000, 2.94, 3.5, 4.8, 0.04],
  ["TSLA.US", "Tesla, Inc.", "特斯拉", "特斯拉", "NASD", 350, 0.6, 0.08, 95e6, 3_220_000_000, 2.04, 1.8, 22.7, 0],
  ["AMZN.US", "Amazon.com, Inc.", "亚马逊", "亞馬遜", "NASD", 210, 0.32, 0.12, 42e6, 10_700_000_000, 5.53, 6.2, 30, 0],
  ["GOOGL.US", "Alphabet Inc. Class A", "谷歌-A", "谷歌-A", "NASD", 190, 0.3, 0.12, 30e6, 12_100_000_000, 8.04, 9.4, 27, 0.8],
  ["META.US", "Meta Platforms, Inc.", "Meta Platforms", "Meta Platforms", "NASD", 650, 0.38, 0.15, 13e6, 2_520_000_000, 23.9, 27, 73, 2.1],
  ["AMD.US", "Advanced Micro Devices, Inc.", "超威半导体", "超微半導體", "NASD", 150, 0.5, 0.1, 45e6, 1_620_000_000, 1.0, 1.4, 35, 0],
  ["JPM.US", "JPMorgan Chase & Co.", "摩根大通", "摩根大通", "NYSE", 260, 0.24, 0.08, 9e6, 2_780_000_000, 19.8, 20.5, 120, 5.2],
  ["BRK.B.US", "Berkshire Hathaway Inc. Class B", "伯克希尔-B", "伯克希爾-B", "NYSE", 480, 0.18, 0.07, 4e6, 2_160_000_000, 41, 39, 310, 0],
  ["F.US", "Ford Motor Company", "福特汽车", "福特汽車", "NYSE", 11, 0.35, 0, 60e6, 3_980_000_000, 1.46, 1.3, 11, 0.6],
  ["SPY.US", "SPDR S&P 500 ETF Trust", "标普500ETF-SPDR", "標普500ETF-SPDR", "ARCA", 600, 0.16, 0.09, 65e6, 920_000_000, 0, 0, 0, 6.9, true],
  ["QQQ.US", "Invesco QQQ Trust", "纳指100ETF-Invesco", "納指100ETF-Invesco", "NASD", 520, 0.2, 0.12, 40e6, 620_000_000, 0, 0, 0, 3.0, true],
];

const HK: HkRow[] = [
  ["700.HK", "Tencent Holdings Ltd.", "腾讯控股", "騰訊控股", 100, 600, 0.32, 0.1, 20e6, 9_200_000_000, 9_200_000_000, 21.0, 23.0, 125, 4.5],
  ["9988.HK", "Alibaba Group Holding Ltd.", "阿里巴巴-W", "阿里巴巴－Ｗ", 100, 150, 0.42, 0.08, 70e6, 19_000_000_000, 19_000_000_000, 6.5, 7.0, 58, 1.95],
  ["3690.HK", "Meituan", "美团-W", "美團－Ｗ", 100, 110, 0.48, 0, 35e6, 6_100_000_000, 6_100_000_000, 5.9, 4.0, 27, 0],
  ["1810.HK", "Xiaomi Corporation", "小米集团-W", "小米集團－Ｗ", 200, 45, 0.45, 0.15, 140e6, 26_000_000_000, 26_000_000_000, 1.0, 1.3, 6.8, 0],
  ["5.HK", "HSBC Holdings plc", "汇丰控股", "滙豐控股", 400, 100, 0.22, 0.08, 25e6, 17_500_000_000, 17_500_000_000, 7.6, 8.0, 70, 5.1],
  ["388.HK", "Hong Kong Exchanges and Clearing Ltd.", "香港交易所", "香港交易所", 100, 400, 0.3, 0.1, 6e6, 1_270_000_000, 1_270_000_000, 10.5, 12.0, 45, 9.0],
  ["941.HK", "China Mobile Ltd.", "中国移动", "中國移動", 500, 85, 0.18, 0.06, 16e6, 21_500_000_000, 21_500_000_000, 6.9, 7.1, 62, 5.1],
  ["1299.HK", "AIA Group Ltd.", "友邦保险", "友邦保險", 200, 75, 0.28, 0.06, 25e6, 10_600_000_000, 10_600_000_000, 4.0, 4.3, 32, 1.7],
  [
    "2318.HK",
    "Ping An Insurance (Group) Co. of China, Ltd.",
    "中国平安",
    "中國平安",
    500,
    55,
    0.33,
    0.05,
    35e6,
    18_200_000_000,
    7_450_000_000,
    6.8,
    7.3,
    52,
    2.6,
  ],
  ["9618.HK", "JD.com, Inc.", "京东集团-SW", "京東集團－ＳＷ", 50, 130, 0.4, 0.05, 12e6, 3_000_000_000, 3_000_000_000, 11, 12, 75, 3.9],
  ["1024.HK", "Kuaishou Technology", "快手-W", "快手－Ｗ", 100, 65, 0.48, 0.05, 22e6, 4_300_000_000, 4_300_000_000, 3.9, 4.5, 15, 0],
  ["3988.HK", "Bank of China Ltd.", "中国银行", "中國銀行", 1000, 4.4, 0.2, 0.06, 300e6, 294_000_000_000, 83_600_000_000, 0.74, 0.75, 7.4, 0.26],
  ["883.HK", "CNOOC Ltd.", "中国海洋石油", "中國海洋石油", 1000, 20, 0.3, 0.05, 60e6, 47_500_000_000, 47_500_000_000, 3.0, 2.9, 16, 1.4],
  ["857.HK", "PetroChina Co. Ltd.", "中国石油股份", "中國石油股份", 2000, 7.5, 0.3, 0.05, 200e6, 183_000_000_000, 21_100_000_000, 0.9, 0.9, 8.0, 0.47],
  ["2800.HK", "Tracker Fund of Hong Kong", "盈富基金", "盈富基金", 500, 25, 0.22, 0.05, 60e6, 8_000_000_000, 8_000_000_000, 0, 0, 0, 0.75, true],
];

/** Every instrument the simulator knows, US first, in a fixed order. */
export const SimulatedUniverse: readonly InstrumentSpec[] = [
  ...US.map(
    ([symbol, nameEn, nameCn, nameHk, exchange, base, vol, drift, adv, shares, eps, epsTtm, bps, dps, etp]): InstrumentSpec => ({
      symbol,
      market: "US",
      nameEn,
      nameCn,
      nameHk,
      exchange,
      board: "USMain",
      currency: "USD",
      lotSize: 1,
      etp: etp ?? false,
      basePrice: base,
      annualVolatility: vol,
      annualDrift: drift,
      averageDailyVolume: adv,
      totalShares: shares,
      circulatingShares: shares,
      hkShares: 0,
      eps,
      epsTtm,
      bps,
      dividendPerShare: dps,
      derivatives: ["Option"],
      overnight: true,
    }),
  ),
  ...HK.map(
    ([symbol, nameEn, nameCn, nameHk, lot, base, vol, drift, adv, shares, hkShares, eps, epsTtm, bps, dps, etp]): InstrumentSpec => ({
      symbol,
      market: "HK",
      nameEn,
      nameCn,
      nameHk,
      exchange: "SEHK",
      board: "HKEquity",
      currency: "HKD",
      lotSize: lot,
      etp: etp ?? false,
      basePrice: base,
      annualVolatility: vol,
      annualDrift: drift,
      averageDailyVolume: adv,
      totalShares: shares,
      circulatingShares: hkShares,
      hkShares,
      eps,
      epsTtm,
      bps,
      dividendPerShare: dps,
      derivatives: etp ? [] : ["Warrant"],
      overnight: false,
    }),
  ),
];
