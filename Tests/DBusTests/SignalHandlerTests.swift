import DBus
import Foundation
import Synchronization
import Testing
import TestSupport

/// `handleSignals(_:onEnd:_:)`: signals handed to a handler on the connection's own thread.
@Suite("signal handlers on the connection's thread", .onItsOwnThread, .timeLimit(.minutes(5)))
struct SignalHandlerTests {
    /// What a handler saw: each signal's number and the name of the thread it ran on.
    final class Seen: Sendable {
        private let state = Mutex<[(number: Int32, thread: String)]>([])
        func add(_ message: DBusMessage) {
            let number = message.arguments.first?.integerValue.map(Int32.init) ?? -1
            // The calling thread's name, as the kernel keeps it.
            let thread = ((try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "?")
                .trimmingCharacters(in: .whitespacesAndNewlines)
            state.withLock { $0.append((number, thread)) }
        }
        var numbers: [Int32] { state.withLock { $0.map(\.number) } }
        var threads: Set<String> { state.withLock { Set($0.map(\.thread)) } }
    }

    @Test(
        "matching signals reach the handler in order, on the loop thread; others do not; cancel stops it; the end of the connection is told once"
    )
    func handler() async throws {
        try await withBusPair { pair in
            let seen = Seen()
            let barriers = Counter()
            let ended = Counter()
            let handled = pair.client.handleSignals(MatchRule(interface: "test.Handled"), onEnd: { ended.increment() }) { seen.add($0) }
            let barrier = pair.client.handleSignals(MatchRule(interface: "test.Barrier")) { _ in barriers.increment() }
            defer { barrier.cancel() }
            // The bus reads the client's AddMatch calls before this call, so both matches are in place.
            _ = try await pair.client.nameOwner("org.freedesktop.DBus")

            for number in Int32(0)..<5 {
                try pair.service.emitSignal(path: "/s", interface: "test.Handled", name: "Tick", arguments: [.int32(number)])
                try pair.service.emitSignal(path: "/s", interface: "test.Other", name: "Tick", arguments: [.int32(100 + number)])
            }
            try pair.service.emitSignal(path: "/s", interface: "test.Barrier", name: "Mark", arguments: [])
            try await waitUntil("the first barrier") { barriers.count == 1 ? () : nil }
            #expect(seen.numbers == [0, 1, 2, 3, 4])
            #expect(seen.threads == ["dbus-loop"], "handled on \(seen.threads)")

            // Cancelled: a signal sent after reaches no handler (the barrier after it shows it was delivered).
            handled.cancel()
            handled.cancel()
            try pair.service.emitSignal(path: "/s", interface: "test.Handled", name: "Tick", arguments: [.int32(5)])
            try pair.service.emitSignal(path: "/s", interface: "test.Barrier", name: "Mark", arguments: [])
            try await waitUntil("the second barrier") { barriers.count == 2 ? () : nil }
            #expect(seen.numbers == [0, 1, 2, 3, 4])
            #expect(ended.count == 0, "a cancelled subscription is not ended by the connection")

            // A live subscription hears the end of its connection, once.
            let live = Counter()
            _ = pair.client.handleSignals(MatchRule(interface: "test.Live"), onEnd: { live.increment() }) { _ in }
            pair.client.close()
            try await waitUntil("the end to be told") { live.count == 1 ? () : nil }
            // A subscription asked for after the end is ended at once.
            let late = Counter()
            _ = pair.client.handleSignals(MatchRule(), onEnd: { late.increment() }) { _ in }
            #expect(late.count == 1)
            #expect(live.count == 1 && ended.count == 0)
        }
    }
}
