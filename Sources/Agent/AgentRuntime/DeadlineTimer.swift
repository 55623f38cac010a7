import AlarmModel
import FoundationEssentials
import LinuxSystem
import Synchronization

/// Hands out items when their deadlines on the boot clock come, from the agent's event loop.
///
/// One `CLOCK_BOOTTIME` timerfd, armed absolute for the earliest deadline: a deadline counts
/// through suspend and does not move when the wall clock is set. Between deadlines nothing runs:
/// the timer is one more descriptor the event loop's `epoll_wait` sleeps on, so waiting costs no
/// wake-ups and no thread of its own. The watch starts with the first item.
final class DeadlineTimer<Item: Sendable>: Sendable {
    private struct State: ~Copyable {
        var deadlines = DeadlineQueue<UInt64, Duration>()
        var items: [UInt64: Item] = [:]
        var nextKey: UInt64 = 0
        var armed: Duration?
        var watch: EventLoop.Watch?
        var finished = false
    }

    private let timer: TimerFD
    private let loop: EventLoop
    private let state = Mutex(State())
    private let deliver: @Sendable ([Item]) -> Void

    /// Makes the timer (`timerfd_create`); `deliver` gets the items that came due, in deadline
    /// order, on `loop`'s thread, and must be quick.
    init(loop: EventLoop = .shared, deliver: @escaping @Sendable ([Item]) -> Void) throws {
        self.timer = try TimerFD(clock: .boottime)
        self.loop = loop
        self.deliver = deliver
    }

    /// The boot clock's reading now (`clock_gettime(CLOCK_BOOTTIME)`).
    static var now: Duration {
        let (seconds, nanoseconds) = ClockID.boottime.reading
        return .seconds(seconds) + .nanoseconds(nanoseconds)
    }

    /// Holds `item` until the boot clock reads `deadline` (see `now`).
    func insert(_ item: Item, at deadline: Duration) {
        let startWatch = state.withLock { state -> Bool in
            let key = state.nextKey
            state.nextKey += 1
            state.items[key] = item
            state.deadlines.set(key, deadline)
            if state.armed.map({ deadline < $0 }) ?? true {
                arm(at: deadline)
                state.armed = deadline
            }
            return state.watch == nil && !state.finished
        }
        guard startWatch else { return }
        // Watching fails only when the loop has no epoll descriptor (the process was out of
        // descriptors as it started): then nothing in the process can wait, and, as when it cannot
        // start a thread, it stops.
        let watch: EventLoop.Watch
        do {
            watch = try loop.watchReadable(timer.descriptor) { [self] in expired() }
        } catch {
            fatalError("Could not watch the timer of the delayed jobs: \(error)")
        }
        let duplicate = state.withLock { state -> EventLoop.Watch? in
            if state.watch == nil && !state.finished {
                state.watch = watch
                return nil
            }
            return watch
        }
        duplicate?.cancel()
    }

    /// Stops handing out; items still held never are.
    func finish() {
        let watch = state.withLock { state -> EventLoop.Watch? in
            state.finished = true
            defer { state.watch = nil }
            return state.watch
        }
        watch?.cancel()
    }

    private func arm(at deadline: Duration) {
        let (seconds, attoseconds) = deadline.components
        // Arming fails only for a descriptor that is not a timer; this one always is.
        try? timer.descriptor.armTimer(atSeconds: seconds, nanoseconds: attoseconds / 1_000_000_000, cancelOnSet: false)
    }

    /// The timer is readable: hands out what is due and arms it for the next.
    private func expired() {
        _ = timer.read()
        let now = Self.now
        let due = state.withLock { state -> [Item] in
            if state.finished { return [] }
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
            return due
        }
        if !due.isEmpty { deliver(due) }
    }
}
