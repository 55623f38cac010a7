import Dispatch
import Foundation

extension Thread {
    /// Starts a thread named `name` (as `top -H`, `perf` and `Thread.current.name` show it, cut to
    /// 15 bytes) that runs `body`.
    ///
    /// Foundation sets a thread's name (`pthread_setname_np`) only once `start()` has returned:
    /// a thread that names itself before then keeps its creator's name. So the name is set here,
    /// after `start()`, and `body` waits for it.
    public static func start(named name: String, _ body: @escaping @Sendable () -> Void) {
        let named = DispatchSemaphore(value: 0)
        let thread = Thread {
            named.wait()
            body()
        }
        thread.start()
        thread.name = name
        named.signal()
    }
}
