import FoundationEssentials

/// The schedule math: when an alarm next alerts, in a given time zone.
///
/// Clock-time (`.relative`) alarms are computed in the zone each time they are armed; `.fixed`
/// alarms are instants. Each local day names exactly one instant for a clock time: its first
/// occurrence in an overlap, the first instant after the gap in a gap. So a daily alarm rings
/// once on the day the clocks go back, and never silently skips the day they go forward.
public struct AlertCalendar: Sendable {
    /// The time zone clock times are read in, with its rules.
    public var timeZone: ZoneRules { resolver.rules }
    private let resolver: LocalTimeResolver

    /// Creates the schedule math for a time zone.
    public init(timeZone: ZoneRules) {
        self.resolver = LocalTimeResolver(timeZone: timeZone)
    }

    /// The first alert instant of a schedule strictly after `instant`, or `nil` when there is none
    /// (a fixed instant already passed).
    public func nextAlert(of schedule: Alarm.Schedule, after instant: Date) -> Date? {
        switch schedule {
        case .fixed(let date):
            return date > instant ? date : nil
        case .relative(let relative):
            return nextAlert(of: relative, after: instant)?.instant
        }
    }

    /// The first alert of a clock-time schedule strictly after `instant`, with how it resolved.
    public func nextAlert(of relative: Alarm.Schedule.Relative, after instant: Date) -> LocalTimeResolver.Resolution? {
        let days = Set(relative.repeats.weekdays)
        let isWeekly: Bool
        if case .weekly = relative.repeats { isWeekly = true } else { isWeekly = false }
        if isWeekly && days.isEmpty { return nil }
        // Start a day early: the previous day's time can land after `instant` through a gap.
        let first = CivilDate(containing: instant, rules: resolver.rules).adding(days: -1)
        // A week, plus the days a zone can skip or repeat, always holds the answer.
        for step in Int64(0)..<16 {
            let day = first.adding(days: step)
            if isWeekly && !days.contains(day.weekday) { continue }
            let wall = day.localSeconds(hour: relative.time.hour, minute: relative.time.minute)
            let resolution = resolver.resolve(localSeconds: wall)
            if resolution.instant > instant { return resolution }
        }
        return nil
    }

    /// The alert instants of a schedule after `instant` up to and including `end`, at most `limit`.
    ///
    /// Used to count the alerts a repeating alarm missed while nothing ran.
    public func alerts(of schedule: Alarm.Schedule, after instant: Date, through end: Date, limit: Int) -> [Date] {
        var found: [Date] = []
        var cursor = instant
        while found.count < limit, let next = nextAlert(of: schedule, after: cursor), next <= end {
            found.append(next)
            cursor = next
            if case .fixed = schedule { break }
            if case .relative(let relative) = schedule, case .never = relative.repeats { break }
        }
        return found
    }
}
