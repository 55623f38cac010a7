#if canImport(Glibc)
import Glibc
#endif

/// Makes one system call: the single place where `EINTR` is retried and where injected faults
/// (`SystemCallFaults`) take effect. Every wrapper in this module goes through it.
///
/// `body` makes the call and returns its result, -1 with `errno` set when it failed (a call that
/// returns its error number instead, as `posix_spawn` does, sets `errno` and returns -1). A fault
/// injected for `call` is taken instead of running `body`, as though the kernel had returned it,
/// so an injected `.interrupted` is retried like a real one. With `retryOnInterrupt` false (for
/// `close`, whose descriptor is gone even when interrupted) `.interrupted` is thrown.
@inline(__always)
func systemCall<Result: BinaryInteger>(
    _ call: SystemCall, retryOnInterrupt: Bool = true, _ body: () -> Result
) throws(Errno) -> Result {
    while true {
        let failure: Errno
        if let injected = SystemCallFaults.take(call) {
            failure = injected
        } else {
            let result = body()
            guard result == -1 else { return result }
            failure = Errno.current
        }
        guard retryOnInterrupt, failure == .interrupted else { throw failure }
    }
}
