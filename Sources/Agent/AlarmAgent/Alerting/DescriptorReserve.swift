import FoundationEssentials
import LinuxSystem
import Logging
import Synchronization

/// File descriptors the agent holds in reserve from its start, so that an alarm still rings, shown
/// and heard, when the agent has run out of them (a limit set too low, a leak).
///
/// Out of descriptors, the agent could not open the sound device or the sound file, nor arm its
/// next timer, and GLib, under libnotify, aborts the whole process when a call cannot make the
/// descriptor its main context wakes on. So the agent holds `count` descriptors (on `/dev/null`,
/// numbered low, as they are taken first thing). When an alarm starts ringing and fewer than
/// `headroom` new descriptors can be made, or a timer or a notification cannot have the few it
/// needs, it gives them all up and logs why; the alarm rings with them. Once no alarm rings it
/// takes them again, leaving `headroom` free.
final class DescriptorReserve: RingingObserver {
    /// How many descriptors it holds.
    let count: Int
    /// How many new descriptors an alarm starting to ring must find, or the reserve is given up:
    /// its sound device, sound file, next timers and notification, with room to spare; also how
    /// many it leaves free when it takes the reserve again.
    let headroom: Int
    private let logger: Logger
    private let state = Mutex(State())

    private struct State {
        var held: [FileDescriptor] = []
        var ringing: Set<UUID> = []
        /// Whether running out with nothing left in reserve has been logged since the last refill.
        var reportedEmpty = false
    }

    /// Takes the reserve now (as many of `count` as can be had, leaving `headroom` free).
    init(count: Int = 32, headroom: Int = 8, logger: Logger) {
        self.count = count
        self.headroom = headroom
        self.logger = logger
        refill()
    }

    /// How many descriptors it holds now.
    var heldCount: Int { state.withLock { $0.held.count } }

    /// An alarm started ringing: makes room for it when the agent is (nearly) out of descriptors.
    func alertStarted(_ id: UUID) {
        state.withLock { _ = $0.ringing.insert(id) }
        ensureRoom(for: "an alarm that starts ringing", needed: headroom)
    }

    /// An alarm stopped ringing: once none rings, the reserve is taken again.
    func alertEnded(_ id: UUID) {
        let noneRings = state.withLock { state -> Bool in
            state.ringing.remove(id)
            return state.ringing.isEmpty
        }
        if noneRings { refill() }
    }

    /// Whether `needed` new descriptors can be made now (each made and closed again), for
    /// `what`; when they cannot, the reserve is given up first, and why is logged.
    @discardableResult
    func ensureRoom(for what: String, needed: Int) -> Bool {
        let free = Self.freeDescriptors(upTo: needed)
        guard free.count < needed else { return true }
        let (released, report) = state.withLock { state -> ([FileDescriptor], Bool) in
            defer { state.held.removeAll() }
            let report = state.held.isEmpty && !state.reportedEmpty
            if state.held.isEmpty { state.reportedEmpty = true }
            return (state.held, report)
        }
        let error = free.error.map { "\($0)" } ?? ""
        if released.isEmpty {
            if report {
                logger.error(
                    "The agent is out of file descriptors and has none left in reserve: \(what) goes without, and so may what follows until descriptors are freed",
                    metadata: ["limit": "\(Self.limitText)", "error": "\(error)"])
            }
            return false
        }
        for descriptor in released { try? descriptor.close() }
        logger.warning(
            "The agent is out of file descriptors: it gave up the \(released.count) it holds in reserve, for \(what); raise its limit (LimitNOFILE= in its unit) or find what holds them",
            metadata: ["limit": "\(Self.limitText)", "error": "\(error)"])
        return Self.freeDescriptors(upTo: needed).count >= needed
    }

    /// Takes descriptors until it holds `count`, leaving at least `headroom` free.
    private func refill() {
        state.withLock { state in
            let wanted = count - state.held.count
            guard wanted > 0 else { return }
            var taken: [FileDescriptor] = []
            while taken.count < wanted + headroom, let descriptor = try? FileDescriptor.open("/dev/null", .readOnly) {
                taken.append(descriptor)
            }
            let kept = min(wanted, max(0, taken.count - headroom))
            for descriptor in taken[kept...] { try? descriptor.close() }
            state.held += taken[..<kept]
            state.reportedEmpty = false
        }
    }

    /// How many new descriptors can be made, up to `wanted` (each made and closed again), and
    /// the error that stopped it short.
    private static func freeDescriptors(upTo wanted: Int) -> (count: Int, error: Errno?) {
        var made: [FileDescriptor] = []
        defer { for descriptor in made { try? descriptor.close() } }
        while made.count < wanted {
            do throws(Errno) {
                made.append(try FileDescriptor.open("/dev/null", .readOnly))
            } catch {
                return (made.count, error)
            }
        }
        return (made.count, nil)
    }

    /// The soft and hard limits on open files, for the log: `40 (hard 40)`.
    private static var limitText: String {
        guard let limits = try? ProcessCalls.openFileLimits() else { return "unknown" }
        return "\(limits.soft) (hard \(limits.hard))"
    }
}
