/** Upper, middle and lower lines of a channel (Bollinger, Keltner, Donchian) at one bar. */
export interface BandValue {
  upper: number;
  middle: number;
  lower: number;
}

/** Upper, middle and lower lines of a channel over a whole series. */
export interface BandSeries {
  upper: Float64Array;
  middle: Float64Array;
  lower: Float64Array;
}
