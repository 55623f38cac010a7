@testable import AlarmAgent
import AlarmModel
import AlarmPresentation
import AlarmRecords
import DBus
import Foundation
import Logging
import Synchronization
import Testing
import TestRequirements
import TestSupport

/// The agent's presenter hands an alert to the desktop first, and tells what acts once the alert
/// is shown (the screen waker, the idle inhibitor, the media player, the phone backup) only after
/// the desktop said so: never a start after the alert's end, never an end without a start.
@Suite("Agent: what acts on an alert, at the instant and once it is shown", .onItsOwnThread, .timeLimit(.minutes(1)))
struct AgentPresenterTests {
    static let t0 = Fixtures.instant("2026-06-01T06:00:00Z")

    /// A desktop presenter that shows an alert when the test says so.
    final class ShowingDesktop: AlertShowing {
        let effects = Mutex<[PresentationEffect]>([])
        private let handler = Mutex<(@Sendable (UUID) -> Void)?>(nil)
        func perform(_ effect: PresentationEffect) { effects.withLock { $0.append(effect) } }
        func onAlertShown(_ handler: @escaping @Sendable (UUID) -> Void) { self.handler.withLock { $0 = handler } }
        /// Says that the alert `id` is shown, as the desktop presenter does once its `Notify` was answered.
        func show(_ id: UUID) { handler.withLock { $0 }?(id) }
    }

    /// An observer that writes down what it was told, in order.
    final class RecordingObserver: RingingObserver {
        enum Event: Equatable { case started(UUID), ended(UUID) }
        let events = Mutex<[Event]>([])
        func alertStarted(_ id: UUID) { events.withLock { $0.append(.started(id)) } }
        func alertEnded(_ id: UUID) { events.withLock { $0.append(.ended(id)) } }
        /// What it was told of the alert `id`.
        func events(of id: UUID) -> [Event] {
            events.withLock { $0.filter { $0 == .started(id) || $0 == .ended(id) } }
        }
    }

    /// A ringing alarm.
    static func ringing() -> AlarmRecord {
        AlarmRecord(
            id: UUID(), owner: "user", definition: Fixtures.definition(.fixed(t0)),
            phase: .alerting(.init(scheduledAt: t0, startedAt: t0, timesOutAt: nil)), anchor: t0)
    }

    /// Runs `body` with a presenter over `desktop` (none: `nil`), an observer told at the instant
    /// and one told once the alert is shown; its intents go to a private bus.
    static func withPresenter(
        desktop: ShowingDesktop?, _ body: (AgentPresenter, RecordingObserver, RecordingObserver) async throws -> Void
    ) async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let connection = try DBusConnection.connect(address: bus.address)
        defer { connection.close() }
        let atInstant = RecordingObserver()
        let onceShown = RecordingObserver()
        let presenter = AgentPresenter(
            desktop: desktop, intents: IntentRunner(connection: connection, logger: Logger(label: "test")),
            observers: [atInstant], onceShown: [onceShown])
        try await body(presenter, atInstant, onceShown)
    }

    @Test("The desktop hears the alert first; the instant's observers at once; the others once the desktop showed it; both hear its end")
    func order() async throws {
        let desktop = ShowingDesktop()
        try await Self.withPresenter(desktop: desktop) { presenter, atInstant, onceShown in
            let record = Self.ringing()
            presenter.perform(.alert(record))
            #expect(desktop.effects.withLock { $0 } == [.alert(record)])
            #expect(atInstant.events(of: record.id) == [.started(record.id)])
            #expect(onceShown.events(of: record.id) == [], "told before the desktop showed the alert")
            desktop.show(record.id)
            #expect(onceShown.events(of: record.id) == [.started(record.id)])
            desktop.show(record.id)
            #expect(onceShown.events(of: record.id) == [.started(record.id)], "told twice")
            presenter.perform(.endAlert(record.id, .stopped))
            #expect(atInstant.events(of: record.id) == [.started(record.id), .ended(record.id)])
            #expect(onceShown.events(of: record.id) == [.started(record.id), .ended(record.id)])
        }
    }

    @Test("An alert stopped, or snoozed into a countdown, before it was shown: the later observers hear nothing of it, even shown late")
    func endedBeforeShown() async throws {
        let desktop = ShowingDesktop()
        try await Self.withPresenter(desktop: desktop) { presenter, atInstant, onceShown in
            let stopped = Self.ringing()
            presenter.perform(.alert(stopped))
            presenter.perform(.endAlert(stopped.id, .stopped))
            desktop.show(stopped.id)
            #expect(onceShown.events(of: stopped.id) == [])
            #expect(atInstant.events(of: stopped.id) == [.started(stopped.id), .ended(stopped.id)])

            let snoozed = Self.ringing()
            presenter.perform(.alert(snoozed))
            var countdown = snoozed
            countdown.phase = .paused(.init(kind: .postAlert, remaining: 540, duration: 540))
            presenter.perform(.countdown(countdown))
            desktop.show(snoozed.id)
            #expect(onceShown.events(of: snoozed.id) == [])

            // It rings again after the snooze, and is shown this time.
            presenter.perform(.alert(snoozed))
            desktop.show(snoozed.id)
            presenter.perform(.endAlert(snoozed.id, .stopped))
            #expect(onceShown.events(of: snoozed.id) == [.started(snoozed.id), .ended(snoozed.id)])
        }
    }

    @Test("Without a desktop presenter, every observer hears the alert at once")
    func withoutDesktop() async throws {
        try await Self.withPresenter(desktop: nil) { presenter, atInstant, onceShown in
            let record = Self.ringing()
            presenter.perform(.alert(record))
            #expect(atInstant.events(of: record.id) == [.started(record.id)])
            #expect(onceShown.events(of: record.id) == [.started(record.id)])
            presenter.perform(.endAlert(record.id, .timedOut))
            #expect(onceShown.events(of: record.id) == [.started(record.id), .ended(record.id)])
        }
    }

    @Test("The desktop shows alerts on its own thread while the engine ends them: later observers hear start then end, or nothing")
    func showRacesEnd() async throws {
        let desktop = ShowingDesktop()
        try await Self.withPresenter(desktop: desktop) { presenter, _, onceShown in
            let records = (0..<2_000).map { _ in Self.ringing() }
            let handedOver = DispatchSemaphore(value: 0)
            let done = DispatchSemaphore(value: 0)
            // The desktop's thread shows each alert as soon as the engine's side has handed it
            // over, while that side goes straight on to end it.
            Thread.detachNewThread {
                for record in records {
                    handedOver.wait()
                    desktop.show(record.id)
                }
                done.signal()
            }
            var work = 0
            for record in records {
                presenter.perform(.alert(record))
                handedOver.signal()
                // A varying moment (0-100 µs or so) before the end, around when the other
                // thread wakes: some alerts are shown before they end, some after.
                for step in 0..<Int.random(in: 0..<200_000) { work &+= step }
                presenter.perform(.endAlert(record.id, .stopped))
            }
            withExtendedLifetime(work) {}
            done.wait()
            var told = 0
            for record in records {
                let events = onceShown.events(of: record.id)
                #expect(events == [] || events == [.started(record.id), .ended(record.id)], "\(events)")
                if !events.isEmpty { told += 1 }
            }
            // Both orders happened: the race was run, not one side of it.
            #expect(told > 0 && told < records.count, "told of \(told) of \(records.count)")
        }
    }
}
