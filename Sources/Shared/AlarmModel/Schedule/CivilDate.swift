import FoundationEssentials

/// A day on the proleptic Gregorian calendar, counted in days since 1970-01-01.
///
/// Schedule math walks local days; doing it with integer arithmetic keeps it exact and fast, and
/// independent of `Calendar`'s own (zone-dependent) day boundaries.
public struct CivilDate: Hashable, Comparable, Sendable {
    /// Days since 1970-01-01.
    public var daysSinceEpoch: Int64

    /// Creates a day from its count of days since 1970-01-01.
    public init(daysSinceEpoch: Int64) {
        self.daysSinceEpoch = daysSinceEpoch
    }

    /// The local day of an instant under a zone's rules.
    public init(containing instant: Date, rules: ZoneRules) {
        let seconds = Int64(instant.timeIntervalSince1970.rounded(.down))
        let local = seconds + rules.secondsFromGMT(at: seconds)
        self.init(daysSinceEpoch: local.floorDivided(by: 86_400))
    }

    /// The day's weekday.
    public var weekday: Locale.Weekday {
        // 1970-01-01 was a Thursday (index 4, Sunday first).
        Locale.Weekday.sundayFirst[Int((daysSinceEpoch + 4).floorModulo(7))]
    }

    /// The day after adding `days`.
    public func adding(days: Int64) -> CivilDate {
        CivilDate(daysSinceEpoch: daysSinceEpoch + days)
    }

    /// Seconds since 1970-01-01 00:00 local time at the given time of this day.
    public func localSeconds(hour: Int, minute: Int) -> Int64 {
        daysSinceEpoch * 86_400 + Int64(hour) * 3_600 + Int64(minute) * 60
    }

    /// Orders days.
    public static func < (lhs: CivilDate, rhs: CivilDate) -> Bool {
        lhs.daysSinceEpoch < rhs.daysSinceEpoch
    }
}

extension Int64 {
    /// Division rounding toward negative infinity.
    package func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }

    /// The remainder that matches `floorDivided(by:)`, always in `0..<divisor` for positive divisors.
    package func floorModulo(_ divisor: Int64) -> Int64 {
        self - floorDivided(by: divisor) * divisor
    }
}
