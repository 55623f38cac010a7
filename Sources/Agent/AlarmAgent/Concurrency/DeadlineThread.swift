import AgentRuntime
import AlarmCore
import AlarmModel
import LinuxSystem
import FoundationEssentials
import Synchronization

/// A thread that hands out items when their deadlines on the boot clock come.
///
/// One `CLOCK_BOOTTIME` timerfd, armed absolute for the earliest deadline: a deadline counts
/// through suspend and does not move when the wall clock is set. Between deadlines the thread
/// blocks in `poll`, so waiting costs no wake-ups. The thread starts with the first item.
final class DeadlineThread<Item: Sendable>: Sendable {
    private struct State: ~Copyable {
        var deadlines = DeadlineQueue<UInt64, Duration>()
        var items: [UInt64: Item] = [:]
        var nextKey: UInt64 = 0
        var armed: Duration?
        var started = false
        var finished = false
    }

    private let name: String
    private let timer: TimerFD
    private let state = Mutex(State())
    private let deliver: @Sendable ([Item]) -> Void

    /// Makes the timer (`timerfd_create`); `deliver` gets the items that came due, in deadline
    /// order, on the thread named `name`.
    init(name: String, deliver: @escaping @Sendable ([Item]) -> Void) throws {
        self.name = name
        self.timer = try TimerFD(clock: .boottime)
        self.deliver = deliver
    }

    /// The boot clock's reading now (`clock_gettime(CLOCK_BOOTTIME)`).
    static var now: Duration {
        let (seconds, nanoseconds) = KernelClock.read(.boottime)
        return .seconds(seconds) + .nanoseconds(nanoseconds)
    }

    /// Holds `item` until the boot clock reads `deadline` (see `now`).
    func insert(_ item: Item, at deadline: Duration) {
        let startThread = state.withLock { state -> Bool in
            let key = state.nextKey
            state.nextKey += 1
            state.items[key] = item
            state.deadlines.set(key, deadline)
            if state.armed.map({ deadline < $0 }) ?? true {
                arm(at: deadline)
                state.armed = deadline
            }
            defer { state.started = true }
            return !state.started
        }
        if startThread { Threads.start(named: name) { [self] in run() } }
    }

    /// Ends the thread; items still held are never handed out.
    func finish() {
        state.withLock { state in
            state.finished = true
            arm(at: .zero)
        }
    }

    private func arm(at deadline: Duration) {
        let (seconds, attoseconds) = deadline.components
        // Arming fails only for a descriptor that is not a timer; this one always is.
        try? timer.descriptor.armTimer(atSeconds: seconds, nanoseconds: attoseconds / 1_000_000_000, cancelOnSet: false)
    }

    private func run() {
        while true {
            timer.waitUntilReadable()
            _ = timer.read()
            let now = Self.now
            let (due, finished) = state.withLock { state -> ([Item], Bool) in
                if state.finished { return ([], true) }
                var due: [Item] = []
                state.armed = nil
                while let (key, deadline) = state.deadlines.earliest() {
                    guard deadline <= now else {
                        arm(at: deadline)
                        state.armed = deadline
                        break
                    }
                    state.deadlines.set(key, nil)
                    if let item = state.items.removeValue(forKey: key) { due.append(item) }
                }
                return (due, false)
            }
            if finished { return }
            if !due.isEmpty { deliver(due) }
        }
    }
}
