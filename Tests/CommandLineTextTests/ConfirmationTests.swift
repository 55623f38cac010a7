import AlarmModel
import AlarmRecords
import CommandLineText
import Foundation
import Testing
import TestRequirements
import TestSupport

/// What the command says on a terminal once it has set or changed an alarm (``Confirmation``), in
/// the C locale's words and times; the German ones are read off a terminal in `FirstMinutesTests`.
@Suite("Text output: what was set", .onItsOwnThread)
struct ConfirmationTests {
    /// Friday 27 November 2026, 16:40 in Berlin (15:40 UTC).
    static let reading = ClockReading(
        now: Fixtures.instant("2026-11-27T15:40:00Z"), uptime: .seconds(1_000), bootID: "boot", timeZone: Fixtures.zone("Europe/Berlin"))
    static let id = UUID(uuidString: "9A749D0A-1111-4222-8333-444455556666")!

    static func record(_ schedule: Alarm.Schedule?, title: String = "Alarm", preAlert: TimeInterval? = nil) -> AlarmRecord {
        let definition = AlarmDefinition(
            schedule: schedule, countdownDuration: preAlert.map { .init(preAlert: $0, postAlert: nil) },
            presentation: AlarmPresentation(
                alert: .init(
                    title: LocalizedStringResource(title), stopButton: .stopButton, secondaryButton: .snoozeButton,
                    secondaryButtonBehavior: .countdown)))
        let phase: AlarmRecord.Phase
        if let schedule {
            phase = .scheduled(
                alertAt: AlertCalendar(timeZone: Fixtures.zone("Europe/Berlin")).nextAlert(of: schedule, after: reading.now)!)
        } else {
            phase = .countdown(.init(kind: .preAlert, endsAt: reading.elapsedDeadline(after: preAlert ?? 0), duration: preAlert ?? 0))
        }
        return AlarmRecord(id: id, owner: "user", definition: definition, phase: phase, anchor: reading.now)
    }

    @Test("add: when it rings, how far away, its id, and how to cancel it")
    func oneTime() {
        let text = Confirmation.scheduled(Self.record(Fixtures.clockTime(7, 30)), at: Self.reading, style: .standard, handle: "9a74")
        #expect(text == "Alarm set for Sat 07:30, in 14 h 50 min (9a749d0a). Cancel it with: reveille cancel 9a74")
        let soon = Confirmation.scheduled(
            Self.record(.fixed(Self.reading.now.addingTimeInterval(1_200)), title: "Oven"), at: Self.reading, style: .standard,
            handle: "9a749")
        #expect(soon == "“Oven” set for Fri 17:00, in 20 min (9a749d0a). Cancel it with: reveille cancel 9a749")
    }

    @Test("add with days: the clock time, the days, the next alert, and how to turn it off")
    func repeating() {
        let weekdays = Confirmation.scheduled(
            Self.record(Fixtures.clockTime(7, 0, on: [.monday, .tuesday, .wednesday, .thursday, .friday]), title: "Work"),
            at: Self.reading, style: .standard, handle: "9a74")
        #expect(weekdays == "“Work” set for 07:00 on weekdays; next Mon 07:00, in 2 d 14 h (9a749d0a). Turn it off with: reveille off 9a74")
        let some = Confirmation.scheduled(
            Self.record(Fixtures.clockTime(6, 45, on: [.wednesday, .monday])), at: Self.reading, style: .standard, handle: "9a74")
        #expect(some.hasPrefix("Alarm set for 06:45 on Mon, Wed; next Mon 06:45, in 2 d 14 h"), "\(some)")
        let daily = Confirmation.scheduled(
            Self.record(Fixtures.clockTime(6, 30, on: WeekdaysInput.mondayFirst)), at: Self.reading, style: .standard, handle: "9a74")
        #expect(daily.hasPrefix("Alarm set for 06:30 every day; next Sat 06:30, in 13 h 50 min"), "\(daily)")
    }

    @Test("timer: its length and when it rings")
    func timer() {
        let text = Confirmation.scheduled(Self.record(nil, title: "Tea", preAlert: 300), at: Self.reading, style: .standard, handle: "9a74")
        #expect(text == "“Tea” set for 5 min, rings at Fri 16:45 (9a749d0a). Cancel it with: reveille cancel 9a74")
    }

    @Test("off, on, skip, snooze and edit say what the alarm does now")
    func controls() {
        var work = Self.record(Fixtures.clockTime(7, 0, on: [.monday, .friday]), title: "Work")
        #expect(Confirmation.turnedOn(work, at: Self.reading, style: .standard) == "“Work” is on: next Mon 07:00, in 2 d 14 h.")
        #expect(
            Confirmation.edited(work, at: Self.reading, style: .standard, handle: "9a74")
                == "“Work” changed: 07:00 on Mon, Fri; next Mon 07:00, in 2 d 14 h (9a749d0a).")
        work.skippedAlert = Fixtures.instant("2026-11-30T06:00:00Z")
        work.phase = .scheduled(alertAt: Fixtures.instant("2026-12-04T06:00:00Z"))
        #expect(
            Confirmation.skipped(work, at: Self.reading, style: .standard, handle: "9a74")
                == "“Work” skips Mon 07:00; next 2026-12-04 07:00, in 6 d 14 h. Undo with: reveille unskip 9a74")
        work.definition.isEnabled = false
        #expect(Confirmation.turnedOff(work, handle: "9a74") == "“Work” is off; it keeps its settings. Turn it on with: reveille on 9a74")
        #expect(
            Confirmation.edited(work, at: Self.reading, style: .standard, handle: "9a74")
                == "“Work” changed: 07:00 on Mon, Fri; it is off (9a749d0a).")
        var nap = Self.record(Fixtures.clockTime(7, 0))
        nap.phase = .countdown(.init(kind: .postAlert, endsAt: Self.reading.elapsedDeadline(after: 540), duration: 540))
        #expect(Confirmation.snoozed(nap, at: Self.reading, style: .standard) == "Alarm snoozed: rings again at Fri 16:49, in 9 min.")
    }

    @Test("the handle is the shortest start of the id, at least 4 characters, that no other id has")
    func handle() {
        let others = [UUID(uuidString: "9A741111-0000-4000-8000-000000000000")!, UUID(uuidString: "12345678-0000-4000-8000-000000000000")!]
        #expect(Confirmation.handle(for: Self.id, among: [Self.id]) == "9a74")
        #expect(Confirmation.handle(for: Self.id, among: [Self.id] + others) == "9a749")
    }
}
