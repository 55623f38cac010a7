#if canImport(Glibc)
import Glibc
#endif

/// What the process does with a signal that has no handler of its own.
package enum SignalDisposition: Sendable {
    /// `SIG_IGN`: nothing (a dispatch signal source still sees it).
    case ignore
    /// `SIG_DFL`: the signal's default action (for `SIGTERM`, ending the process).
    case `default`

    /// Sets this disposition for `signal` (`signal(2)`).
    package func apply(to signal: Int32) {
        _ = Glibc.signal(signal, self == .ignore ? SIG_IGN : SIG_DFL)
    }
}
