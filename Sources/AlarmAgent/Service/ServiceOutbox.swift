import Dispatch

/// What the service sends about stored changes (their signals, the replies to `Schedule`, `List`
/// and `Watch`), built and sent on a thread of its own, in the order it was handed over.
///
/// The engine's thread stores each change and brings the alarm objects in step, and would
/// otherwise also encode every reply and signal and write them to the bus: under load it is the
/// one thread every `Schedule` waits for, and that work was a third of its time. Handed here, in
/// order, under the lock that orders changes with `List` and `Watch` (`AlarmService.exported`),
/// it leaves in the same order as before, built beside the next commit.
struct ServiceOutbox: Sendable {
    private let queue = DispatchQueue(label: "reveille.service-outbox", qos: .userInitiated)

    /// Runs `work` after everything handed over before it.
    func send(_ work: @escaping @Sendable () -> Void) {
        queue.async(execute: work)
    }

    /// Returns once everything handed over so far has been sent (before the connection closes).
    func drain() {
        queue.sync {}
    }
}
