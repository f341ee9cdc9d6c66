
// time.Time fields, held as their Unix time counted in units: refused
// outside their range in the words of Go's refusals, which print the time.

/**
 * A time.Time held as its count of units since the Unix epoch (a number,
 * or a bigint when big), written as writeCounted writes it; a count outside
 * [min, max] is refused unless clamp, worded as Go words the time it stands
 * for (count × unit nanoseconds).
 */
function writeTime(w: BitWriter, value: number | bigint, big: boolean, min: bigint, max: bigint, n: number, flip: bigint, unit: bigint, clamp: boolean, unitText: string): boolean {
  // A count writeCounted takes (an integer number, a bigint of 64 bits) outside the range.
  const count = big ? typeof value === "bigint" && value >= -(1n << 63n) && value < 1n << 63n : typeof value === "number" && Number.isInteger(value);
  if (count && !clamp && (BigInt(value) < min || BigInt(value) > max)) {
    const units = BigInt(value);
    return w.fail("Range", "value " + timeText(units, unit, unitText) + " is " + units + " units of " + unitText + ", out of range [" + min + ", " + max + "]");
  }
  return w.writeCounted(value, big, min, max, n, flip, unit, clamp, unitText);
}

/**
 * The time units × unit nanoseconds after the Unix epoch as Go prints it in
 * UTC (Time.String: 2024-01-02 03:04:05.6 +0000 UTC), or "units × unit"
 * when it is no time.Time's.
 */
function timeText(units: bigint, unit: bigint, unitText: string): string {
  const ns = units * unit;
  let sec = ns / 1000000000n;
  let nsec = ns % 1000000000n;
  if (nsec < 0n) {
    sec -= 1n;
    nsec += 1000000000n;
  }
  // Go's Time.String counts its calendar in unsigned seconds from March 1
  // of year {{TIME_CALENDAR_YEAR}}, Unix second {{TIME_CALENDAR_ORIGIN}}: an earlier time wraps
  // around 2^64 seconds. Unix seconds past {{TIME_LATEST_UNIX}} are no time.Time's.
  if (sec < -(1n << 63n) || sec > {{TIME_LATEST_UNIX}}n) {
    return units + " × " + unitText;
  }
  const abs = BigInt.asUintN(64, sec - {{TIME_CALENDAR_ORIGIN}}n);
  // The civil date of the days since the calendar's March 1, in eras of 400
  // years (146097 days) from a year that is one's first; below 2^48 days.
  const days = Number(abs / 86400n);
  const clock = Number(abs % 86400n);
  const era = Math.floor(days / 146097);
  const doe = days % 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = era * 400 + yoe + {{TIME_CALENDAR_YEAR}} + (month <= 2 ? 1 : 0);
  const two = (x: number): string => String(x).padStart(2, "0");
  let text = (year < 0 ? "-" : "") + String(Math.abs(year)).padStart(4, "0") + "-" + two(month) + "-" + two(day) +
    " " + two(Math.floor(clock / 3600)) + ":" + two(Math.floor(clock / 60) % 60) + ":" + two(clock % 60);
  if (nsec !== 0n) {
    text += "." + String(nsec).padStart(9, "0").replace(/0+$/, "");
  }
  return text + " +0000 UTC";
}
