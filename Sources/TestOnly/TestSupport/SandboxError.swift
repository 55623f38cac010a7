/// Why the desktop sandbox, or something run inside it, did not do what a test asked.
package enum SandboxError: Error, CustomStringConvertible, Equatable {
    /// Programs the sandbox needs are not installed.
    case missing([String])
    /// A wait ran out of time; the text says what was awaited.
    case timeout(String)
    /// A program or system call failed.
    case failed(String)
    /// A D-Bus call was answered with an error.
    case busError(name: String, message: String)
    /// dunst's context menu had no line ending in the suffix the test asked for.
    case noSuchAction(suffix: String, menu: String)

    /// A sentence for the test log.
    package var description: String {
        switch self {
        case .missing(let programs):
            "not installed: \(programs.joined(separator: ", ")) (scripts/install-deps --tests installs them)"
        case .timeout(let what): "timed out: \(what)"
        case .failed(let reason): reason
        case .busError(let name, let message): "D-Bus error \(name): \(message)"
        case .noSuchAction(let suffix, let menu):
            "dunst's context menu has no line ending in \(suffix.debugDescription); it offered:\n\(menu)"
        }
    }
}
