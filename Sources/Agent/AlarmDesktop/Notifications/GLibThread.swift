import AgentRuntime
import AlarmModel
import CLibNotify
import FoundationEssentials
import Synchronization
import LinuxSystem
import Dispatch

/// A thread that runs its own GLib main loop on its own `GMainContext`, made the thread-default
/// context (`g_main_context_push_thread_default`) so that GDBus (and libnotify on top of it)
/// dispatches signals and callbacks there.
///
/// Work reaches the thread through `g_main_context_invoke_full`; timers are `g_timeout_source_new`
/// sources attached to the context. Everything GLib-side happens on this one thread.
final class GLibThread: Sendable {
    /// The context (`GMainContext *`); only handed to GLib calls that are thread-safe
    /// (`g_main_context_invoke_full`, `g_main_context_wakeup`) from other threads.
    nonisolated(unsafe) let context: OpaquePointer  // GLib documents these calls as thread-safe
    /// The loop (`GMainLoop *`); `g_main_loop_quit` is thread-safe.
    nonisolated(unsafe) let loop: OpaquePointer  // g_main_loop_quit/run are thread-safe
    private let finished = Mutex(false)
    private let done = DispatchSemaphore(value: 0)
    private let threadID = Mutex<pthread_t?>(nil)

    /// Creates the context and loop; `start` starts the thread.
    init() {
        context = g_main_context_new()
        loop = g_main_loop_new(context, 0)
    }

    /// Starts the thread: pushes the context, runs `setUp`, then `g_main_loop_run` until `quit()`,
    /// then `tearDown`, all on the new thread. Call once.
    func start(name: String, setUp: @escaping @Sendable () -> Void, tearDown: @escaping @Sendable () -> Void) {
        let started = DispatchSemaphore(value: 0)
        Threads.start(named: name) { [self] in
            threadID.withLock { $0 = pthread_self() }
            g_main_context_push_thread_default(context)
            started.signal()
            setUp()
            g_main_loop_run(loop)
            tearDown()
            // Let sources that closed things run their destroy notifiers.
            while g_main_context_iteration(context, 0) != 0 {}
            g_main_context_pop_thread_default(context)
            done.signal()
        }
        started.wait()
    }

    deinit {
        g_main_loop_unref(loop)
        g_main_context_unref(context)
    }

    /// Whether the caller runs on this thread.
    var isCurrent: Bool {
        threadID.withLock { id in id.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
    }

    /// Runs `work` on the thread (`g_main_context_invoke_full`): at once when called there,
    /// otherwise from the loop, in call order.
    func invoke(_ work: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(WorkBox(work)).toOpaque()
        g_main_context_invoke_full(
            context, reveille_priority_default(),
            { data in
                Unmanaged<WorkBox>.fromOpaque(data!).takeUnretainedValue().work()
                return reveille_source_remove()
            }, box,
            { data in Unmanaged<WorkBox>.fromOpaque(data!).release() })
    }

    /// Runs `work` once, `milliseconds` from now, on the thread (a `g_timeout_source_new` attached
    /// to the context). Call on the thread; returns the source, for `cancel`.
    func after(milliseconds: UInt32, _ work: @escaping () -> Void) -> UnsafeMutablePointer<GSource> {
        let source = g_timeout_source_new(milliseconds)!
        attach(source, work)
        return source
    }

    /// Runs `work` on the thread's next idle turn (a `g_idle_source_new`), after what is already queued.
    func soon(_ work: @escaping () -> Void) {
        let source = g_idle_source_new()!
        attach(source, work)
        g_source_unref(source)
    }

    private func attach(_ source: UnsafeMutablePointer<GSource>, _ work: @escaping () -> Void) {
        let box = Unmanaged.passRetained(LocalWorkBox(work)).toOpaque()
        g_source_set_callback(
            source,
            { data in
                Unmanaged<LocalWorkBox>.fromOpaque(data!).takeUnretainedValue().work()
                return reveille_source_remove()
            }, box,
            { data in Unmanaged<LocalWorkBox>.fromOpaque(data!).release() })
        g_source_attach(source, context)
    }

    /// Cancels a source from `after` (`g_source_destroy`, `g_source_unref`).
    func cancel(_ source: UnsafeMutablePointer<GSource>) {
        g_source_destroy(source)
        g_source_unref(source)
    }

    /// Quits the loop (`g_main_loop_quit`) and, unless called on the thread, waits until the thread
    /// has run its tear-down.
    func quit() {
        let first = finished.withLock { finished in
            defer { finished = true }
            return !finished
        }
        guard first else { return }
        invoke { [self] in g_main_loop_quit(loop) }
        if !isCurrent { done.wait() }
    }
}

/// A closure carried through `user_data` to the thread.
private final class WorkBox: Sendable {
    let work: @Sendable () -> Void
    init(_ work: @escaping @Sendable () -> Void) { self.work = work }
}

/// A closure created and run on the thread.
private final class LocalWorkBox {
    let work: () -> Void
    init(_ work: @escaping () -> Void) { self.work = work }
}
