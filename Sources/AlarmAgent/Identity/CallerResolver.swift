import AlarmCore
import DBus
import Foundation
import Synchronization

/// Works out who a bus caller is, once per connection: the person's own `reveille` command (which
/// sees and manages every alarm), or an app.
///
/// It asks the bus for the caller's credentials (`GetConnectionCredentials`), refuses callers of
/// another user, and identifies the process with `ProcessIdentifier`. A caller whose executable is
/// one of the trusted command-line tools (the `reveille` installed beside the agent) is the user.
public final class CallerResolver: Sendable {
    /// A resolved caller.
    public struct Resolved: Hashable, Sendable {
        /// The engine's view: the user, or an app.
        public var caller: AlarmCaller
        /// How it was identified.
        public var identity: CallerIdentity
    }

    private let connection: DBusConnection
    private let trustedExecutables: Set<String>
    private let processes: ProcessIdentifier
    /// The callers resolved so far, by unique name, and whether each has read alarms.
    private let cache = Mutex<[String: (resolved: Resolved, watching: Bool)]>([:])

    /// Creates a resolver; `trustedExecutables` are the paths whose processes act as the user.
    public init(connection: DBusConnection, trustedExecutables: Set<String>, processes: ProcessIdentifier = ProcessIdentifier()) {
        self.connection = connection
        self.trustedExecutables = Set(trustedExecutables.map { URL(fileURLWithPath: $0).resolvingSymlinksInPath().path })
        self.processes = processes
    }

    /// Who sent a message, by its unique bus name.
    public func resolve(_ sender: String) async throws -> Resolved {
        if let known = cache.withLock({ $0[sender]?.resolved }) { return known }
        let reply = try await connection.call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            method: "GetConnectionCredentials", arguments: [.string(sender)])
        let credentials = reply.first?.dictionaryValue ?? [:]
        let userID = credentials["UnixUserID"]?.integerValue.map(UInt32.init)
        guard let userID, userID == getuid() else {
            throw DBusError(name: AgentError.notAuthorized, message: "callers of another user may not use this agent")
        }
        guard let processID = credentials["ProcessID"]?.integerValue.map(UInt32.init),
            let identity = processes.identify(processID: processID, userID: userID)
        else {
            throw DBusError(name: AgentError.notAuthorized, message: "the caller's process could not be identified")
        }
        let isUser = identity.source == .executable && identity.executable.map {
            trustedExecutables.contains(ProcessIdentifier.withoutDeletedSuffix($0))
        } == true
        let resolved = Resolved(caller: isUser ? .user : .app(identity.appID), identity: identity)
        cache.withLock { cache in
            if cache[sender] == nil { cache[sender] = (resolved, false) }
        }
        return resolved
    }

    /// The callers known so far, by unique name, for sending them signals.
    public var knownCallers: [String: Resolved] { cache.withLock { $0.mapValues(\.resolved) } }

    /// Notes that a caller has read alarms (`List`, `Get`, `GetManagedObjects`, an alarm
    /// object's properties): from now on it is sent their changes. Call after `resolve`.
    public func markWatching(_ sender: String) {
        cache.withLock { $0[sender]?.watching = true }
    }

    /// The known callers that have read alarms, by unique name: those alarm changes are sent to.
    public var watchers: [String: Resolved] {
        cache.withLock { cache in cache.filter(\.value.watching).mapValues(\.resolved) }
    }

    /// Forgets a connection that left the bus.
    public func forget(_ sender: String) {
        _ = cache.withLock { $0.removeValue(forKey: sender) }
    }
}
