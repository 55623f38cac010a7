import AlarmKit
import DBus
import Foundation
import StressTesting
import Synchronization
import Testing
import TestRequirements
import TestSupport

/// A reply sent from another thread while the connection loop holds libdbus's I/O path leaves at
/// once (issue 26's stranded message). The window, a few instructions wide in the real agent, is
/// widened to a millisecond by a preloaded library (`Scripts/io_path_window.c`), and a flood of
/// signals keeps the loop reading; each reply must still reach its caller. Without the loop's
/// writing out what libdbus holds before it polls, three replies went unanswered within the first
/// 17 to 91 calls in each run, against Debian 12's libdbus and Debian 13's.
@Suite(
    "Agent: replies sent while the loop reads", .onItsOwnThread, .serialized, .requires(Built.unavailable),
    .requires(IOPathWindow.unavailable), .timeLimit(.minutes(5)))
struct StrandedReplyTests {
    @Test("300 List calls under a flood of signals, the loop's I/O-path window widened: each is answered within 5 s")
    func repliesLeaveAtOnce() async throws {
        let library = try await offPool { try IOPathWindow.build() }
        let fixture = try await AgentFixture.start(agentEnvironment: ["LD_PRELOAD": library])
        defer { fixture.stop() }
        let agent = try #require(fixture.agent)
        let address = fixture.sandbox.busAddress

        // The flood: signals addressed to the agent alone, which its loop reads and drops; they
        // make no reply, so nothing the agent sends afterwards can flush a stranded one.
        let flooding = StopFlag()
        defer { flooding.set() }
        async let signalsSent = offPool {
            let connection = try DBusConnection.connect(address: address)
            defer { connection.close() }
            let signal = try DBusMessage.signal(
                path: "/test/flood", interface: "test.Flood", name: "Drop", arguments: [.string("x")],
                destination: AgentClient.busName)
            var sent = 0
            while !flooding.isSet {
                try connection.send(signal)
                sent += 1
                Thread.sleep(forTimeInterval: 0.005)
            }
            return sent
        }

        let client = try fixture.client()
        defer { client.connection.close() }
        var slowest = Duration.zero
        var unanswered: [String] = []
        var calls = 0
        for index in 0..<300 where unanswered.count < 3 {
            let started = ContinuousClock.now
            calls += 1
            do {
                _ = try await client.connection.call(
                    destination: AgentClient.busName, path: AgentClient.managerPath,
                    interface: AgentClient.managerInterface, method: "List", timeout: .seconds(5))
            } catch {
                unanswered.append("call \(index): \(error)")
            }
            slowest = max(slowest, ContinuousClock.now - started)
        }
        flooding.set()
        let sent = try await signalsSent
        print("StrandedReplyTests: \(calls) calls, \(unanswered.count) unanswered, slowest \(slowest); \(sent) signals flooded")
        #expect(unanswered.isEmpty, "replies never arrived: \(unanswered.prefix(5))")
        #expect(agent.isRunning, "\(CrashLog.summary(of: agent.standardError))")
    }
}

/// A flag one thread sets and another reads.
private final class StopFlag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .acquiring) }
    func set() { value.store(true, ordering: .releasing) }
}

/// The preloaded library that widens libdbus's I/O-path window on the agent's loop threads,
/// compiled from `Scripts/io_path_window.c` with the C compiler on `PATH` (the Swift toolchain's
/// `clang` is enough).
enum IOPathWindow {
    static let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Scripts/io_path_window.c").path

    /// The compiler, or `nil`.
    static var compiler: String? { ["clang", "cc", "gcc"].lazy.compactMap(Executables.find).first }

    /// Why the library cannot be made here, or `nil`.
    static var unavailable: String? {
        compiler == nil ? "no C compiler on PATH to build \(source) (the Swift toolchain's clang will do)" : nil
    }

    /// Compiles the library into a fresh temporary folder and returns its path.
    static func build() throws -> String {
        guard let compiler else { throw SandboxError.failed(unavailable ?? "") }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("io-path-window-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let library = folder.appendingPathComponent("io_path_window.so").path
        try Executables.run(compiler, ["-shared", "-fPIC", "-O2", "-o", library, source, "-ldl"])
        return library
    }
}
