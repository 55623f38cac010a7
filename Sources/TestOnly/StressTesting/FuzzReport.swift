import AlarmProtocol
import DBus
import Foundation
import TestSupport

/// How the agent answered one call, sorted the way the fuzzer judges it.
package enum ReplyVerdict: Hashable, Sendable {
    /// A method return.
    case returned
    /// An error the API documents: `io.github.reveille.Alarms1.Error.*` or a standard
    /// `org.freedesktop.DBus.Error.*` that says what was wrong with the call.
    case namedError(String)
    /// Anything else: an unnamed or catch-all error, an error without a message, no reply.
    case problem(String)

    /// The documented errors of the agent (`StorageFailed` is one, but no fuzz input may cause it:
    /// it is the agent's name for an error it did not expect).
    package static let agentErrors: Set<String> = [
        "NotFound", "NotAllowed", "NoPostAlertDuration", "InvalidConfiguration", "InvalidArguments", "InvalidSound", "MaximumLimitReached",
        "NotAuthorized",
    ]

    /// Standard errors that mean "the caller got something wrong", never "the agent broke".
    package static let callerErrors: Set<String> = [
        "InvalidArgs", "UnknownMethod", "UnknownObject", "UnknownInterface", "UnknownProperty", "PropertyReadOnly",
        "AccessDenied", "NotSupported", "InvalidSignature", "LimitsExceeded",
    ]

    /// The longest error message that names the bad part without echoing a mebibyte of it back.
    package static let maximumMessageLength = 4_096

    /// Judges an error reply by its name and message.
    package static func judge(errorName name: String, message: String) -> ReplyVerdict {
        let agentPrefix = AlarmErrorName.prefix
        let standardPrefix = "org.freedesktop.DBus.Error."
        let named: Bool
        if name.hasPrefix(agentPrefix) {
            named = agentErrors.contains(String(name.dropFirst(agentPrefix.count)))
        } else if name.hasPrefix(standardPrefix) {
            named = callerErrors.contains(String(name.dropFirst(standardPrefix.count)))
        } else {
            named = false
        }
        guard named else { return .problem("error \(name): \(message.prefix(300))") }
        guard !message.isEmpty else { return .problem("error \(name) without a message naming the bad part") }
        guard message.utf8.count <= maximumMessageLength else {
            return .problem("error \(name) with a message of \(message.utf8.count) bytes (it quotes too much): \(message.prefix(200))…")
        }
        return .namedError(name)
    }
}

/// What a fuzz run did and found: counts of calls and answers, and every problem with the call
/// that caused it.
package struct FuzzReport: Sendable, CustomStringConvertible {
    /// The seed the run started from.
    package var seed: UInt64
    /// Method calls sent.
    package var calls = 0
    /// Signals sent to the agent.
    package var signals = 0
    /// Generated calls this process could not send (for example too deep for the protocol).
    package var unsendable = 0
    /// Times the bus dropped the fuzzer's own connection (for a message it refused), and it reconnected.
    package var reconnections = 0
    /// Method returns.
    package var returns = 0
    /// Named errors, by name.
    package var namedErrors: [String: Int] = [:]
    /// `Schedule` calls the agent accepted.
    package var schedulesAccepted = 0
    /// `Schedule` calls the agent refused.
    package var schedulesRefused = 0
    /// Everything that is wrong, with the call that caused it; the first 50 are kept.
    package var problems: [String] = []
    /// How many problems there were in all.
    package var problemCount = 0

    /// Creates an empty report.
    package init(seed: UInt64) {
        self.seed = seed
    }

    /// Records a problem.
    package mutating func problem(_ text: String) {
        problemCount += 1
        if problems.count < 50 { problems.append(text) }
    }

    /// Named errors in all.
    package var namedErrorCount: Int { namedErrors.values.reduce(0, +) }

    /// A few lines for a log or a failure message.
    package var description: String {
        let errors = namedErrors.sorted { $0.value > $1.value }.map { "\($0.key.split(separator: ".").last ?? ""): \($0.value)" }
        var lines = [
            "seed \(seed) (replay: \(SeededGenerator.seedVariable)=\(seed))",
            "calls \(calls), signals \(signals), unsendable \(unsendable), reconnections \(reconnections)",
            "returns \(returns), named errors \(namedErrorCount) [\(errors.joined(separator: ", "))]",
            "Schedule accepted \(schedulesAccepted), refused \(schedulesRefused)",
            "problems \(problemCount)",
        ]
        lines += problems.map { "  - " + $0 }
        return lines.joined(separator: "\n")
    }
}
