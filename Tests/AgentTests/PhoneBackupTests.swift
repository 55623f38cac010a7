import AlarmAgent
import AlarmDesktop
import Foundation
import Synchronization
import Testing

/// The phone backup's timing: a one-shot wait per alert, cancelled when the alert ends.
@Suite("Phone backup")
struct PhoneBackupTests {
    /// A backup whose ring is counted and answered with one phone, and whose reports arrive on a stream.
    final class Fixture: Sendable {
        let counter = RingCounter()
        let reports: AsyncStream<(id: UUID, names: [String], at: ContinuousClock.Instant)>
        let backup: PhoneBackup

        init(after: Duration) {
            let (reports, continuation) = AsyncStream.makeStream(of: (id: UUID, names: [String], at: ContinuousClock.Instant).self)
            self.reports = reports
            self.continuation = continuation
            self.after = after
            backup = Self.makeBackup(after: after, counter: counter, continuation: continuation)
        }

        private let after: Duration
        private let continuation: AsyncStream<(id: UUID, names: [String], at: ContinuousClock.Instant)>.Continuation

        /// Another backup with the same duration, counting into the same counter and reporting on
        /// the same stream.
        func another() -> PhoneBackup {
            Self.makeBackup(after: after, counter: counter, continuation: continuation)
        }

        private static func makeBackup(
            after: Duration, counter: RingCounter,
            continuation: AsyncStream<(id: UUID, names: [String], at: ContinuousClock.Instant)>.Continuation
        ) -> PhoneBackup {
            let phone = Phone(service: .kdeConnect, id: "pixel", name: "Pixel 7", objectPath: "/modules/kdeconnect/devices/pixel")
            return PhoneBackup(
                after: after,
                ring: {
                    counter.add()
                    return PhoneRingReport(rang: [phone])
                },
                onRing: { id, names in continuation.yield((id, names, .now)) })
        }

        /// The next report, failing after `timeout`.
        func nextReport(timeout: Duration = .seconds(30)) async throws -> (id: UUID, names: [String], at: ContinuousClock.Instant) {
            try await PhoneBackupTests.first(of: reports, what: "a phone ring report", timeout: timeout)
        }
    }

    /// The next element of `stream`, failing after `timeout`.
    static func first<Element: Sendable>(
        of stream: AsyncStream<Element>, what: String, timeout: Duration = .seconds(30)
    ) async throws -> Element {
        try await withThrowingTaskGroup(of: Element?.self) { group in
            group.addTask {
                var iterator = stream.makeAsyncIterator()
                return await iterator.next()
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let element = first else {
                throw TimedOut(what: "\(what) within \(timeout)")
            }
            return element
        }
    }

    /// How many times the phones were rung.
    final class RingCounter: Sendable {
        private let value = Mutex(0)
        func add() { value.withLock { $0 += 1 } }
        var count: Int { value.withLock { $0 } }
    }

    struct TimedOut: Error, CustomStringConvertible {
        let what: String
        var description: String { "timed out waiting for \(what)" }
    }

    @Test(
        "An alert still ringing after the duration rings the phones once and reports their names; one that began after now (a clock set back since) waits the whole duration",
        arguments: [false, true])
    func ringsAfterDuration(beganAfterNow: Bool) async throws {
        let after = Duration.milliseconds(200)
        let fixture = Fixture(after: after)
        let id = UUID()
        let start = ContinuousClock.now
        if beganAfterNow {
            fixture.backup.alertStarted(id, startedAt: Date().addingTimeInterval(3_600))
        } else {
            fixture.backup.alertStarted(id)
        }
        #expect(fixture.backup.isWaiting(for: id))
        let report = try await fixture.nextReport()
        #expect(report.id == id)
        #expect(report.names == ["Pixel 7 (KDE Connect)"])
        #expect(report.at - start >= after)
        #expect(fixture.counter.count == 1)
        #expect(!fixture.backup.isWaiting(for: id))
        // Ending the alert afterwards changes nothing.
        fixture.backup.alertEnded(id)
        #expect(fixture.counter.count == 1)
    }

    @Test("An alert that ends before the duration never rings the phones")
    func endedAlertNeverRings() async throws {
        let after = Duration.milliseconds(200)
        let fixture = Fixture(after: after)
        let ended = UUID()
        let later = UUID()
        fixture.backup.alertStarted(ended)
        fixture.backup.alertEnded(ended)
        #expect(!fixture.backup.isWaiting(for: ended))
        // An alert started after the ended one: its ring comes after the ended one's would have.
        fixture.backup.alertStarted(later)
        let report = try await fixture.nextReport()
        #expect(report.id == later)
        #expect(fixture.counter.count == 1)
    }

    @Test("An alert that starts again (after a snooze) waits the whole duration again, and rings once")
    func restartedAlertWaitsAgain() async throws {
        let after = Duration.milliseconds(300)
        let fixture = Fixture(after: after)
        let id = UUID()
        fixture.backup.alertStarted(id)
        fixture.backup.alertEnded(id)
        let restarted = ContinuousClock.now
        fixture.backup.alertStarted(id)
        let report = try await fixture.nextReport()
        #expect(report.id == id)
        #expect(report.at - restarted >= after)
        #expect(fixture.counter.count == 1)
    }

    @Test("An alert that began before the agent started waits only what is left of the duration")
    func alertFromBeforeTheStartWaitsWhatIsLeft() async throws {
        let now = Date()
        let checked = Mutex<[UUID]>([])
        let (reports, continuation) = AsyncStream.makeStream(of: UUID.self)
        // An hour's wait, of which all but a fifth of a second passed before the start: were the
        // whole hour waited again, no report would come.
        let backup = PhoneBackup(
            after: .seconds(3_600), ring: { PhoneRingReport(rang: []) },
            alreadyRang: { id, _ in
                checked.withLock { $0.append(id) }
                return false
            },
            now: { now },
            onRing: { id, _ in continuation.yield(id) })
        let id = UUID()
        backup.alertStarted(id, startedAt: now.addingTimeInterval(-3_599.8))
        #expect(try await Self.first(of: reports, what: "the ring of the alert from before the start") == id)
        #expect(checked.withLock { $0 } == [id])
    }

    @Test("An alert whose phones rang before the agent started rings them no more; one whose did not, rings them at once")
    func alreadyRangBeforeTheStart() async throws {
        let now = Date()
        let counter = RingCounter()
        let rangBefore = UUID()
        let (checks, checked) = AsyncStream.makeStream(of: (id: UUID, startedAt: Date).self)
        let (reports, continuation) = AsyncStream.makeStream(of: UUID.self)
        let backup = PhoneBackup(
            after: .seconds(60),
            ring: {
                counter.add()
                return PhoneRingReport(rang: [])
            },
            alreadyRang: { id, startedAt in
                checked.yield((id, startedAt))
                return id == rangBefore
            },
            now: { now },
            onRing: { id, _ in continuation.yield(id) })
        let began = now.addingTimeInterval(-7_200)
        backup.alertStarted(rangBefore, startedAt: began)
        let check = try await Self.first(of: checks, what: "the history asked about the alert from before the start")
        #expect(check.id == rangBefore && check.startedAt == began)
        // Had the first alert's phones rung again, its report would come before this one's.
        let notYet = UUID()
        backup.alertStarted(notYet, startedAt: began)
        #expect(try await Self.first(of: reports, what: "the ring of the alert whose phones did not ring") == notYet)
        #expect(counter.count == 1)
    }

    @Test("Several alerts ringing at once each ring the phones once")
    func severalAlerts() async throws {
        let fixture = Fixture(after: .milliseconds(100))
        let ids = [UUID(), UUID(), UUID()]
        for id in ids { fixture.backup.alertStarted(id) }
        var reported: Set<UUID> = []
        for _ in ids { reported.insert(try await fixture.nextReport().id) }
        #expect(reported == Set(ids))
        #expect(fixture.counter.count == 3)
    }

    @Test("After stop, waiting alerts never ring and new ones arm nothing")
    func stopCancelsEverything() async throws {
        let fixture = Fixture(after: .milliseconds(100))
        let id = UUID()
        fixture.backup.alertStarted(id)
        fixture.backup.stop()
        let afterStop = UUID()
        fixture.backup.alertStarted(afterStop)
        #expect(!fixture.backup.isWaiting(for: id))
        #expect(!fixture.backup.isWaiting(for: afterStop))
        // A backup not stopped, armed after both: its ring comes after theirs would have.
        let witness = fixture.another()
        let later = UUID()
        witness.alertStarted(later)
        let report = try await fixture.nextReport()
        #expect(report.id == later)
        #expect(fixture.counter.count == 1)
    }
}
