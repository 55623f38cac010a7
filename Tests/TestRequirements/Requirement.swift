// Swift Testing is there only when tests are built: `swift build -c release` builds this target empty.
#if canImport(Testing)
import Testing

/// A test, or every test of a suite, that needs something on this machine (a program, a package, a
/// build product): where it is missing the test fails, naming what is missing and what installs
/// it, instead of being skipped. `swift test` passes only when every test ran.
///
/// Use it where `.enabled(if:)` would skip: `@Suite("…", .requires(Built.unavailable))`, with an
/// expression that is nil when everything is there and otherwise says what is missing. It is
/// evaluated once per test, as the test starts.
package struct Requirement: TestTrait, SuiteTrait, TestScoping {
    /// What is missing, or nil.
    let missing: @Sendable () -> String?

    /// Applies to every test of a suite.
    package var isRecursive: Bool { true }

    /// Runs the test when nothing is missing; otherwise records a failure saying what is missing.
    package func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        // A suite's own scope only runs its tests; each test checks for itself.
        guard testCase != nil, let missing = missing() else { return try await function() }
        Issue.record(Comment(rawValue: "This test cannot run here: \(missing)"), sourceLocation: test.sourceLocation)
    }
}

extension Trait where Self == Requirement {
    /// The test needs what `missing` checks: nil when it is all there, else what is missing.
    package static func requires(_ missing: @autoclosure @escaping @Sendable () -> String?) -> Self {
        Requirement(missing: missing)
    }
}
#endif
