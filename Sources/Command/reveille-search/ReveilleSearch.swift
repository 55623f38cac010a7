import AlarmKit
import AlarmProtocol
import DBus
import Foundation

/// `reveille-search`: the desktop's search providers, GNOME Shell's `SearchProvider2` and Plasma's
/// `org.kde.krunner1`, on the session bus as `io.github.reveille.Search` (D-Bus activated: the
/// package's `io.github.reveille.Search.service`).
///
/// It is a program of its own, installed beside `reveille` and the agent, and not part of the
/// agent: it reads the command's time grammar (CommandLineText), which the agent does not link,
/// and it sets alarms through the agent's own API as `reveille` does, so that the agent sees the
/// same caller, a trusted program beside it, acting as the person (docs/API.md, "Search
/// providers"). Answering a query that sets something needs no agent at all.
@main
enum ReveilleSearch {
    static func main() async {
        let address = CommandLine.arguments.dropFirst().first { $0.hasPrefix("--bus=") }.map { String($0.dropFirst(6)) }
        do {
            let connection = try address.map { try DBusConnection.connect(address: $0) } ?? DBusConnection.session()
            let answers = SearchAnswers(client: AgentClient(connection: connection))
            try connection.export(path: AlarmBus.kRunnerPath, interfaces: [KRunnerInterface.description(answers)])
            try connection.export(path: AlarmBus.gnomeSearchPath, interfaces: [GNOMESearchInterface.description(answers)])
            guard try await connection.requestName(AlarmBus.searchName, flags: [.doNotQueue]) == .primaryOwner else {
                FileHandle.standardError.write(Data("reveille-search: \(AlarmBus.searchName) is already owned on this bus\n".utf8))
                exit(1)
            }
            for await _ in connection.disconnected { break }
        } catch {
            FileHandle.standardError.write(Data("reveille-search: \(error)\n".utf8))
            exit(69)
        }
    }
}
