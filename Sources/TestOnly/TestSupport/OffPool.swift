import Foundation

/// Runs blocking work on a thread of its own, so that it never holds one of the few threads of
/// Swift's cooperative pool (two on a two-core machine) while other tests' tasks wait for them.
@discardableResult
package func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread {
            continuation.resume(with: Result { try work() })
        }
    }
}
