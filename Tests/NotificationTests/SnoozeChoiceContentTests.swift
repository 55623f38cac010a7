import AlarmCore
import AlarmModel
import AlarmRecords
import Foundation
import Testing
import TestSupport

@testable import AlarmDesktop

/// The snooze choices (`reveilled --snooze-choices`): how the list is read, which actions an
/// alert gets on each notification server, and which action keys are answers.
@Suite("Snooze choices: the list, the alert's actions per server, the answers")
struct SnoozeChoiceContentTests {
    static let due = Fixtures.instant("2026-03-27T07:30:00Z")

    /// A ringing alarm with `definition`.
    static func ringing(_ definition: AlarmDefinition) -> AlarmRecord {
        AlarmRecord(
            id: UUID(), owner: "user", definition: definition,
            phase: .alerting(.init(scheduledAt: due, startedAt: due, timesOutAt: nil)), anchor: due)
    }

    /// A ringing alarm with Stop and Snooze (9 minutes).
    static let snoozing = ringing(Fixtures.definition(.fixed(due), snooze: 540, title: "Wake up"))

    static let fiveTenFifteen = try! SnoozeChoices(parsing: "5m,10m,15m")

    /// The alert's action keys on `desktop`.
    static func keys(
        _ record: AlarmRecord = snoozing, on desktop: NotificationDesktop?, choices: SnoozeChoices = fiveTenFifteen,
        hasActions: Bool = true
    ) -> [String] {
        NotificationContent.alert(record, hasActions: hasActions, snoozeChoices: choices, desktop: desktop).actions.map(\.key)
    }

    @Test("On dunst the alert offers Stop, Snooze, then Snooze 5 min, 10 min, 15 min, in the order given")
    func dunstGetsTheChoices() {
        let content = NotificationContent.alert(Self.snoozing, hasActions: true, snoozeChoices: Self.fiveTenFifteen, desktop: .dunst)
        #expect(content.actions.map(\.key) == ["default", "stop", "snooze", "snooze-300", "snooze-600", "snooze-900"])
        #expect(content.actions.map(\.label) == ["Show", "Stop", "Snooze", "Snooze 5 min", "Snooze 10 min", "Snooze 15 min"])
    }

    @Test(
        "Servers that show more than two actions get the choices; GNOME Shell (three buttons at most) and servers not known get Stop and Snooze only",
        arguments: NotificationDesktop.allCases.map(Optional.some) + [nil])
    func perServer(_ desktop: NotificationDesktop?) {
        let plain = ["default", "stop", "snooze"]
        let shows: Set<NotificationDesktop> = [.dunst, .mako, .xfce, .swaync, .plasma]
        if let desktop, shows.contains(desktop) {
            #expect(Self.keys(on: desktop) == plain + ["snooze-300", "snooze-600", "snooze-900"])
        } else {
            #expect(Self.keys(on: desktop) == plain)
        }
        #expect(NotificationContent.showsSnoozeChoices(.gnome) == false)
    }

    @Test("With no choices configured the alert is what it was, on every server")
    func noChoicesUnchanged() {
        for desktop in NotificationDesktop.allCases {
            #expect(Self.keys(on: desktop, choices: .none) == ["default", "stop", "snooze"])
        }
        #expect(
            NotificationContent.alert(Self.snoozing, hasActions: true)
                == NotificationContent.alert(
                    Self.snoozing, hasActions: true, snoozeChoices: .none, desktop: .dunst))
    }

    @Test("Only an alarm that snoozes gets the choices: not one without a snooze button, not Open (.custom), not a timer's Repeat")
    func onlyWhenItSnoozes() {
        let plain = Self.ringing(Fixtures.definition(.fixed(Self.due), title: "Plain"))
        #expect(Self.keys(plain, on: .dunst) == ["default", "stop"])

        var open = Fixtures.definition(.fixed(Self.due), title: "Open me")
        open.presentation.alert = AlarmPresentation.Alert(
            title: "Open me", stopButton: .stopButton, secondaryButton: .openAppButton, secondaryButtonBehavior: .custom)
        #expect(Self.keys(Self.ringing(open), on: .dunst) == ["default", "stop", "open"])

        var tea = Fixtures.timer(60, snooze: 60, title: "Tea")
        tea.presentation.alert = AlarmPresentation.Alert(
            title: "Tea", stopButton: .stopButton, secondaryButton: .repeatButton, secondaryButtonBehavior: .countdown)
        #expect(Self.keys(Self.ringing(tea), on: .dunst) == ["default", "stop", "repeat"])

        // A timer whose button says Snooze snoozes.
        let snoozingTimer = Self.ringing(Fixtures.timer(60, snooze: 60, title: "Nap"))
        #expect(Self.keys(snoozingTimer, on: .dunst).suffix(2) == ["snooze-600", "snooze-900"])
        // A server without the actions capability gets none of them.
        #expect(Self.keys(on: .dunst, hasActions: false) == ["default", "stop", "snooze"])
    }

    @Test("The list reads seconds, s, m, h and 1h30m; drops duplicates; keeps the order")
    func parsing() throws {
        #expect(try SnoozeChoices(parsing: "300").seconds == [300])
        #expect(try SnoozeChoices(parsing: "90s, 5m,1h , 1h30m").seconds == [90, 300, 3_600, 5_400])
        #expect(try SnoozeChoices(parsing: "10m,5m,600,10m,300s").seconds == [600, 300])
        #expect(try SnoozeChoices(parsing: "12h").seconds == [43_200])
        #expect(try SnoozeChoices(parsing: "1,2,3,4,5,5").seconds.count == 5)
        #expect(try SnoozeChoices(parsing: "").isEmpty)
    }

    @Test(
        "A bad list is refused, naming the bad item",
        arguments: [
            ("5x", "“5x”"), ("0", "“0”"), ("0m", "“0m”"), ("12h1s", "at most 12 hours"), ("13h", "“13h”"),
            ("5m,,10m", "empty"), ("5m,", "empty"), ("1h30", "“1h30”"), ("30m1h", "“30m1h”"), ("-5m", "“-5m”"),
            ("5 m", "“5 m”"), ("1.5m", "“1.5m”"), ("99999999999999s", "at most 12 hours"),
            ("1m,2m,3m,4m,5m,6m", "at most 5"),
        ])
    func refused(_ text: String, _ named: String) {
        #expect {
            try SnoozeChoices(parsing: text)
        } throws: { error in
            "\(error)".contains(named)
        }
    }

    @Test("Labels read hours, minutes and seconds, zero units left out")
    func labels() {
        #expect(SnoozeChoices.label(seconds: 300) == "Snooze 5 min")
        #expect(SnoozeChoices.label(seconds: 5_400) == "Snooze 1 h 30 min")
        #expect(SnoozeChoices.label(seconds: 3_600) == "Snooze 1 h")
        #expect(SnoozeChoices.label(seconds: 90) == "Snooze 1 min 30 s")
        #expect(SnoozeChoices.label(seconds: 45) == "Snooze 45 s")
        #expect(SnoozeChoices.label(seconds: 3_601) == "Snooze 1 h 1 s")
    }

    @Test("An action key is an answer only when it is exactly one of the choices; a response's raw value names it")
    func answers() {
        let choices = Self.fiveTenFifteen
        #expect(choices.seconds(forActionKey: "snooze-600") == 600)
        #expect(choices.seconds(forActionKey: "snooze-12345") == nil)
        #expect(choices.seconds(forActionKey: "snooze-0600") == nil)
        #expect(choices.seconds(forActionKey: "snooze-600 ") == nil)
        #expect(choices.seconds(forActionKey: "snooze") == nil)
        #expect(SnoozeChoices.none.seconds(forActionKey: "snooze-300") == nil)

        #expect(NotificationResponse.snooze(seconds: 600).rawValue == "snooze-600")
        #expect(NotificationResponse(rawValue: "snooze-600") == .snooze(seconds: 600))
        #expect(NotificationResponse(rawValue: "snooze-0600") == nil)
        #expect(NotificationResponse(rawValue: "snooze--5") == nil)
        for response: NotificationResponse in [.stop, .secondary, .default, .dismissed, .suppressed, .pause, .resume, .cancel] {
            #expect(NotificationResponse(rawValue: response.rawValue) == response)
        }
        #expect(NotificationResponse.secondary.rawValue == "secondary")
    }
}
