import ArgumentParser
import FoundationEssentials
import LinuxSystem

/// A failure the command reports with a message and its documented exit status.
enum CLIFailure: Error, CustomStringConvertible {
    /// Bad input: exit 64.
    case usage(String)
    /// The agent refused: exit 65.
    case refused(String)
    /// The agent could not be reached or started: exit 69.
    case unavailable(String)
    /// Anything else: exit 1.
    case other(String)

    var description: String {
        switch self {
        case .usage(let message), .refused(let message), .unavailable(let message), .other(let message): message
        }
    }

    var exitCode: ExitCode {
        switch self {
        case .usage: ExitCode(64)
        case .refused: ExitCode(65)
        case .unavailable: ExitCode(69)
        case .other: ExitCode(1)
        }
    }
}

/// Runs a command body, printing a failure as `reveille: <message>` and exiting with its status.
func reportingFailures(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let failure as CLIFailure {
        FileDescriptor.standardError.write("reveille: \(failure.description)\n")
        throw failure.exitCode
    }
}
