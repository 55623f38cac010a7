@_spi(ExperimentalCustomExecutors) import _Concurrency
import FoundationEssentials

/// The executors the agent's process runs its tasks on: the main thread's as Swift sets it up, and
/// a ``WorkerPool`` in place of libdispatch's workers for everything else.
///
/// Installed first thing in `main`, before any task exists, so no job ever reaches libdispatch's
/// pool and its once-a-second monitor never starts.
package enum AgentExecutors {
    /// The pool: one thread per processor, at least two.
    static let pool: WorkerPool = {
        do {
            return try WorkerPool(name: "reveille-worker", maximumThreads: max(2, ProcessInfo.processInfo.activeProcessorCount))
        } catch {
            fatalError("The agent's worker pool could not make its timer: \(error)")
        }
    }()

    /// Makes the pool Swift's default executor for this process (`swift_createExecutors`).
    package static func install() {
        _createExecutors(factory: Factory.self)
    }

    private enum Factory: ExecutorFactory {
        /// The main thread's executor as Swift's platform default has it (the main dispatch queue).
        static var mainExecutor: any MainExecutor { PlatformExecutorFactory.mainExecutor }

        static var defaultExecutor: any TaskExecutor { pool }
    }
}
