import LinuxSystem
import Synchronization

/// The agent's one thread that waits for descriptors to become readable: the kernel timers of the
/// next deadlines and of the worker pool's delayed jobs, the inotify watches of the time zone and
/// the system bus, the termination signals. Each readable descriptor runs its handler on that
/// thread.
///
/// One `epoll_wait(2)` with no timeout: while nothing is readable the thread sleeps, so an agent
/// waiting for its alarms makes no wake-ups. It replaces libdispatch's read and signal sources,
/// whose manager and worker threads came and went around each event, and saves the hop from
/// libdispatch's manager thread to a queue's worker on the way from a timer's expiry to the
/// engine. Handlers must be quick (read the descriptor, resume a waiter): every watch shares the
/// thread. The agent's `main` gives it the main thread (`runOnCurrentThread(startingWith:)`, so
/// `top -H` shows it as `reveilled`), which would otherwise only wait; anywhere else (tests) a
/// thread of its own, `reveille-events`, starts with the first watch and then stays for the life
/// of the process.
package final class EventLoop: Sendable {
    /// The process's event loop.
    package static let shared = EventLoop()

    private struct State {
        var handlers: [UInt64: @Sendable () -> Void] = [:]
        var nextToken: UInt64 = 1
        var started = false
    }

    private let epoll: Result<FileDescriptor, Errno>
    private let state = Mutex(State())

    private init() {
        epoll = Result { () throws(Errno) in try FileDescriptor.epoll() }
    }

    /// A descriptor being watched; `cancel()` ends the watch.
    package struct Watch: Sendable {
        fileprivate let loop: EventLoop
        fileprivate let token: UInt64
        fileprivate let descriptor: FileDescriptor

        /// Stops watching: the handler is not run again once this returns, except for a run that
        /// had already begun on the loop's thread. The descriptor stays open (it is its owner's),
        /// and must stay open until this returns.
        package func cancel() {
            if case .success(let epoll) = loop.epoll { try? epoll.removeInterest(in: descriptor) }
            // Dropped outside the lock: the handler may hold the last reference to what closes the
            // descriptor.
            let handler = loop.state.withLock { $0.handlers.removeValue(forKey: token) }
            _ = handler
        }
    }

    /// Runs `onReadable` on the loop's thread each time `descriptor` is readable (level-triggered:
    /// the handler reads it, or it is reported again at once), until the watch is cancelled.
    /// Throws when the descriptor cannot be watched (`epoll_ctl(2)`'s error).
    package func watchReadable(_ descriptor: FileDescriptor, _ onReadable: @escaping @Sendable () -> Void) throws(Errno) -> Watch {
        let epoll = try epoll.get()
        let (token, starts) = state.withLock { state in
            defer { state.nextToken += 1; state.started = true }
            state.handlers[state.nextToken] = onReadable
            return (state.nextToken, !state.started)
        }
        do {
            try epoll.addInterest(inReadable: descriptor, token: token)
        } catch {
            _ = state.withLock { $0.handlers.removeValue(forKey: token) }
            throw error
        }
        if starts { Threads.start(named: "reveille-events") { [self] in run(epoll) } }
        return Watch(loop: self, token: token, descriptor: descriptor)
    }

    /// Runs the loop on the calling thread, for good, after `start()` (which starts what will add
    /// watches): the agent's main thread serves the descriptors instead of waiting for nothing.
    /// Watches added before or while `start()` runs are served here too, by no other thread.
    package func runOnCurrentThread(startingWith start: () -> Void) -> Never {
        state.withLock { $0.started = true }
        start()
        switch epoll {
        case .success(let epoll): run(epoll)
        case .failure: break
        }
        // No loop (no epoll descriptor, or a broken one): every watch has failed or will fail, and
        // the thread has nothing else to do.
        Threads.sleepForever()
    }

    private func run(_ epoll: FileDescriptor) {
        while true {
            let ready: [ReadyDescriptor]
            do {
                ready = try epoll.waitForReady()
            } catch {
                // Only a broken epoll descriptor fails here (interruptions are retried): nothing
                // more can be waited for, and spinning on the error would burn a core.
                return
            }
            for descriptor in ready {
                let handler = state.withLock { $0.handlers[descriptor.token] }
                handler?()
            }
        }
    }
}
