import AlarmRecords
import AlarmModel
import FoundationEssentials

/// The stable JSON form of an alarm that the CLI prints and scripts read (DESIGN.md's contract).
///
/// Keys: `id`, `state`, `kind`, `title`, `schedule` (`{"fixed": ISO-8601}` or
/// `{"hour": 7, "minute": 30, "weekdays": [...]}`, weekdays only when it repeats), `countdown`
/// (`preAlert`, `postAlert` seconds), `fireDate` (the next alert instant, when known), `remaining`
/// (seconds left of a running or paused countdown), `sound` (`"default"` or the name),
/// `breakthrough` (`false` for an alarm that respects do-not-disturb; left out when it breaks
/// through, as alarms do by default), `volume` (percent), `ramp` and `ringTimeout` (seconds) when
/// the alarm has its own, `enabled` (`false` for an alarm turned off; left out when on), `skipped`
/// (the alert a repeating alarm skips, while it is ahead). Instants are ISO-8601 in UTC. Keys with no value are left out. Fields are only ever added.
package struct AlarmDescription: Codable, Hashable, Sendable {
    /// The alarm's id, lowercase.
    package var id: String
    /// `scheduled`, `countdown`, `paused` or `alerting`.
    package var state: String
    /// `alarm` (it has a schedule) or `timer`.
    package var kind: String
    /// The alert's title.
    package var title: String
    /// The schedule, if any.
    package var schedule: ScheduleDescription?
    /// The countdown durations, if any.
    package var countdown: CountdownDescription?
    /// The next alert instant, ISO-8601, when known.
    package var fireDate: String?
    /// Seconds left of a running or paused countdown.
    package var remaining: Double?
    /// `default`, or the sound's file path or theme name.
    package var sound: String
    /// `false` when the alarm respects do-not-disturb; `nil` (left out) when it breaks through.
    package var breakthrough: Bool?
    /// The alarm's own volume in percent; `nil` rings at the agent's.
    package var volume: Int?
    /// The alarm's own crescendo, in seconds.
    package var ramp: Double?
    /// The alarm's own ring time-out, in seconds (0: until answered).
    package var ringTimeout: Double?
    /// `false` when the alarm is turned off; `nil` (left out) when it is on.
    package var enabled: Bool?
    /// The alert a repeating alarm skips, ISO-8601, while it is ahead.
    package var skipped: String?

    /// A schedule in JSON.
    package struct ScheduleDescription: Codable, Hashable, Sendable {
        /// The instant of a fixed schedule.
        package var fixed: String?
        /// The hour of a clock-time schedule.
        package var hour: Int?
        /// The minute of a clock-time schedule.
        package var minute: Int?
        /// The days of a weekly schedule, lowercase English names, Monday first.
        package var weekdays: [String]?

        /// Creates a schedule description.
        package init(fixed: String? = nil, hour: Int? = nil, minute: Int? = nil, weekdays: [String]? = nil) {
            self.fixed = fixed
            self.hour = hour
            self.minute = minute
            self.weekdays = weekdays
        }
    }

    /// Countdown durations in JSON.
    package struct CountdownDescription: Codable, Hashable, Sendable {
        /// Seconds before the alert.
        package var preAlert: Double?
        /// Seconds after the alert (snooze, repeat).
        package var postAlert: Double?

        /// Creates a countdown description.
        package init(preAlert: Double?, postAlert: Double?) {
            self.preAlert = preAlert
            self.postAlert = postAlert
        }
    }

    /// Describes a record as seen from a clock reading.
    package init(_ record: AlarmRecord, at reading: ClockReading) {
        let definition = record.definition
        id = record.id.lowercasedText()
        state = record.state.rawValue
        kind = definition.isTimer ? "timer" : "alarm"
        title = definition.title
        switch definition.schedule {
        case .fixed(let date):
            schedule = ScheduleDescription(fixed: Self.iso8601(date))
        case .relative(let relative):
            let days = relative.repeats.weekdays
            schedule = ScheduleDescription(
                hour: relative.time.hour, minute: relative.time.minute,
                weekdays: days.isEmpty ? nil : Self.mondayFirst(days))
        case nil:
            schedule = nil
        }
        countdown = definition.countdownDuration.map {
            CountdownDescription(preAlert: $0.preAlert, postAlert: $0.postAlert)
        }
        fireDate = record.fireDate(from: reading).map(Self.iso8601)
        remaining = record.remaining(from: reading).map { ($0 * 1000).rounded() / 1000 }
        switch definition.sound {
        case .default: sound = "default"
        case .named(let name): sound = name
        }
        breakthrough = definition.breakthrough ? nil : false
        volume = definition.volume
        ramp = definition.soundRamp
        ringTimeout = definition.ringTimeout
        enabled = definition.isEnabled ? nil : false
        skipped = record.pendingSkip(at: reading.now).map(Self.iso8601)
    }

    /// The JSON text: keys sorted, no extra spaces, `/` not escaped.
    package func json() -> String {
        String(decoding: try! Self.encoder.encode(self), as: UTF8.self)
    }

    /// The JSON text of a list of alarms, as `list --json` prints it.
    package static func json(_ descriptions: [AlarmDescription]) -> String {
        String(decoding: try! encoder.encode(descriptions), as: UTF8.self)
    }

    private static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// An instant as ISO-8601 in UTC, with fractional seconds only when it has them.
    package static func iso8601(_ date: Date) -> String {
        let whole = date.timeIntervalSince1970.rounded(.down) == date.timeIntervalSince1970
        let style = Date.ISO8601FormatStyle(includingFractionalSeconds: !whole, timeZone: .gmt)
        return date.formatted(style)
    }

    /// Weekday names in a week that starts on Monday, as people write them.
    static func mondayFirst(_ days: [Locale.Weekday]) -> [String] {
        let order: [Locale.Weekday] = [.monday, .tuesday, .wednesday, .thursday, .friday, .saturday, .sunday]
        return order.filter(days.contains).map(\.englishName)
    }
}
