import Dispatch
import AlarmModel
import Foundation

extension Thread {
    /// Starts a thread named `name` (as `top -H`, `perf` and `Thread.current.name` show it, cut to
    /// 15 bytes) that runs `body`.
    ///
    /// Foundation sets a thread's name (`pthread_setname_np`) only once `start()` has returned:
    /// a thread that names itself before then keeps its creator's name. So the name is set here,
    /// after `start()`, and `body` waits for it.
    package static func start(named name: String, _ body: @escaping @Sendable () -> Void) {
        let named = DispatchSemaphore(value: 0)
        let thread = Thread {
            named.wait()
            body()
        }
        thread.start()
        // The kernel keeps 15 bytes of a name; `pthread_setname_np` refuses a longer one.
        var bytes = Array(name.utf8.prefix(15))
        while !bytes.isEmpty, String(validating: bytes, as: UTF8.self) == nil { bytes.removeLast() }
        thread.name = String(decoding: bytes, as: UTF8.self)
        named.signal()
    }
}
