// Swift Testing is there only when tests are built: `swift build -c release` builds this target empty.
#if canImport(Testing)
import AgentRuntime
import AlarmModel
import Testing

/// A test, or every test of a suite, whose synchronous parts run on a thread of its own instead of
/// the cooperative pool.
///
/// Swift Testing runs a process's tests in parallel on the cooperative pool, one thread per core
/// (two here). A test that starts a sandbox, waits for a process or scans `/proc` without
/// awaiting holds one of those threads meanwhile, and two such tests held every other test of the
/// process back: the suite's stalls of 35 s and more at its busy start, after which waits that
/// are ample on a quiet machine timed out. With this trait each test case runs with a task
/// executor preference for a thread made for it (`withTaskExecutorPreference`), so its blocking
/// calls block only that thread. Child tasks inherit the preference; unstructured tasks
/// (`Task { }`) run on the pool as before.
package struct OwnThread: TestTrait, SuiteTrait, TestScoping {
    /// Applies to every test of a suite.
    package var isRecursive: Bool { true }

    /// Runs each test case with a thread of its own as its preferred executor.
    package func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        // A suite's own scope only runs its tests; each test case gets its thread.
        guard testCase != nil else { return try await function() }
        let thread = ThreadTaskExecutor(name: "test-case")
        defer { thread.finish() }
        try await withTaskExecutorPreference(thread) { try await function() }
    }
}

extension Trait where Self == OwnThread {
    /// Each test runs its synchronous parts on a thread of its own (see `OwnThread`).
    package static var onItsOwnThread: Self { OwnThread() }
}
#endif
