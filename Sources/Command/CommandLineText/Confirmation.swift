import AlarmModel
import AlarmRecords
import FoundationEssentials
import Localization

/// What the command says on a terminal once it has set or changed an alarm: what will happen and
/// when, in the person's language and clock, and the command that undoes it.
///
/// ```
/// Alarm set for Sat 07:30, in 14 h 50 min (9a749d0a). Cancel it with: reveille cancel 9a74
/// “Wake up” set for 07:30 on weekdays; next Mon 07:30, in 2 d 14 h (9a749d0a). Turn it off with: reveille off 9a74
/// Timer set for 5 min, rings at Sat 14:35 (0b7e44d2). Cancel it with: reveille cancel 0b7e
/// ```
///
/// Times are written as `reveille list` writes them (``LocalTimeFormat``, in `style`), how far
/// away by ``LengthText/fromNow(_:)``. `handle` is the shortest start of the id that names the
/// alarm among the person's alarms, for the command to type; the id's first 8 characters, as
/// `list` shows them, come in brackets. Titles are shown inert (``AlarmListFormat/cleaned(_:)``).
/// Only a terminal is told this: piped or with `--json`, the command prints what it always did.
package enum Confirmation {
    /// After `add` or `timer`: what was set, when it rings, and how to cancel it or turn it off.
    package static func scheduled(_ record: AlarmRecord, at reading: ClockReading, style: TimeStyle, handle: String) -> String {
        let name = Self.name(of: record.definition)
        let id = shortID(record)
        let definition = record.definition
        if definition.isTimer {
            let length = LengthText.text(seconds: Int64((definition.countdownDuration?.preAlert ?? 0).rounded()))
            let end = record.fireDate(from: reading).map { LocalTimeFormat.string(for: $0, at: reading, style: style) } ?? "-"
            return Translation.format("%s set for %s, rings at %s (%s).", name, length, end, id) + " "
                + Translation.format("Cancel it with: reveille cancel %s", handle)
        }
        if let days = repeatingDays(of: definition), case .relative(let relative)? = definition.schedule {
            let clock = style.clockText(hour: relative.time.hour, minute: relative.time.minute)
            return Translation.format(
                "%s set for %s %s; %s (%s).", name, clock, daysText(days, style: style), next(record, at: reading, style: style), id)
                + " " + Translation.format("Turn it off with: reveille off %s", handle)
        }
        guard let fireDate = record.fireDate(from: reading) else { return Translation.format("%s set (%s).", name, id) }
        return Translation.format(
            "%s set for %s, %s (%s).", name, LocalTimeFormat.string(for: fireDate, at: reading, style: style),
            LengthText.fromNow(fireDate.timeIntervalSince(reading.now)), id)
            + " " + Translation.format("Cancel it with: reveille cancel %s", handle)
    }

    /// After `edit`: what the alarm is now and when it rings next.
    package static func edited(_ record: AlarmRecord, at reading: ClockReading, style: TimeStyle, handle: String) -> String {
        let name = Self.name(of: record.definition)
        let id = shortID(record)
        if let days = repeatingDays(of: record.definition), case .relative(let relative)? = record.definition.schedule {
            let clock = style.clockText(hour: relative.time.hour, minute: relative.time.minute)
            return Translation.format(
                "%s changed: %s %s; %s (%s).", name, clock, daysText(days, style: style), next(record, at: reading, style: style), id)
        }
        return Translation.format("%s changed: %s (%s).", name, next(record, at: reading, style: style), id)
    }

    /// After `snooze`: when it rings again.
    package static func snoozed(_ record: AlarmRecord, at reading: ClockReading, style: TimeStyle) -> String {
        guard let fireDate = record.fireDate(from: reading) else { return Translation.format("%s snoozed.", name(of: record.definition)) }
        return Translation.format(
            "%s snoozed: rings again at %s, %s.", name(of: record.definition),
            LocalTimeFormat.string(for: fireDate, at: reading, style: style),
            LengthText.fromNow(fireDate.timeIntervalSince(reading.now)))
    }

    /// After `skip`: which alert is skipped, when it rings next, and how to undo it.
    package static func skipped(_ record: AlarmRecord, at reading: ClockReading, style: TimeStyle, handle: String) -> String {
        let name = Self.name(of: record.definition)
        guard let skipped = record.pendingSkip(at: reading.now) else { return next(record, at: reading, style: style) }
        return Translation.format(
            "%s skips %s; %s.", name, LocalTimeFormat.string(for: skipped, at: reading, style: style),
            next(record, at: reading, style: style))
            + " " + Translation.format("Undo with: reveille unskip %s", handle)
    }

    /// After `off`: that it is off and keeps its settings, and how to turn it on.
    package static func turnedOff(_ record: AlarmRecord, handle: String) -> String {
        Translation.format("%s is off; it keeps its settings.", name(of: record.definition)) + " "
            + Translation.format("Turn it on with: reveille on %s", handle)
    }

    /// After `on`: when it rings next.
    package static func turnedOn(_ record: AlarmRecord, at reading: ClockReading, style: TimeStyle) -> String {
        Translation.format("%s is on: %s.", name(of: record.definition), next(record, at: reading, style: style))
    }

    // MARK: Parts

    /// `next Mon 07:30, in 2 d 14 h`, or what the alarm does instead: counts down, waits paused,
    /// rings, or is off.
    static func next(_ record: AlarmRecord, at reading: ClockReading, style: TimeStyle) -> String {
        if !record.definition.isEnabled { return Translation.text("it is off") }
        switch record.phase {
        case .alerting:
            return Translation.text("it is ringing")
        case .paused(let paused):
            return Translation.format(
                "paused with %s left", LengthText.text(seconds: Int64(paused.remaining.rounded(.up)), maximumUnits: 2))
        case .countdown:
            guard let fireDate = record.fireDate(from: reading) else { return Translation.text("it is counting down") }
            return Translation.format(
                "rings at %s, %s", LocalTimeFormat.string(for: fireDate, at: reading, style: style),
                LengthText.fromNow(fireDate.timeIntervalSince(reading.now)))
        case .scheduled(let alertAt):
            return Translation.format(
                "next %s, %s", LocalTimeFormat.string(for: alertAt, at: reading, style: style),
                LengthText.fromNow(alertAt.timeIntervalSince(reading.now)))
        }
    }

    /// `Alarm` or `Timer` for an alarm without a title of its own, otherwise its title in quotes.
    static func name(of definition: AlarmDefinition) -> String {
        if definition.title.isEmpty || definition.title == (definition.isTimer ? "Timer" : "Alarm") {
            return definition.isTimer ? Translation.text("Timer") : Translation.text("Alarm")
        }
        return Translation.format("“%s”", AlarmListFormat.cleaned(definition.title))
    }

    /// The days a clock-time alarm repeats on, or `nil` for one that rings once.
    static func repeatingDays(of definition: AlarmDefinition) -> [Locale.Weekday]? {
        guard case .relative(let relative)? = definition.schedule, case .weekly(let days) = relative.repeats, !days.isEmpty else {
            return nil
        }
        return WeekdaysInput.weekOrdered(days)
    }

    /// `on weekdays`, `on weekends`, `every day`, or `on Mon, Wed` in the person's day names.
    static func daysText(_ days: [Locale.Weekday], style: TimeStyle) -> String {
        switch WeekdaysInput.weekOrdered(days) {
        case WeekdaysInput.mondayFirst: Translation.text("every day")
        case [.monday, .tuesday, .wednesday, .thursday, .friday]: Translation.text("on weekdays")
        case [.saturday, .sunday]: Translation.text("on weekends")
        case let days: Translation.format("on %s", days.map(style.weekdayText).joined(separator: ", "))
        }
    }

    /// The id's first 8 characters, as `list` shows them.
    static func shortID(_ record: AlarmRecord) -> String { String(record.id.lowercasedText().prefix(8)) }

    /// The shortest start of `id`, at least 4 characters, that no other of `ids` starts with: what
    /// a person types to name it.
    package static func handle(for id: UUID, among ids: [UUID]) -> String {
        let text = id.lowercasedText()
        let others = ids.filter { $0 != id }.map { $0.lowercasedText() }
        var length = 4
        while length < text.count, others.contains(where: { $0.hasPrefix(text.prefix(length)) }) { length += 1 }
        return String(text.prefix(length))
    }
}
