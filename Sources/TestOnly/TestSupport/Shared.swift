import Synchronization

/// A value that a test and the handlers, threads or tasks it starts all read and change, behind
/// a lock (`Mutex`).
package final class Shared<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>

    /// Shares `value`.
    package init(_ value: Value) { storage = Mutex(value) }

    /// The value now; setting it replaces it whole.
    package var value: Value {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }

    /// Changes the value in place, under the lock.
    package func change(_ body: (inout Value) -> Void) { storage.withLock { body(&$0) } }
}
