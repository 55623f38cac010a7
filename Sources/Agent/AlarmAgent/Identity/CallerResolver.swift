import AlarmCore
import AlarmModel
import DBus
import FoundationEssentials
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Works out who a bus caller is, once per connection: the person's own `reveille` command (which
/// sees and manages every alarm), or an app.
///
/// It asks the bus for the caller's credentials (`GetConnectionCredentials`), refuses callers of
/// another user, and identifies the process with `ProcessIdentifier`. A caller whose executable is
/// one of the trusted command-line tools (the `reveille` installed beside the agent) is the user.
package final class CallerResolver: Sendable {
    /// A resolved caller.
    package struct Resolved: Hashable, Sendable {
        /// The engine's view: the user, or an app.
        package var caller: AlarmCaller
        /// How it was identified.
        package var identity: CallerIdentity
    }

    /// What a caller watches, and so which change signals it is sent.
    package struct Watching: OptionSet, Hashable, Sendable {
        package let rawValue: UInt8
        /// Creates a set from its bits.
        package init(rawValue: UInt8) { self.rawValue = rawValue }
        /// The alarm objects (it read them: `List`, `Get`, `GetManagedObjects`, a property):
        /// `InterfacesAdded`, `PropertiesChanged`, `InterfacesRemoved`.
        package static let objects = Watching(rawValue: 1 << 0)
        /// The list (it called `Watch`): one `AlarmsChanged` per stored change.
        package static let lists = Watching(rawValue: 1 << 1)
    }

    private let connection: DBusConnection
    private let trustedExecutables: Set<String>
    private let processes: ProcessIdentifier
    /// The callers resolved so far, by unique name, and what each watches.
    private let cache = Mutex<[String: (resolved: Resolved, watching: Watching)]>([:])

    /// Creates a resolver; `trustedExecutables` are the paths whose processes act as the user.
    package init(connection: DBusConnection, trustedExecutables: Set<String>, processes: ProcessIdentifier = ProcessIdentifier()) {
        self.connection = connection
        self.trustedExecutables = Set(trustedExecutables.map { URL(fileURLWithPath: $0).resolvingSymlinksInPath().path })
        self.processes = processes
    }

    /// Who sent a message, by its unique bus name.
    package func resolve(_ sender: String) async throws -> Resolved {
        if let known = cache.withLock({ $0[sender]?.resolved }) { return known }
        let reply = try await connection.call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            method: "GetConnectionCredentials", arguments: [.string(sender)])
        let credentials = reply.first?.dictionaryValue ?? [:]
        let userID = credentials["UnixUserID"]?.integerValue.map(UInt32.init)
        guard let userID, userID == getuid() else {
            throw DBusError(name: AgentError.notAuthorized, message: "callers of another user may not use this agent")
        }
        // A pidfd where the bus gives one (closed with the reply); the id from older buses.
        let identity: CallerIdentity?
        if let descriptor = credentials["ProcessFD"]?.fileDescriptorValue {
            identity = processes.identify(process: ProcessHandle(descriptor: descriptor), userID: userID)
        } else if let processID = credentials["ProcessID"]?.integerValue.map(UInt32.init) {
            identity = processes.identify(processID: processID, userID: userID)
        } else {
            identity = nil
        }
        guard let identity else {
            throw DBusError(name: AgentError.notAuthorized, message: "the caller's process could not be identified")
        }
        let isUser =
            identity.source == .executable
            && identity.executable.map {
                trustedExecutables.contains(ProcessIdentifier.withoutDeletedSuffix($0))
            } == true
        let resolved = Resolved(caller: isUser ? .user : .app(identity.appID), identity: identity)
        cache.withLock { cache in
            if cache[sender] == nil { cache[sender] = (resolved, []) }
        }
        return resolved
    }

    /// The callers known so far, by unique name, for sending them signals.
    package var knownCallers: [String: Resolved] { cache.withLock { $0.mapValues(\.resolved) } }

    /// Notes that a caller watches alarms (`Watching`): from now on it is sent their changes that
    /// way. Call after `resolve`.
    package func markWatching(_ sender: String, _ watching: Watching) {
        cache.withLock { _ = $0[sender]?.watching.formUnion(watching) }
    }

    /// The known callers that watch alarms in the given way, by unique name: those the alarms'
    /// changes are sent to that way.
    package func watchers(_ watching: Watching) -> [String: Resolved] {
        cache.withLock { cache in cache.filter { $0.value.watching.isSuperset(of: watching) }.mapValues(\.resolved) }
    }

    /// Forgets a connection that left the bus.
    package func forget(_ sender: String) {
        _ = cache.withLock { $0.removeValue(forKey: sender) }
    }
}
