@testable import AlarmCore
import CommandLineText
import AlarmModel
import AlarmRecords
import Foundation
import Synchronization
import Testing
import TestRequirements
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

// The durable store, on real SQLite files in a fresh temporary folder per test: round trips of every
// kind of record, history, file modes, recovery from a damaged database, atomicity of a transaction
// interrupted by an error or by a real process crash, and restarts of the engine over the store.

// MARK: - Helpers

/// A fresh folder for one test, removed at the end; the store goes in its `store` subfolder (which
/// the store creates itself).
private func withStoreFolder<T>(_ body: (URL) async throws -> T) async throws -> T {
    let base = FileManager.default.temporaryDirectory
        .appendingPathComponent("reveille-store-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: base) }
    return try await body(base.appendingPathComponent("store"))
}

/// The permission bits of a file, as `stat` reports them.
private func permissions(_ path: String) -> mode_t? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    return info.st_mode & 0o777
}

private func fileExists(_ path: String) -> Bool {
    FileManager.default.fileExists(atPath: path)
}

private struct InjectedFault: Error, Equatable {
    let statement: Int
}

/// Records of every shape.
enum Sample {
    static let t0 = Date(timeIntervalSince1970: 1_780_000_000)  // 2026-05-28T20:26:40Z

    static let idA = UUID(uuidString: "0A0A0A0A-0000-4000-8000-000000000001")!
    static let idB = UUID(uuidString: "0B0B0B0B-0000-4000-8000-000000000002")!
    static let idC = UUID(uuidString: "0C0C0C0C-0000-4000-8000-000000000003")!

    /// Every button and view an alarm can have, with snooze.
    static let fullPresentation = AlarmPresentation(
        alert: .init(
            title: "Wake up ☀️ — «quoted» \"text\"", stopButton: .stopButton, secondaryButton: .snoozeButton,
            secondaryButtonBehavior: .countdown),
        countdown: .init(title: "Counting down", pauseButton: .pauseButton),
        paused: .init(title: "Paused", resumeButton: .resumeButton))

    /// An alert whose secondary button opens the app.
    static let customButtonPresentation = AlarmPresentation(
        alert: .init(
            title: "Stand-up", stopButton: AlarmButton(text: "Done", textColor: .orange, systemImageName: "checkmark"),
            secondaryButton: .openAppButton, secondaryButtonBehavior: .custom))

    /// Metadata with every byte value, as an app's JSON never is: the store must not care.
    static let allBytes = Data((0...255).map { UInt8($0) } + [0, 0, 0xFF])

    static func definition(
        _ schedule: Alarm.Schedule?, preAlert: TimeInterval? = nil, postAlert: TimeInterval? = nil,
        presentation: AlarmPresentation = fullPresentation, tint: Color = .accentColor, metadata: Data? = nil,
        sound: AlertConfiguration.AlertSound = .default
    ) -> AlarmDefinition {
        let countdown =
            (preAlert == nil && postAlert == nil)
            ? nil : Alarm.CountdownDuration(preAlert: preAlert, postAlert: postAlert)
        return AlarmDefinition(
            schedule: schedule, countdownDuration: countdown, presentation: presentation, tintColor: tint,
            metadata: metadata, sound: sound)
    }

    static let fixed = definition(
        .fixed(t0.addingTimeInterval(86_400.5)), preAlert: 300, postAlert: 540,
        tint: Color(red: 0.1, green: 0.2, blue: 0.3, opacity: 0.4), metadata: allBytes,
        sound: .named("/home/someone/Sounds/réveil 1.oga"))
    static let relativeOnce = definition(
        .relative(.init(time: .init(hour: 7, minute: 30), repeats: .never)), postAlert: 300,
        presentation: customButtonPresentation, tint: .pink, metadata: Data(#"{"note":"once"}"#.utf8),
        sound: .named("alarm-clock-elapsed"))
    static let relativeWeekly = definition(
        .relative(.init(time: .init(hour: 23, minute: 59), repeats: .weekly([.friday, .monday, .wednesday]))),
        preAlert: 120, postAlert: 600, metadata: Data())
    static let timer = definition(nil, preAlert: 90, postAlert: 60, tint: .green, sound: .named("bell"))

    static func deadline(_ seconds: TimeInterval, boot: String = "6f1c2a7e-boot") -> ElapsedDeadline {
        ElapsedDeadline(
            bootID: boot, uptime: .seconds(12_345) + .nanoseconds(678_901_234) + .seconds(seconds),
            wallEstimate: t0.addingTimeInterval(seconds))
    }

    /// One record of each phase and schedule kind, named for the test's output.
    fileprivate static let roundTripCases: [RoundTripCase] = [
        .init(
            "scheduled, fixed",
            AlarmRecord(
                id: UUID(), owner: "user", definition: fixed,
                phase: .scheduled(alertAt: t0.addingTimeInterval(86_400.5)), anchor: t0)),
        .init(
            "scheduled, relative never",
            AlarmRecord(
                id: UUID(), owner: "org.example.Clock", definition: relativeOnce,
                phase: .scheduled(alertAt: t0.addingTimeInterval(3_600)), anchor: t0.addingTimeInterval(-0.25))),
        .init(
            "scheduled, relative weekly",
            AlarmRecord(
                id: UUID(), owner: "org.example.Clock", definition: relativeWeekly,
                phase: .scheduled(alertAt: t0.addingTimeInterval(7 * 86_400)), anchor: t0.addingTimeInterval(-86_400))),
        .init(
            "countdown, preAlert timer",
            AlarmRecord(
                id: UUID(), owner: "user", definition: timer,
                phase: .countdown(.init(kind: .preAlert, endsAt: deadline(90), duration: 90)), anchor: t0)),
        .init(
            "countdown, preAlert of a fixed alarm",
            AlarmRecord(
                id: UUID(), owner: "user", definition: fixed,
                phase: .countdown(.init(kind: .preAlert, endsAt: deadline(299.75), duration: 300)), anchor: t0)),
        .init(
            "countdown, postAlert snooze of a weekly alarm",
            AlarmRecord(
                id: UUID(), owner: "org.example.Clock", definition: relativeWeekly,
                phase: .countdown(.init(kind: .postAlert, endsAt: deadline(600), duration: 600)),
                anchor: t0.addingTimeInterval(-2))),
        .init(
            "paused, preAlert",
            AlarmRecord(
                id: UUID(), owner: "user", definition: timer,
                phase: .paused(.init(kind: .preAlert, remaining: 33.125, duration: 90)), anchor: t0)),
        .init(
            "paused, postAlert",
            AlarmRecord(
                id: UUID(), owner: "user", definition: relativeOnce,
                phase: .paused(.init(kind: .postAlert, remaining: 299.5, duration: 300)), anchor: t0)),
        .init(
            "alerting, with a ring time-out",
            AlarmRecord(
                id: UUID(), owner: "user", definition: fixed,
                phase: .alerting(
                    .init(
                        scheduledAt: t0.addingTimeInterval(-2), startedAt: t0.addingTimeInterval(-1.5),
                        timesOutAt: deadline(598.5))),
                anchor: t0.addingTimeInterval(-2))),
        .init(
            "alerting, without a ring time-out",
            AlarmRecord(
                id: UUID(), owner: "org.example.Clock", definition: relativeWeekly,
                phase: .alerting(.init(scheduledAt: t0, startedAt: t0.addingTimeInterval(0.5), timesOutAt: nil)),
                anchor: t0)),
    ]

    static func entry(
        _ id: UUID, scheduledAt: Date, alertedAt: Date? = nil, endedAt: Date? = nil, outcome: AlertOutcome? = nil,
        count: Int = 1, title: String = "Alarm"
    ) -> AlertHistoryEntry {
        AlertHistoryEntry(
            alarmID: id, title: title, scheduledAt: scheduledAt, alertedAt: alertedAt, endedAt: endedAt,
            outcome: outcome, count: count)
    }

    /// The state the crash tests start from: A scheduled and ringing history, B counting down.
    static let crashBefore: (alarms: [AlarmRecord], history: [AlertHistoryEntry]) = (
        [
            AlarmRecord(id: idA, owner: "user", definition: fixed, phase: .scheduled(alertAt: t0.addingTimeInterval(60)), anchor: t0),
            AlarmRecord(
                id: idB, owner: "user", definition: timer,
                phase: .countdown(.init(kind: .preAlert, endsAt: deadline(90), duration: 90)), anchor: t0),
        ],
        [entry(idA, scheduledAt: t0, alertedAt: t0)]
    )

    /// A change of several statements over `crashBefore`: delete B, store A alerting and C, end A's
    /// ringing entry, record a missed one. Six statements in all.
    static var crashChanges: AlarmStore.Changes {
        var changes = AlarmStore.Changes()
        changes.add([
            .delete(idB),
            .store(
                AlarmRecord(
                    id: idA, owner: "user", definition: fixed,
                    phase: .alerting(.init(scheduledAt: t0.addingTimeInterval(60), startedAt: t0.addingTimeInterval(60), timesOutAt: nil)),
                    anchor: t0.addingTimeInterval(60))),
            .store(
                AlarmRecord(
                    id: idC, owner: "user", definition: relativeOnce, phase: .scheduled(alertAt: t0.addingTimeInterval(7_200)),
                    anchor: t0)),
            .recordHistory(.alertEnded(alarmID: idA, outcome: .stopped, at: t0.addingTimeInterval(30))),
            .recordHistory(.alertStarted(entry(idA, scheduledAt: t0.addingTimeInterval(60), alertedAt: t0.addingTimeInterval(60)))),
            .recordHistory(.missed(entry(idC, scheduledAt: t0.addingTimeInterval(-86_400), outcome: .missed, count: 4))),
        ])
        return changes
    }

    static let crashStatementCount = 6

    /// Writes `crashBefore` into a store in `directory`.
    static func writeCrashBefore(in directory: URL) throws {
        let store = try AlarmStore(directory: directory)
        var changes = AlarmStore.Changes()
        changes.upserts = crashBefore.alarms
        changes.history = crashBefore.history.map { .alertStarted($0) }
        try store.apply(changes)
    }
}

private struct RoundTripCase: Sendable, CustomTestStringConvertible {
    let name: String
    let record: AlarmRecord
    init(_ name: String, _ record: AlarmRecord) {
        self.name = name
        self.record = record
    }
    var testDescription: String { name }
}

extension AlarmRecord.Phase {
    /// The wall-clock instants of the phase, in a fixed order.
    fileprivate var instants: [Date] {
        switch self {
        case .scheduled(let alertAt): [alertAt]
        case .countdown(let countdown): [countdown.endsAt.wallEstimate]
        case .paused: []
        case .alerting(let ringing): [ringing.scheduledAt, ringing.startedAt] + (ringing.timesOutAt.map { [$0.wallEstimate] } ?? [])
        }
    }
}

extension AlarmStore {
    /// The alarms, ordered by id, for comparing.
    fileprivate func sortedAlarms() throws -> [AlarmRecord] {
        try loadAlarms().sorted { $0.id.uuidString < $1.id.uuidString }
    }
}

// MARK: - Round trips

@Suite("Store: round trips", .onItsOwnThread, .timeLimit(.minutes(5)))
struct StoreRoundTripTests {
    @Test("A record of every phase and schedule kind is loaded back equal", arguments: Sample.roundTripCases)
    fileprivate func roundTrip(_ sample: RoundTripCase) async throws {
        try await withStoreFolder { folder in
            do {
                let store = try AlarmStore(directory: folder)
                var changes = AlarmStore.Changes()
                changes.add([.store(sample.record)])
                try store.apply(changes)
                #expect(try store.loadAlarms() == [sample.record], "read back by the same store")
            }
            let reopened = try AlarmStore(directory: folder)
            #expect(reopened.recoveredFrom == nil)
            let loaded = try reopened.loadAlarms()
            #expect(loaded == [sample.record], "read back after reopening")
            // Field by field too, so a failure says which part did not survive.
            if let back = loaded.first {
                #expect(back.definition == sample.record.definition)
                #expect(back.phase == sample.record.phase)
                #expect(back.anchor == sample.record.anchor)
                #expect(back.owner == sample.record.owner)
                #expect(back.definition.metadata == sample.record.definition.metadata)
                #expect(back.definition.sound == sample.record.definition.sound)
                #expect(back.definition.presentation == sample.record.definition.presentation)
            }
        }
    }

    @Test("All records stored together in one transaction come back together")
    func allTogether() async throws {
        try await withStoreFolder { folder in
            let records = Sample.roundTripCases.map(\.record)
            do {
                let store = try AlarmStore(directory: folder)
                var changes = AlarmStore.Changes()
                changes.add(records.map { .store($0) })
                try store.apply(changes)
            }
            let loaded = try AlarmStore(directory: folder).loadAlarms()
            #expect(loaded.count == records.count)
            #expect(Set(loaded) == Set(records))
        }
    }

    @Test("Storing an id again replaces its row and leaves no column of the old state behind")
    func replaceClearsOldColumns() async throws {
        try await withStoreFolder { folder in
            let store = try AlarmStore(directory: folder)
            let id = UUID()
            var record = AlarmRecord(
                id: id, owner: "user", definition: Sample.fixed,
                phase: .countdown(.init(kind: .preAlert, endsAt: Sample.deadline(300), duration: 300)), anchor: Sample.t0)
            // countdown (deadline columns set) -> alerting without a time-out (deadline must be gone)
            for phase: AlarmRecord.Phase in [
                .countdown(.init(kind: .preAlert, endsAt: Sample.deadline(300), duration: 300)),
                .alerting(.init(scheduledAt: Sample.t0, startedAt: Sample.t0, timesOutAt: nil)),
                .paused(.init(kind: .postAlert, remaining: 12, duration: 540)),
                .alerting(.init(scheduledAt: Sample.t0, startedAt: Sample.t0.addingTimeInterval(1), timesOutAt: nil)),
                .scheduled(alertAt: Sample.t0.addingTimeInterval(86_400.5)),
            ] {
                record.phase = phase
                var changes = AlarmStore.Changes()
                changes.add([.store(record)])
                try store.apply(changes)
                #expect(try AlarmStore(directory: folder).loadAlarms() == [record])
            }
        }
    }

    @Test("Instants with any fraction of a second read back exactly")
    func arbitraryInstants() async throws {
        try await withStoreFolder { folder in
            // What `Date()` gives: a fraction that is not exact in binary, as a real clock reads it.
            let now = Date(timeIntervalSinceReferenceDate: 801_234_567.123_456_7)
            let soon = now.addingTimeInterval(0.1)
            let record = AlarmRecord(
                id: UUID(), owner: "user", definition: Sample.definition(.fixed(soon), postAlert: 60),
                phase: .alerting(
                    .init(
                        scheduledAt: soon, startedAt: now,
                        timesOutAt: ElapsedDeadline(bootID: "b", uptime: .nanoseconds(123_456_789_012), wallEstimate: soon))),
                anchor: now)
            let entry = Sample.entry(record.id, scheduledAt: soon, alertedAt: now)
            do {
                let store = try AlarmStore(directory: folder)
                var changes = AlarmStore.Changes()
                changes.add([.store(record), .recordHistory(.alertStarted(entry))])
                try store.apply(changes)
            }
            let reopened = try AlarmStore(directory: folder)
            let back = try #require(try reopened.loadAlarms().first)
            let history = try reopened.history()
            // Inside the JSON of the definition, instants are exact.
            #expect(back.definition == record.definition)
            #expect(back.phase.instants.count == 3)
            // Instants are stored as `Date`'s own seconds since 2001, so they read back exactly.
            #expect(back == record)
            #expect(history == [entry])
        }
    }

    @Test("Changes: the last action on an id wins, and only durable actions are kept")
    func changesCoalesce() {
        let a = Sample.roundTripCases[0].record
        let b = Sample.roundTripCases[1].record
        var changes = AlarmStore.Changes()
        #expect(changes.isEmpty)
        changes.add([
            .store(a), .presentAlert(a), .delete(a.id),  // stored then removed: removed
            .delete(b.id), .store(b), .arm(b.id, .wall(Sample.t0)), .endCountdown(b.id),  // removed then stored: stored
            .recordHistory(.alertEnded(alarmID: a.id, outcome: .cancelled, at: Sample.t0)),
        ])
        #expect(changes.upserts == [b])
        #expect(changes.deletions == [a.id])
        #expect(changes.history == [.alertEnded(alarmID: a.id, outcome: .cancelled, at: Sample.t0)])
        #expect(!changes.isEmpty)
    }
}

// MARK: - Deletions and history

@Suite("Store: deletions and history", .onItsOwnThread, .timeLimit(.minutes(5)))
struct StoreHistoryTests {
    @Test("A deletion removes only its alarm, and survives reopening")
    func deletion() async throws {
        try await withStoreFolder { folder in
            let records = Array(Sample.roundTripCases.prefix(3).map(\.record))
            do {
                let store = try AlarmStore(directory: folder)
                var changes = AlarmStore.Changes()
                changes.add(records.map { .store($0) })
                try store.apply(changes)
                var deletion = AlarmStore.Changes()
                deletion.add([.delete(records[1].id), .delete(UUID())])  // an unknown id is no error
                try store.apply(deletion)
                #expect(Set(try store.loadAlarms()) == [records[0], records[2]])
            }
            #expect(Set(try AlarmStore(directory: folder).loadAlarms()) == [records[0], records[2]])
        }
    }

    @Test("alertStarted then alertEnded closes the open entry only; history outlives its alarm")
    func startedThenEnded() async throws {
        try await withStoreFolder { folder in
            let t0 = Sample.t0
            let a = Sample.idA, b = Sample.idB
            let earlierA = Sample.entry(
                a, scheduledAt: t0.addingTimeInterval(-86_400), alertedAt: t0.addingTimeInterval(-86_400),
                endedAt: t0.addingTimeInterval(-86_340), outcome: .snoozed, title: "Morning")
            let openA = Sample.entry(a, scheduledAt: t0, alertedAt: t0.addingTimeInterval(0.5), title: "Morning")
            let openB = Sample.entry(b, scheduledAt: t0.addingTimeInterval(-10), alertedAt: t0.addingTimeInterval(-10), title: "Tea")
            do {
                let store = try AlarmStore(directory: folder)
                var changes = AlarmStore.Changes()
                changes.add([
                    .recordHistory(.alertStarted(earlierA)),
                    .recordHistory(.alertStarted(openB)),
                    .recordHistory(.alertStarted(openA)),
                ])
                try store.apply(changes)
                #expect(try store.history() == [openA, openB, earlierA])

                var end = AlarmStore.Changes()
                end.add([
                    .delete(a),
                    .recordHistory(.alertEnded(alarmID: a, outcome: .stopped, at: t0.addingTimeInterval(42))),
                ])
                try store.apply(end)
            }
            var closedA = openA
            closedA.endedAt = t0.addingTimeInterval(42)
            closedA.outcome = .stopped
            let history = try AlarmStore(directory: folder).history()
            #expect(history == [closedA, openB, earlierA])
            #expect(history.first?.lateness == 0.5)
        }
    }

    @Test("Each outcome is stored as given", arguments: AlertOutcome.allCases)
    func everyOutcome(_ outcome: AlertOutcome) async throws {
        try await withStoreFolder { folder in
            let store = try AlarmStore(directory: folder)
            let started = Sample.entry(Sample.idA, scheduledAt: Sample.t0, alertedAt: Sample.t0)
            var changes = AlarmStore.Changes()
            changes.add([
                .recordHistory(.alertStarted(started)),
                .recordHistory(.alertEnded(alarmID: Sample.idA, outcome: outcome, at: Sample.t0.addingTimeInterval(600))),
            ])
            try store.apply(changes)
            var ended = started
            ended.outcome = outcome
            ended.endedAt = Sample.t0.addingTimeInterval(600)
            #expect(try AlarmStore(directory: folder).history() == [ended])
        }
    }

    @Test("A missed entry keeps its count; history is newest first and honours its limit")
    func missedAndOrder() async throws {
        try await withStoreFolder { folder in
            let t0 = Sample.t0
            let missed = Sample.entry(Sample.idC, scheduledAt: t0.addingTimeInterval(-5 * 86_400), outcome: .missed, count: 5)
            let day1 = Sample.entry(
                Sample.idA, scheduledAt: t0.addingTimeInterval(-86_400), alertedAt: t0.addingTimeInterval(-86_399),
                endedAt: t0.addingTimeInterval(-86_000), outcome: .timedOut)
            let day2 = Sample.entry(Sample.idA, scheduledAt: t0, alertedAt: t0, endedAt: t0.addingTimeInterval(5), outcome: .stopped)
            let sameInstant = Sample.entry(Sample.idB, scheduledAt: t0, alertedAt: t0.addingTimeInterval(0.25))
            do {
                let store = try AlarmStore(directory: folder)
                // Written out of order, one transaction each.
                for change: AlarmStateMachine.HistoryChange in [
                    .alertStarted(day2), .missed(missed), .alertStarted(day1), .alertStarted(sameInstant),
                ] {
                    var changes = AlarmStore.Changes()
                    changes.add([.recordHistory(change)])
                    try store.apply(changes)
                }
            }
            let store = try AlarmStore(directory: folder)
            // Newest first; of two entries due at the same instant, the later written first.
            #expect(try store.history() == [sameInstant, day2, day1, missed])
            #expect(try store.history(limit: 2) == [sameInstant, day2])
            #expect(try store.history(limit: 0) == [])
            let back = try #require(try store.history().last)
            #expect(back.count == 5)
            #expect(back.outcome == .missed)
            #expect(back.alertedAt == nil)
            #expect(back.endedAt == nil)
            #expect(back.lateness == nil)
        }
    }
}

// MARK: - Files

@Suite("Store: files and recovery", .onItsOwnThread, .timeLimit(.minutes(5)))
struct StoreFileTests {
    @Test("The folder is 0700 and the database, its -wal and -shm are 0600")
    func modes() async throws {
        try await withStoreFolder { folder in
            let store = try AlarmStore(directory: folder)
            #expect(store.databaseURL == folder.appendingPathComponent("alarms.sqlite"))
            var changes = AlarmStore.Changes()
            changes.add([.store(Sample.roundTripCases[0].record)])
            try store.apply(changes)
            let db = store.databaseURL.path
            #expect(permissions(folder.path) == 0o700)
            #expect(permissions(db) == 0o600)
            #expect(fileExists(db + "-wal"), "WAL mode keeps a -wal file while open")
            for suffix in ["-wal", "-shm"] where fileExists(db + suffix) {
                #expect(permissions(db + suffix) == 0o600, "\(suffix)")
            }
        }
    }

    @Test("A folder and a database made with looser modes are made private when opened")
    func tightensLooseModes() async throws {
        try await withStoreFolder { folder in
            let db = folder.appendingPathComponent(AlarmStore.fileName).path
            do {
                let store = try AlarmStore(directory: folder)
                var changes = AlarmStore.Changes()
                changes.add([.store(Sample.roundTripCases[0].record)])
                try store.apply(changes)
            }
            #expect(!fileExists(db + "-wal"), "closing the last connection removes the WAL")
            #expect(chmod(folder.path, 0o755) == 0)
            #expect(chmod(db, 0o644) == 0)

            let store = try AlarmStore(directory: folder)
            var changes = AlarmStore.Changes()
            changes.add([.store(Sample.roundTripCases[1].record)])
            try store.apply(changes)
            #expect(permissions(folder.path) == 0o700)
            #expect(permissions(db) == 0o600)
            #expect(fileExists(db + "-wal"))
            for suffix in ["-wal", "-shm"] where fileExists(db + suffix) {
                #expect(permissions(db + suffix) == 0o600, "\(suffix) is created private even when the database was not")
            }
        }
    }

    @Test("A -wal and -shm left by a crash with loose modes are made private, and their changes kept")
    func leftoverWALModes() async throws {
        try await withStoreFolder { folder in
            let db = folder.appendingPathComponent(AlarmStore.fileName).path
            let path = folder.path
            await #expect(processExitsWith: .exitCode(44)) { [path = path as String] in
                let store = try AlarmStore(directory: URL(fileURLWithPath: path))
                var changes = AlarmStore.Changes()
                changes.upserts = Sample.crashBefore.alarms
                try store.apply(changes)
                _exit(44)
            }
            try #require(fileExists(db + "-wal"), "a crash leaves the WAL behind")
            for suffix in ["", "-wal", "-shm"] where fileExists(db + suffix) {
                #expect(chmod(db + suffix, 0o644) == 0)
            }
            let store = try AlarmStore(directory: folder)
            #expect(store.recoveredFrom == nil)
            #expect(try store.sortedAlarms() == Sample.crashBefore.alarms)
            for suffix in ["", "-wal", "-shm"] where fileExists(db + suffix) {
                #expect(permissions(db + suffix) == 0o600, "alarms.sqlite\(suffix)")
            }
        }
    }

    @Test("A file that is not SQLite is moved aside and a new, working store is made")
    func notADatabase() async throws {
        try await withStoreFolder { folder in
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let db = folder.appendingPathComponent(AlarmStore.fileName)
            var generator = SystemRandomNumberGenerator()
            let garbage = Data((0..<8_192).map { _ in UInt8.random(in: 0...255, using: &generator) })
            try garbage.write(to: db)

            let store = try AlarmStore(directory: folder)
            try Self.checkRecovered(store, folder: folder, original: garbage)
        }
    }

    @Test("A database that fails its integrity check is moved aside and a new, working store is made")
    func failsIntegrityCheck() async throws {
        try await withStoreFolder { folder in
            let db = folder.appendingPathComponent(AlarmStore.fileName)
            let marker = "CORRUPTION-MARKER"
            do {
                let store = try AlarmStore(directory: folder)
                var changes = AlarmStore.Changes()
                for index in 0..<300 {
                    changes.add([
                        .store(
                            AlarmRecord(
                                id: UUID(), owner: "\(marker)-\(index)", definition: Sample.timer,
                                phase: .paused(.init(kind: .preAlert, remaining: 10, duration: 90)), anchor: Sample.t0))
                    ])
                }
                try store.apply(changes)
            }
            try #require(!fileExists(db.path + "-wal"), "the WAL was checkpointed into the database on close")
            // Damage every page holding alarm rows (or the owner index), leaving page 1 (the schema) intact:
            // the file still opens as SQLite, but its b-trees are broken.
            var bytes = try Data(contentsOf: db)
            try #require(bytes.starts(with: Data("SQLite format 3\0".utf8)))
            let pageSize = Int(bytes[16]) << 8 | Int(bytes[17])
            let needle = Data(marker.utf8)
            var damaged = 0
            for start in stride(from: pageSize, to: bytes.count, by: pageSize) {
                let page = start..<min(start + pageSize, bytes.count)
                guard bytes[page].range(of: needle) != nil else { continue }
                bytes.replaceSubrange(page, with: Data(repeating: 0xA5, count: page.count))
                damaged += 1
            }
            try #require(damaged > 1)
            try bytes.write(to: db)

            let store = try AlarmStore(directory: folder)
            try Self.checkRecovered(store, folder: folder, original: bytes)
        }
    }

    @Test("Two recoveries in the same second keep both damaged copies")
    func recoveryNameClash() async throws {
        try await withStoreFolder { folder in
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            // Names the store would pick now and in the next few seconds are taken already.
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
            let start = Date()
            var taken: [String: Data] = [:]
            for second in 0..<5 {
                let path = folder.appendingPathComponent(
                    "\(AlarmStore.fileName).corrupt-\(formatter.string(from: start.addingTimeInterval(Double(second))))"
                ).path
                let content = Data("earlier damaged copy \(second)".utf8)
                try content.write(to: URL(fileURLWithPath: path))
                taken[path] = content
            }
            let garbage = Data("this is not a database, it is a text file that is long enough to have a header".utf8)
            try garbage.write(to: folder.appendingPathComponent(AlarmStore.fileName))

            let store = try AlarmStore(directory: folder)
            let aside = try #require(store.recoveredFrom)
            #expect(taken[aside.path] == nil, "a new name, not one already taken")
            #expect(try Data(contentsOf: aside) == garbage)
            for (path, content) in taken {
                #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == content, "\(path) is kept as it was")
            }
            #expect(try store.loadAlarms() == [])
        }
    }

    @Test("A database from before v5 opens with its alarms, and its alarm table keeps only its id's index")
    func ownerIndexDropped() async throws {
        // The names of the alarm table's indexes, read on a connection of its own.
        func indexes(_ url: URL) throws -> Set<String> {
            try SQLiteDatabase(path: url.path).withConnection { db in
                Set(try db.rows("PRAGMA index_list(alarm)").compactMap { $0["name"].text })
            }
        }
        try await withStoreFolder { folder in
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let url = folder.appendingPathComponent(AlarmStore.fileName)
            let records = Array(Sample.roundTripCases.prefix(3).map(\.record))
            // As the agent left it before: the migrations up to v4, alarms stored (the connection
            // closed before the store opens the file).
            do {
                let earlier = try SQLiteDatabase(path: url.path)
                try earlier.withConnection { db in try StoreSchema.migrator.migrate(db, upTo: "v4: phones rung for an alert") }
                try earlier.write { db in
                    for record in records { try AlarmRow.upsert(record, in: db) }
                }
            }
            #expect(try indexes(url) == ["alarm_owner", "sqlite_autoindex_alarm_1"])

            let store = try AlarmStore(directory: folder)
            #expect(store.recoveredFrom == nil)
            #expect(Set(try store.loadAlarms()) == Set(records))
            #expect(try indexes(url) == ["sqlite_autoindex_alarm_1"])
            var changes = AlarmStore.Changes()
            changes.add([.delete(records[0].id)])
            try store.apply(changes)
            #expect(Set(try AlarmStore(directory: folder).loadAlarms()) == Set(records.dropFirst()))
        }
    }

    @Test("A healthy database is opened as it is")
    func healthyNotRecovered() async throws {
        try await withStoreFolder { folder in
            _ = try AlarmStore(directory: folder)
            let store = try AlarmStore(directory: folder)
            #expect(store.recoveredFrom == nil)
            let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            #expect(!names.contains { $0.contains("corrupt") })
        }
    }

    @Test(
        "An immutable folder (even a name with ?, # and %): the database is read as it is, with or without its log, and every change is refused"
    )
    func readOnlyFolder() async throws {
        let chattr = try #require(Executables.find("chattr"), "chattr (e2fsprogs) makes a folder read-only even for root")
        try await withStoreFolder { base in
            let folder = base.deletingLastPathComponent().appendingPathComponent("odd ?#% 100% name")
            let records = Sample.roundTripCases.map(\.record)
            for closing in [true, false] {
                if closing {
                    // Closed: SQLite folds the log back and removes it.
                    let store = try AlarmStore(directory: folder)
                    var changes = AlarmStore.Changes()
                    changes.upserts = [records[0]]
                    try store.apply(changes)
                    store.close()
                } else {
                    // A process that ends without closing (as by a crash) leaves the log.
                    // The child makes its own samples, with new ids: it is given this one's.
                    await #expect(processExitsWith: .exitCode(44)) {
                        [path = folder.path as String, id = records[1].id.uuidString as String] in
                        let store = try AlarmStore(directory: URL(fileURLWithPath: path))
                        var record = Sample.roundTripCases[1].record
                        record.id = UUID(uuidString: id)!
                        var changes = AlarmStore.Changes()
                        changes.upserts = [record]
                        try store.apply(changes)
                        _exit(44)
                    }
                }
                let expected = closing ? [records[0]] : [records[0], records[1]]
                #expect(fileExists(folder.path + "/alarms.sqlite-wal") == !closing)
                _ = try Executables.run(chattr, ["-R", "+i", folder.path])
                defer { _ = try? Executables.run(chattr, ["-R", "-i", folder.path]) }
                let before = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()

                let store = try AlarmStore(directory: folder)
                let reason = try #require(store.readOnlyReason)
                #expect(reason == "\(folder.path): Operation not permitted")
                #expect(Set(try store.loadAlarms()) == Set(expected), "closed: \(closing)")
                var change = AlarmStore.Changes()
                change.deletions = [records[0].id]
                #expect(throws: StoreError.readOnly(reason)) { try store.apply(change) }
                #expect(throws: StoreError.readOnly(reason)) {
                    try store.setAuthorization(.authorized, for: "org.example.App", at: Sample.t0)
                }
                #expect(Set(try store.loadAlarms()) == Set(expected))
                store.close()
                #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == before)
                _ = try Executables.run(chattr, ["-R", "-i", folder.path])
                #expect(try AlarmStore(directory: folder).readOnlyReason == nil, "writable again")
            }
            try? FileManager.default.removeItem(at: folder)
        }
    }

    /// The damaged file was moved aside with its bytes, and the new store is empty and works.
    static func checkRecovered(_ store: AlarmStore, folder: URL, original: Data) throws {
        let aside = try #require(store.recoveredFrom, "the store reports the moved-aside file")
        #expect(aside.deletingLastPathComponent().standardizedFileURL.path == folder.standardizedFileURL.path)
        let name = aside.lastPathComponent
        let prefix = "alarms.sqlite.corrupt-"
        #expect(name.hasPrefix(prefix))
        let stamp = String(name.dropFirst(prefix.count))
        #expect(stamp.wholeMatch(of: /\d{8}T\d{6}Z(-\d+)?/) != nil, "timestamp \(stamp)")
        #expect(try Data(contentsOf: aside) == original, "moved, not changed")

        #expect(try store.loadAlarms() == [])
        #expect(try store.history() == [])
        #expect(permissions(store.databaseURL.path) == 0o600)
        let record = Sample.roundTripCases[3].record
        let entry = Sample.entry(record.id, scheduledAt: Sample.t0, outcome: .missed, count: 2)
        var changes = AlarmStore.Changes()
        changes.add([.store(record), .recordHistory(.missed(entry))])
        try store.apply(changes)
        #expect(try store.loadAlarms() == [record])
        let reopened = try AlarmStore(directory: folder)
        #expect(reopened.recoveredFrom == nil, "the new database is healthy")
        #expect(try reopened.loadAlarms() == [record])
        #expect(try reopened.history() == [entry])
        #expect(try Data(contentsOf: aside) == original, "the damaged copy is left alone")
    }
}

// MARK: - Crashes

@Suite("Store: interrupted transactions", .onItsOwnThread, .timeLimit(.minutes(5)))
struct StoreCrashTests {
    @Test("Without a fault, the whole change lands (the control for the tests below)")
    func control() async throws {
        try await withStoreFolder { folder in
            try Sample.writeCrashBefore(in: folder)
            let counted = Mutex(0)
            let store = try AlarmStore(directory: folder, faultInjector: { written in counted.withLock { $0 = written } })
            try store.apply(Sample.crashChanges)
            #expect(counted.withLock { $0 } == Sample.crashStatementCount)
            let after = try AlarmStore(directory: folder)
            #expect(try after.sortedAlarms().map(\.id) == [Sample.idA, Sample.idC])
            #expect(try after.loadAlarms().first { $0.id == Sample.idA }?.state == .alerting)
            #expect(try after.history().count == 3)
        }
    }

    @Test(
        "An error after any statement but the last rolls the whole transaction back",
        arguments: 1..<Sample.crashStatementCount)
    func errorMidTransaction(after statement: Int) async throws {
        try await withStoreFolder { folder in
            try Sample.writeCrashBefore(in: folder)
            let oldAlarms = try AlarmStore(directory: folder).sortedAlarms()
            let oldHistory = try AlarmStore(directory: folder).history()
            #expect(oldAlarms.count == 2)

            let store = try AlarmStore(
                directory: folder,
                faultInjector: { written in
                    if written == statement { throw InjectedFault(statement: written) }
                })
            #expect(throws: InjectedFault(statement: statement)) { try store.apply(Sample.crashChanges) }
            #expect(try store.sortedAlarms() == oldAlarms, "the same connection sees the old state")

            let reopened = try AlarmStore(directory: folder)
            #expect(try reopened.sortedAlarms() == oldAlarms)
            #expect(try reopened.history() == oldHistory)
            #expect(try reopened.loadAlarms().contains { $0.id == Sample.idB }, "the first statement (delete B) did not land")
        }
    }

    @Test(
        "A process killed after statement 1 or 2 leaves the database exactly as before",
        arguments: [1, 2])
    func processCrashMidTransaction(after statement: Int) async throws {
        try await withStoreFolder { folder in
            try Sample.writeCrashBefore(in: folder)
            let oldAlarms = try AlarmStore(directory: folder).sortedAlarms()
            let oldHistory = try AlarmStore(directory: folder).history()
            let path = folder.path

            // A distinct exit code: an error thrown by the body would exit with a plain failure.
            await #expect(processExitsWith: .exitCode(42)) { [path = path as String, statement = statement as Int] in
                let store = try AlarmStore(
                    directory: URL(fileURLWithPath: path),
                    faultInjector: { written in
                        if written == statement { _exit(42) }
                    })
                try store.apply(Sample.crashChanges)
            }

            let reopened = try AlarmStore(directory: folder)
            #expect(reopened.recoveredFrom == nil)
            #expect(try reopened.sortedAlarms() == oldAlarms)
            #expect(try reopened.history() == oldHistory)
            #expect(try reopened.loadAlarms().contains { $0.id == Sample.idB }, "the first statement (delete B) did not land")
        }
    }

    @Test("A process killed right after apply returns keeps the whole change")
    func processCrashAfterCommit() async throws {
        try await withStoreFolder { folder in
            try Sample.writeCrashBefore(in: folder)
            let path = folder.path
            await #expect(processExitsWith: .exitCode(43)) { [path = path as String] in
                let store = try AlarmStore(directory: URL(fileURLWithPath: path))
                try store.apply(Sample.crashChanges)
                _exit(43)
            }
            let reopened = try AlarmStore(directory: folder)
            #expect(try reopened.sortedAlarms().map(\.id) == [Sample.idA, Sample.idC])
            #expect(try reopened.history().count == 3)
            #expect(try reopened.history().contains { $0.alarmID == Sample.idC && $0.count == 4 })
        }
    }
}

// MARK: - Deferred checkpoints

@Suite("Store: deferred checkpoints", .onItsOwnThread, .timeLimit(.minutes(5)))
struct StoreCheckpointTests {
    /// A scheduled alarm numbered `number`, a minute apart from the next.
    static func record(_ number: Int) -> AlarmRecord {
        AlarmRecord(
            id: UUID(), owner: "user", definition: Sample.fixed,
            phase: .scheduled(alertAt: Sample.t0.addingTimeInterval(Double(60 * number))), anchor: Sample.t0)
    }

    /// Stores `count` alarms, one transaction each, as separate calls would.
    static func storeOneByOne(_ count: Int, in store: AlarmStore) throws -> [AlarmRecord] {
        try (0..<count).map { number in
            let record = record(number)
            var changes = AlarmStore.Changes()
            changes.add([.store(record)])
            try store.apply(changes)
            return record
        }
    }

    static func logSize(_ folder: URL) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(AlarmStore.fileName).path + "-wal")[.size] as? Int)
            ?? -1
    }

    @Test("Commits leave the log to the owner past SQLite's 1,000 pages; checkpoint() folds it in and empties it")
    func ownerCheckpoints() async throws {
        try await withStoreFolder { folder in
            let store = try AlarmStore(directory: folder, sharing: .exclusive, checkpoints: .deferred)
            let records = try Self.storeOneByOne(500, in: store)
            // SQLite's own checkpoint would have run at 1,000 pages and started the log over.
            let pending = try #require(store.pendingLogFrames)
            #expect(pending >= 1_000, "the log holds \(pending) pages")
            #expect(Self.logSize(folder) >= 1_000 * 4_096)

            try store.checkpoint()
            #expect(store.pendingLogFrames == 0)
            #expect(Self.logSize(folder) == 0, "TRUNCATE empties the -wal file")
            #expect(Set(try store.loadAlarms()) == Set(records))
            store.close()
            #expect(Set(try AlarmStore(directory: folder).loadAlarms()) == Set(records))
        }
    }

    @Test("A commit that takes the log past the limit checkpoints by itself, so the log stays bounded")
    func forcedCheckpoint() async throws {
        try await withStoreFolder { folder in
            let store = try AlarmStore(directory: folder, sharing: .exclusive, checkpoints: .deferred)
            var longest = 0
            var foldedByCommit = false
            for batch in 0..<2_000 {
                var changes = AlarmStore.Changes()
                changes.add((0..<20).map { .store(Self.record(batch * 20 + $0)) })
                try store.apply(changes)
                let pending = try #require(store.pendingLogFrames)
                if pending < longest { foldedByCommit = true; break }
                longest = pending
            }
            #expect(foldedByCommit, "the log grew to \(longest) pages without a checkpoint")
            #expect(longest < AlarmStore.forcedCheckpointFrames, "no commit left more than the limit")
            #expect(longest > AlarmStore.forcedCheckpointFrames - 200, "no commit checkpointed before the limit: \(longest)")
        }
    }

    @Test("The log-growth observer runs as deep in the stack after thousands of commits as after the first")
    func observerStaysShallow() async throws {
        try await withStoreFolder { folder in
            let store = try AlarmStore(directory: folder, sharing: .exclusive, checkpoints: .deferred)
            let depths = Mutex<[Int]>([])
            store.onLogGrowth { depths.withLock { $0.append(stackAddress()) } }
            _ = try Self.storeOneByOne(3_000, in: store)
            let seen = depths.withLock { $0 }
            #expect(seen.count >= 2_990, "one commit in the run checkpoints and tells nobody")
            // Each commit used to wrap the observer in two more thunks: 3,000 commits, about 96 KB deeper.
            let deepening = seen.first! - seen.min()!
            #expect(deepening < 1_024, "the observer ran \(deepening) bytes deeper after 3,000 commits")
        }
    }

    @Test("A process killed with its log not folded in keeps every stored change")
    func killedBeforeCheckpoint() async throws {
        try await withStoreFolder { folder in
            let path = folder.path
            await #expect(processExitsWith: .exitCode(44)) { [path = path as String] in
                let store = try AlarmStore(directory: URL(fileURLWithPath: path), sharing: .exclusive, checkpoints: .deferred)
                let records = try StoreCheckpointTests.storeOneByOne(300, in: store)
                try Data(records.map(\.id.uuidString).joined(separator: "\n").utf8)
                    .write(to: URL(fileURLWithPath: path + "/ids"))
                _exit(44)
            }
            let ids = try String(contentsOf: folder.appendingPathComponent("ids"), encoding: .utf8)
                .split(separator: "\n").map { UUID(uuidString: String($0))! }
            #expect(Self.logSize(folder) > 0, "the kill left the log unfolded")
            let reopened = try AlarmStore(directory: folder, sharing: .exclusive, checkpoints: .deferred)
            #expect(Set(try reopened.loadAlarms().map(\.id)) == Set(ids))
        }
    }
}

// MARK: - Engine restarts

@Suite("Store: engine restarts", .onItsOwnThread, .timeLimit(.minutes(5)))
struct StoreEngineRestartTests {
    static let start = Date(timeIntervalSince1970: 1_780_000_000)

    static func timer(_ seconds: TimeInterval) -> AlarmDefinition {
        Sample.definition(nil, preAlert: seconds, postAlert: 300, sound: .named("bell"))
    }

    /// Puts an alarm in `state` through the engine's public API, shuts the engine down, and returns
    /// the record it held.
    static func prepare(_ state: Alarm.State, id: UUID, folder: URL, clock: VirtualClock) async throws -> AlarmRecord {
        let store = try AlarmStore(directory: folder)
        let engine = AlarmEngine(store: store, clock: clock, policy: AlarmPolicy())
        try await engine.start()
        switch state {
        case .scheduled:
            try await engine.schedule(
                id: id, definition: Sample.definition(.fixed(start.addingTimeInterval(3_600)), postAlert: 300), caller: .user)
        case .countdown:
            try await engine.schedule(id: id, definition: timer(600), caller: .user)
            try await clock.advance(by: 100)
        case .paused:
            try await engine.schedule(id: id, definition: timer(600), caller: .user)
            try await clock.advance(by: 100)
            try await engine.pause(id: id, caller: .user)
        case .alerting:
            try await engine.schedule(id: id, definition: timer(60), caller: .user)
            try await clock.advance(by: 61)
            try #require(try await engine.alarm(id: id, caller: .user).state == .alerting)
        }
        let record = try await engine.alarm(id: id, caller: .user)
        #expect(record.state == state)
        await engine.shutdown()
        return record
    }

    @Test("An engine restarted over the store finds the alarm as it was", arguments: Alarm.State.allCases)
    func restart(in state: Alarm.State) async throws {
        try await withStoreFolder { folder in
            let clock = VirtualClock(now: Self.start)
            let id = UUID()
            let before = try await Self.prepare(state, id: id, folder: folder, clock: clock)

            let presenter = RecordingPresenter()
            let store = try AlarmStore(directory: folder)
            #expect(try store.loadAlarms() == [before], "the store holds what the engine held")
            let engine = AlarmEngine(store: store, clock: clock, policy: AlarmPolicy(), presenter: presenter)
            try await engine.start()
            let after = try await engine.alarm(id: id, caller: .user)
            #expect(after == before)
            #expect(await engine.count == 1)
            let reading = clock.read()
            let description = AlarmDescription(after, at: reading)
            #expect(description == AlarmDescription(before, at: reading))
            #expect(description.state == state.rawValue)

            switch state {
            case .scheduled:
                #expect(description.fireDate == "2026-05-28T21:26:40Z")
                #expect(after.fireDate(from: reading) == Self.start.addingTimeInterval(3_600))
                #expect(presenter.effects == [])
            case .countdown:
                #expect(description.remaining == 500)
                #expect(after.fireDate(from: reading) == Self.start.addingTimeInterval(600))
                #expect(presenter.effects == [.countdown(after)])
            case .paused:
                #expect(description.remaining == 500)
                #expect(description.fireDate == nil)
                #expect(presenter.effects == [.countdown(after)])
            case .alerting:
                #expect(presenter.effects == [.alert(after)], "the alert is presented again")
                guard case .alerting(let ringing) = after.phase else { Issue.record("not alerting"); break }
                #expect(ringing.scheduledAt == Self.start.addingTimeInterval(60))
                #expect(ringing.timesOutAt != nil)
            }

            // The restored engine goes on from there: its deadlines were armed again.
            switch state {
            case .scheduled:
                try await clock.advance(by: 3_600)
                #expect(try await engine.alarm(id: id, caller: .user).state == .alerting)
            case .countdown:
                try await clock.advance(by: 500)
                #expect(try await engine.alarm(id: id, caller: .user).state == .alerting)
            case .paused:
                try await engine.resume(id: id, caller: .user)
                let resumed = try await engine.alarm(id: id, caller: .user)
                #expect(resumed.remaining(from: clock.read()) == 500)
            case .alerting:
                try await clock.advance(by: 600)
                #expect(await engine.count == 0, "the unanswered alert timed out")
                #expect(presenter.effects.contains(.endAlert(id, .timedOut)))
                let history = try await engine.history()
                #expect(history.first?.outcome == .timedOut)
                #expect(history.first?.alarmID == id)
            }
            await engine.shutdown()
            #expect(
                Set(try AlarmStore(directory: folder).loadAlarms()) == Set(await engine.alarms(visibleTo: .user)),
                "what the engine holds is what is stored")
        }
    }

    @Test("A countdown across a reboot keeps its wall-clock end")
    func countdownAcrossReboot() async throws {
        try await withStoreFolder { folder in
            let clock = VirtualClock(now: Self.start, bootID: "boot-1")
            let id = UUID()
            let before = try await Self.prepare(.countdown, id: id, folder: folder, clock: clock)
            let end = Self.start.addingTimeInterval(600)
            #expect(before.fireDate(from: clock.read()) == end)

            clock.reboot(after: 50, bootID: "boot-2")
            let presenter = RecordingPresenter()
            let engine = AlarmEngine(store: try AlarmStore(directory: folder), clock: clock, presenter: presenter)
            try await engine.start()
            let after = try await engine.alarm(id: id, caller: .user)
            let reading = clock.read()
            #expect(after.state == .countdown)
            #expect(after.fireDate(from: reading) == end)
            #expect(after.remaining(from: reading) == 450)
            #expect(AlarmDescription(after, at: reading).fireDate == "2026-05-28T20:36:40Z")
            guard case .countdown(let countdown) = after.phase else { Issue.record("not counting down"); return }
            #expect(countdown.endsAt.bootID == "boot-2", "moved onto this boot's clock")
            #expect(countdown.endsAt.wallEstimate == end)
            #expect(countdown.duration == 600)
            #expect(presenter.effects == [.countdown(after)])
            #expect(try AlarmStore(directory: folder).loadAlarms() == [after], "the rebased deadline is stored")

            try await clock.advance(by: 449)
            #expect(try await engine.alarm(id: id, caller: .user).state == .countdown)
            try await clock.advance(by: 2)
            #expect(try await engine.alarm(id: id, caller: .user).state == .alerting)
            let ringing = try await engine.alarm(id: id, caller: .user)
            if case .alerting(let alert) = ringing.phase {
                #expect(alert.scheduledAt == end)
            } else {
                Issue.record("not alerting")
            }
            await engine.shutdown()
        }
    }
}
