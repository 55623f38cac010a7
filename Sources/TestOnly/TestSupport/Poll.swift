import Foundation

/// Bounded waiting for a condition in tests, by checking it every few milliseconds.
///
/// Only for test support: production code waits on events. Every wait has a limit and fails with
/// `SandboxError.timeout` naming what it waited for.
enum Poll {
    /// How long to sleep between checks.
    static let interval: Duration = .milliseconds(5)

    /// Checks `condition` every `interval` until it returns a value, without blocking a thread.
    static func until<T>(
        _ what: @autoclosure () -> String, timeout: Duration, every interval: Duration = Poll.interval,
        detail: () -> String = { "" }, _ condition: () async throws -> T?
    ) async throws -> T {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let value = try await condition() { return value }
            if ContinuousClock.now >= deadline { throw timeoutError(what(), timeout, detail()) }
            try await Task.sleep(for: interval)
        }
    }

    /// Checks `condition` until it returns a value, blocking the calling thread.
    static func blocking<T>(
        _ what: @autoclosure () -> String, timeout: Duration, detail: () -> String = { "" },
        _ condition: () throws -> T?
    ) throws -> T {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let value = try condition() { return value }
            if ContinuousClock.now >= deadline { throw timeoutError(what(), timeout, detail()) }
            Thread.sleep(forTimeInterval: 0.005)
        }
    }

    private static func timeoutError(_ what: String, _ timeout: Duration, _ detail: String) -> SandboxError {
        .timeout("waited \(timeout) for \(what)" + (detail.isEmpty ? "" : "\n\(detail)"))
    }
}

/// Waits, up to `timeout`, until `condition` returns a value, checking it every few milliseconds
/// (for tests watching something outside the process, such as a capture file).
@discardableResult
package func waitUntil<T>(
    _ what: @autoclosure () -> String, timeout: Duration = .seconds(30), detail: () -> String = { "" },
    _ condition: () throws -> T?
) async throws -> T {
    try await Poll.until(what(), timeout: timeout, detail: detail, condition)
}

/// Waits, up to `timeout`, until the asynchronous `condition` returns a value, checking it every
/// `interval` (for a condition that is itself a round trip, such as running `reveille list`).
@discardableResult
package func waitUntil<T>(
    _ what: @autoclosure () -> String, timeout: Duration = .seconds(30), every interval: Duration,
    detail: () -> String = { "" }, _ condition: () async throws -> T?
) async throws -> T {
    try await Poll.until(what(), timeout: timeout, every: interval, detail: detail, condition)
}
