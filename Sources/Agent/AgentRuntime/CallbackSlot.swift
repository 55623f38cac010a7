import Synchronization

/// A handler that one thread sets and others call: a `Mutex` around a closure, minus its trap.
///
/// A `Mutex` whose value is itself a closure (`Mutex<(@Sendable () -> Void)?>`) must not be read
/// with `withLock { $0 }`: the value passes `inout` between the generic `Mutex` and specialized
/// code, and each pass wraps the stored closure in two more reabstraction thunks on the way back.
/// After a million reads a call goes a million thunks deep; the agent read its commit handler that
/// way once per commit, spent a tenth of its time walking the chain under load, and would in time
/// have overflowed its stack. Here the closure sits in a struct, which crosses the `Mutex` as it is.
package final class CallbackSlot<Argument>: Sendable {
    private struct Handler {
        let call: @Sendable (Argument) -> Void
    }

    private let handler = Mutex<Handler?>(nil)

    /// An empty slot: `call` does nothing until `set` gives it a handler.
    package init() {}

    /// Makes `body` the handler, in place of any earlier one.
    package func set(_ body: @escaping @Sendable (Argument) -> Void) {
        handler.withLock { $0 = Handler(call: body) }
    }

    /// Calls the handler with `argument`, if there is one, outside the lock.
    package func call(_ argument: Argument) {
        handler.withLock { $0 }?.call(argument)
    }
}
