import AlarmProtocol
package import DBus

/// An error from the agent, sorted by what the caller can do about it.
public struct AgentClientError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure.
    public enum Kind: Hashable, Sendable {
        /// No alarm with that id (for this caller).
        case notFound
        /// The agent refused: the state, the limit, or authorization.
        case refused
        /// The input was not valid: a configuration field, an argument, a sound that cannot be played.
        case invalid
        /// The agent is not running and could not be started, or did not answer.
        case unavailable
        /// Something else went wrong.
        case failed
    }

    /// What kind of failure.
    public var kind: Kind
    /// The D-Bus error name.
    public var name: String
    /// The agent's message, naming the bad part.
    public var message: String

    /// Sorts a D-Bus error.
    package init(_ error: DBusError) {
        name = error.name
        message = error.message
        switch error.name {
        case AlarmErrorName.notFound:
            kind = .notFound
        case AlarmErrorName.invalidConfiguration, AlarmErrorName.invalidArguments, AlarmErrorName.invalidSound:
            kind = .invalid
        case let name where name.hasPrefix(AlarmErrorName.prefix):
            kind = name == AlarmErrorName.storageFailed ? .failed : .refused
        case DBusError.serviceUnknown, DBusError.noReply, "org.freedesktop.DBus.Error.Spawn.ChildExited",
            "org.freedesktop.DBus.Error.Spawn.Failed", "org.freedesktop.DBus.Error.Disconnected", DBusError.nameHasNoOwner:
            kind = .unavailable
        default:
            kind = .failed
        }
    }

    /// The agent's message.
    public var description: String { message }

    /// Whether the call found no agent to answer: none runs and none could be started by D-Bus
    /// activation (`AgentClient.startAgent` can start one).
    public var isAgentMissing: Bool { name == DBusError.serviceUnknown }

    /// The bus's message when `error` is an error of the bus itself; `nil` otherwise.
    @available(*, deprecated, message: "catch AgentBusError and read its message")
    public static func busErrorMessage(of error: any Error) -> String? {
        (error as? AgentBusError)?.message
    }
}

/// A failure of the bus itself, not an answer of the agent's: the client could not connect to the
/// session bus (`AgentClient.connect`), or the bus could not give a property of the agent's
/// (`AgentClient.property`).
public struct AgentBusError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The D-Bus error name, such as `org.freedesktop.DBus.Error.ServiceUnknown`.
    public var name: String
    /// The bus's message.
    public var message: String

    /// Creates an error with its D-Bus name and message.
    public init(name: String, message: String) {
        self.name = name
        self.message = message
    }

    /// Keeps a D-Bus error's name and message.
    package init(_ error: DBusError) {
        self.init(name: error.name, message: error.message)
    }

    /// The name, then the message: `name: message` (the name alone when there is no message).
    public var description: String { message.isEmpty ? name : "\(name): \(message)" }
}

/// The agent is not running and could not be started; the message says why.
public struct AgentStartError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong, for a person.
    public var message: String

    /// Creates an error with its message.
    public init(_ message: String) { self.message = message }

    /// The message.
    public var description: String { message }
}
