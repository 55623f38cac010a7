import Synchronization

/// Something held on another process's side only while it is needed (while alarms ring): a bus
/// name, an idle inhibitor's cookie. Taking and giving it back are asynchronous calls that never
/// overlap: one task at a time brings what is held in line with what is needed, and looks again
/// after each call, so a need that comes and goes during a call is honoured once it returns.
///
/// A take that fails is not tried again until the need has ended and come back (the next alarm),
/// so a service that refuses is asked once per ringing, not in a loop.
package final class RingingHold<Held: Sendable>: Sendable {
    /// Takes it: what is held, or `nil` when it could not be taken.
    private let take: @Sendable () async -> Held?
    /// Gives back what was taken.
    private let release: @Sendable (Held) async -> Void
    private let state = Mutex(State())

    private struct State {
        /// Whether it is needed now.
        var needed = false
        /// What is held.
        var held: Held?
        /// Whether a take failed since the need began.
        var refused = false
        /// Whether `close()` ran: nothing is taken after it.
        var closed = false
        /// The task bringing what is held in line with the need, while one runs.
        var settling: Task<Void, Never>?
    }

    /// What the settling task does next.
    private enum Step {
        case take
        case release(Held)
        case done
    }

    /// A hold that takes with `take` and gives back with `release`.
    package init(take: @escaping @Sendable () async -> Held?, release: @escaping @Sendable (Held) async -> Void) {
        self.take = take
        self.release = release
    }

    /// Says whether it is needed; takes or gives it back (in the background) when that changes.
    package func setNeeded(_ needed: Bool) {
        state.withLock { state in
            state.needed = needed && !state.closed
            if !needed { state.refused = false }
            startSettling(&state)
        }
    }

    /// What is held now.
    package var held: Held? { state.withLock { $0.held } }

    /// Gives it back for good (the agent stops), and returns once it is given back.
    package func close() async {
        let settling = state.withLock { state -> Task<Void, Never>? in
            state.closed = true
            state.needed = false
            startSettling(&state)
            return state.settling
        }
        await settling?.value
    }

    /// Starts the settling task unless one runs.
    private func startSettling(_ state: inout State) {
        guard state.settling == nil, nextStep(state) != nil else { return }
        state.settling = Task { await settle() }
    }

    /// Takes or gives back until what is held matches the need.
    private func settle() async {
        while true {
            let step = state.withLock { state -> Step in
                guard let step = nextStep(state) else {
                    state.settling = nil
                    return .done
                }
                if case .release = step { state.held = nil }
                return step
            }
            switch step {
            case .take:
                let taken = await take()
                state.withLock { state in
                    state.held = taken
                    if taken == nil { state.refused = true }
                }
            case .release(let held):
                await release(held)
            case .done:
                return
            }
        }
    }

    /// What must be done for what is held to match the need, or `nil`.
    private func nextStep(_ state: State) -> Step? {
        if state.needed, state.held == nil, !state.refused { return .take }
        if !state.needed, let held = state.held { return .release(held) }
        return nil
    }
}
