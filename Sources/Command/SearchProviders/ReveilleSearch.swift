import AlarmKit
import AlarmProtocol
import DBus
import FoundationEssentials
import LinuxSystem

/// `reveille-search`: the desktop's search providers, GNOME Shell's `SearchProvider2` and Plasma's
/// `org.kde.krunner1`, on the session bus as `io.github.reveille.Search` (D-Bus activated: the
/// package's `io.github.reveille.Search.service`).
///
/// It is a process of its own, not part of the agent: the installed program started as
/// `reveille-search` (`reveille-multicall`, a third name of the one file; `reveille-search` alone
/// in a development build). It reads the command's time grammar (CommandLineText), and it sets
/// alarms through the agent's own API as `reveille` does, so that the agent sees the same caller,
/// a trusted program beside it, acting as the person (docs/API.md, "Search providers"). Answering
/// a query that sets something needs no agent at all. After 30 s without a query it exits
/// (`QuietSpell`); the bus starts it again at the next.
package enum ReveilleSearch {
    /// Serves the search providers until the bus goes away or a quiet spell passes; returns the
    /// program's exit status: 0, 1 when the name is already owned, 69 when the bus cannot be used.
    package static func main() async -> Int32 {
        let address = CommandLine.arguments.dropFirst().first { $0.hasPrefix("--bus=") }.map { String($0.dropFirst(6)) }
        do {
            let connection = try address.map { try DBusConnection.connect(address: $0) } ?? DBusConnection.session()
            let answers = SearchAnswers(client: AgentClient(connection: connection))
            let quiet = QuietSpell(length: quietSpell(in: CommandLine.arguments))
            try connection.export(path: AlarmBus.kRunnerPath, interfaces: [quiet.counting(KRunnerInterface.description(answers))])
            try connection.export(path: AlarmBus.gnomeSearchPath, interfaces: [quiet.counting(GNOMESearchInterface.description(answers))])
            guard try await connection.requestName(AlarmBus.searchName, flags: [.doNotQueue]) == .primaryOwner else {
                FileDescriptor.standardError.write("reveille-search: \(AlarmBus.searchName) is already owned on this bus\n")
                return 1
            }
            // It ends when the bus goes away, or after a quiet spell: then the name is given back
            // first, so the next query starts a new one rather than reaching this one as it exits.
            await withTaskGroup(of: Void.self) { group in
                group.addTask { for await _ in connection.disconnected { break } }
                group.addTask { await quiet.waitForQuiet() }
                await group.next()
                group.cancelAll()
            }
            _ = try? await connection.releaseName(AlarmBus.searchName)
            connection.close()
            return 0
        } catch {
            FileDescriptor.standardError.write("reveille-search: \(error)\n")
            return 69
        }
    }

    /// The quiet spell after which it exits: `--quiet-exit=SECONDS` (for tests), else 30 s.
    static func quietSpell(in arguments: [String]) -> Duration {
        let given = arguments.dropFirst().first { $0.hasPrefix("--quiet-exit=") }.flatMap { Double($0.dropFirst(13)) }
        return .seconds(given.map { max($0, 0.1) } ?? 30)
    }
}
