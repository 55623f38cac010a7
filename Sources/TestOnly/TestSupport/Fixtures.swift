import AlarmModel
import Foundation

/// Small builders for alarms in tests and benchmarks.
package enum Fixtures {
    /// An instant from an ISO-8601 string such as `2026-03-27T07:30:00Z`; traps on a typo.
    package static func instant(_ text: String) -> Date {
        try! Date(text, strategy: .iso8601)
    }

    /// A time zone of the system's database by identifier; traps on a typo.
    package static func zone(_ identifier: String) -> ZoneRules {
        ZoneRules(named: identifier)!
    }

    /// A definition with a title and the usual Stop and Snooze buttons when `snooze` is given.
    package static func definition(
        _ schedule: Alarm.Schedule?, preAlert: TimeInterval? = nil, snooze: TimeInterval? = nil, title: String = "Alarm"
    ) -> AlarmDefinition {
        let alert =
            snooze == nil
            ? AlarmPresentation.Alert(title: LocalizedStringResource(title))
            : AlarmPresentation.Alert(
                title: LocalizedStringResource(title), stopButton: .stopButton, secondaryButton: .snoozeButton,
                secondaryButtonBehavior: .countdown)
        let countdown =
            (preAlert != nil || snooze != nil)
            ? Alarm.CountdownDuration(preAlert: preAlert, postAlert: snooze) : nil
        return AlarmDefinition(
            schedule: schedule, countdownDuration: countdown,
            presentation: AlarmPresentation(
                alert: alert, countdown: .init(title: "Counting down", pauseButton: .pauseButton),
                paused: .init(title: "Paused", resumeButton: .resumeButton)))
    }

    /// A timer of `seconds`.
    package static func timer(_ seconds: TimeInterval, snooze: TimeInterval? = nil, title: String = "Timer") -> AlarmDefinition {
        definition(nil, preAlert: seconds, snooze: snooze, title: title)
    }

    /// A clock-time schedule, repeating on `days` when given.
    package static func clockTime(_ hour: Int, _ minute: Int, on days: [Locale.Weekday]? = nil) -> Alarm.Schedule {
        .relative(.init(time: .init(hour: hour, minute: minute), repeats: days.map { .weekly($0) } ?? .never))
    }

    /// A fresh, empty temporary folder.
    package static func temporaryDirectory(_ label: String = "reveille") -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(label)-\(UUID().uuidString.prefix(8))")
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

extension ZoneRules {
    /// Foundation's zone of the same name (ICU's rules), for tests that check the schedule math
    /// against `Calendar`; traps when Foundation does not know the name.
    package var foundationTimeZone: TimeZone {
        TimeZone(identifier: identifier)!
    }
}
