import FoundationEssentials

/// Turns a local date and clock time into the instant it names in a time zone.
///
/// A local time can name no instant (it falls in a gap, such as the hour skipped when daylight
/// saving time begins) or two (it falls in an overlap, when the clocks go back). Reveille's rule:
/// a time in a gap resolves to the first instant after the gap; a time in an overlap resolves to
/// its first occurrence. The resolver reads the zone's offset changes around the time from its
/// `ZoneRules` (the system's time-zone database where it has the zone), which give every offset
/// change (Pacific/Apia's skipped day and Asia/Kathmandu's 15-minute change among them).
public struct LocalTimeResolver: Sendable {
    /// The zone the local times are in, with its rules.
    public let rules: ZoneRules

    /// Creates a resolver for a time zone.
    public init(timeZone: ZoneRules) {
        self.rules = timeZone
    }

    /// How a local time was resolved.
    public enum Resolution: Hashable, Sendable {
        /// The local time exists; in an overlap, this is its first occurrence.
        case exact(Date)
        /// The local time falls in a gap; this is the first instant after the gap.
        case afterGap(Date)

        /// The instant, however it was found.
        public var instant: Date {
            switch self {
            case .exact(let date), .afterGap(let date): date
            }
        }
    }

    /// The widest distance, in seconds, between a local time and an instant that shows it.
    ///
    /// Offsets in use range from UTC-12 to UTC+14; a day-long jump (Apia, 2011) also fits.
    private static let window: Int64 = 40 * 3600

    /// Resolves a local wall time, given as seconds since 1970-01-01 00:00 *local*.
    public func resolve(localSeconds wall: Int64) -> Resolution {
        // The offsets in force over the instants that could show this wall time, as segments
        // [start, next start) each with one offset.
        let windowStart = wall - Self.window
        let windowEnd = wall + Self.window
        var segmentStart = windowStart
        var offset = rules.secondsFromGMT(at: windowStart)
        var firstAfterGap: Int64?
        while true {
            let transition = rules.nextChange(after: segmentStart)
            let segmentEnd = transition.map { min($0, windowEnd) } ?? windowEnd
            let candidate = wall - offset
            if candidate >= segmentStart && candidate < segmentEnd {
                return .exact(Date(seconds: candidate))
            }
            guard let transition, transition < windowEnd, transition > segmentStart else { break }
            let nextOffset = rules.secondsFromGMT(at: transition)
            // The wall clock jumps from transition + offset to transition + nextOffset. If our wall
            // time lies in between, it was skipped, and the transition is the first instant after.
            if firstAfterGap == nil, transition + offset <= wall, wall < transition + nextOffset {
                firstAfterGap = transition
            }
            segmentStart = transition
            offset = nextOffset
        }
        if let firstAfterGap { return .afterGap(Date(seconds: firstAfterGap)) }
        // Unreachable for real zones; fall back to the offset in force at the naive instant.
        let naive = wall - rules.secondsFromGMT(at: wall)
        return .exact(Date(seconds: naive))
    }
}

extension Date {
    /// The instant `seconds` whole seconds after 1970-01-01 00:00 UTC.
    init(seconds: Int64) {
        self.init(timeIntervalSince1970: TimeInterval(seconds))
    }
}
