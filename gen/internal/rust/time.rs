
    /// The words of a time.Time's refusal, whose step is counted but no
    /// duration: Go prints the time units × unit nanoseconds after the Unix
    /// epoch in UTC (Time.String: 2024-01-02 03:04:05.6 +0000 UTC), or
    /// "units × unit" when it is no time.Time's.
    pub fn time_text(units: i128, unit: i128, text: &str) -> String {
        let ns = units * unit;
        let (sec, nsec) = (ns.div_euclid(1_000_000_000), ns.rem_euclid(1_000_000_000));
        // Go's Time.String counts its calendar in unsigned seconds from
        // March 1 of year {{TIME_CALENDAR_YEAR}}, Unix second {{TIME_CALENDAR_ORIGIN}}: an
        // earlier time wraps around 2^64 seconds. Unix seconds past
        // {{TIME_LATEST_UNIX}} are no time.Time's.
        if sec < i64::MIN as i128 || sec > {{TIME_LATEST_UNIX}} {
            return format!("{} × {}", units, text);
        }
        let abs = (sec - {{TIME_CALENDAR_ORIGIN}}).rem_euclid(1 << 64);
        // The civil date of the days since the calendar's March 1, in eras
        // of 400 years (146097 days) from a year that is one's first.
        let (days, clock) = (abs / 86400, abs % 86400);
        let (era, doe) = (days / 146097, days % 146097);
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = doy - (153 * mp + 2) / 5 + 1;
        let month = if mp < 10 { mp + 3 } else { mp - 9 };
        let year = era * 400 + yoe + {{TIME_CALENDAR_YEAR}} + (month <= 2) as i128;
        let mut t = format!("{}{:04}-{:02}-{:02} {:02}:{:02}:{:02}", if year < 0 { "-" } else { "" }, year.abs(), month, day, clock / 3600, clock / 60 % 60, clock % 60);
        if nsec != 0 {
            t += format!(".{:09}", nsec).trim_end_matches('0');
        }
        t + " +0000 UTC"
    }
