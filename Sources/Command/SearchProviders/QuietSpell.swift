import DBus
import Synchronization

/// Ends `reveille-search` after a quiet spell: with no call for `length` and none being answered,
/// `waitForQuiet()` returns, the program gives its bus name back and exits. D-Bus activation starts
/// it again at the next query (about 20 ms, `reveille-bench search`), so between searches it holds
/// nothing, as the agent's idle rule asks of every program of the package.
final class QuietSpell: Sendable {
    /// How long without a call ends the program.
    let length: Duration
    private let state: Mutex<(lastCall: ContinuousClock.Instant, answering: Int)>

    /// A spell of `length`, counted from now.
    init(length: Duration) {
        self.length = length
        state = Mutex((ContinuousClock.now, 0))
    }

    /// The interface with each method counted: a call in progress holds the program, and its end
    /// starts the spell again.
    func counting(_ interface: DBusInterface) -> DBusInterface {
        var interface = interface
        interface.methods = interface.methods.map { method in
            var counted = method
            let handler = method.handler
            counted.handler = { [self] call in
                state.withLock { $0.answering += 1 }
                defer { state.withLock { $0 = (ContinuousClock.now, $0.answering - 1) } }
                return try await handler(call)
            }
            return counted
        }
        return interface
    }

    /// Returns once no call has come for `length` and none is being answered. It sleeps until the
    /// spell's end and looks once; a call meanwhile moves the end.
    func waitForQuiet() async {
        while true {
            let (lastCall, answering) = state.withLock { $0 }
            let end = lastCall + length
            if answering == 0 && ContinuousClock.now >= end { return }
            // While a call is answered, its end moves the spell: look again one spell later.
            try? await Task.sleep(until: answering == 0 ? end : ContinuousClock.now + length)
        }
    }
}
