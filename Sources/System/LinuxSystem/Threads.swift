import CLinux

#if canImport(Glibc)
import Glibc
#endif

/// Threads of the process's own (`pthread_create(3)`), named as `top -H` and debuggers show them.
package enum Threads {
    /// Starts a detached thread named `name` (cut to the 15 bytes the kernel keeps) that runs `body`.
    /// A process that cannot start a thread has run out of memory or of threads, and stops.
    package static func start(named name: String, _ body: @escaping @Sendable () -> Void) {
        let start = Start(name: name, body: body)
        var thread = pthread_t()
        let context = Unmanaged.passRetained(start).toOpaque()
        let result = pthread_create(
            &thread, nil,
            { context in
                let start = Unmanaged<Start>.fromOpaque(context!).takeRetainedValue()
                Threads.nameCurrentThread(start.name)
                start.body()
                return nil
            }, context)
        guard result == 0 else {
            Unmanaged<Start>.fromOpaque(context).release()
            fatalError("Could not start the thread \(name): \(Errno(rawValue: result))")
        }
        pthread_detach(thread)
    }

    /// Names the calling thread (`PR_SET_NAME`), cut to the 15 bytes the kernel keeps, at a
    /// character's end.
    package static func nameCurrentThread(_ name: String) {
        var bytes = Array(name.utf8.prefix(15))
        while !bytes.isEmpty, String(validating: bytes, as: UTF8.self) == nil { bytes.removeLast() }
        reveille_name_thread(String(decoding: bytes, as: UTF8.self))
    }

    /// Suspends the calling thread for good (`pause(2)`, again after each signal handler).
    package static func sleepForever() -> Never {
        while true { pause() }
    }

    /// What a new thread runs, handed to it through `pthread_create`'s argument.
    private final class Start: Sendable {
        let name: String
        let body: @Sendable () -> Void

        init(name: String, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }
}

/// A lock with a condition to wait on (`pthread_mutex_t` and `pthread_cond_t`): a thread with the
/// lock waits, unlocked meanwhile, until another signals, making no wake-ups while it sleeps.
package final class ThreadCondition: @unchecked Sendable {  // safe: pthread's own calls only; freed in deinit
    // In full: the mutex and condition are made once, used only through pthread's own thread-safe calls, and freed in
    // deinit when no thread can hold them
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    /// Makes the lock and its condition.
    package init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Takes the lock, waiting for it.
    package func lock() { pthread_mutex_lock(mutex) }

    /// Gives the lock back.
    package func unlock() { pthread_mutex_unlock(mutex) }

    /// With the lock held: gives it up until signalled, then takes it again. May return without a
    /// signal (as `pthread_cond_wait` may): callers wait in a loop on what they wait for.
    package func wait() { pthread_cond_wait(condition, mutex) }

    /// Wakes one waiting thread.
    package func signal() { pthread_cond_signal(condition) }

    /// Wakes every waiting thread.
    package func broadcast() { pthread_cond_broadcast(condition) }
}
