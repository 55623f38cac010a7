import AlarmKit
import AlarmProtocol
import DBus
import Foundation
import TestSupport

/// The desktop's search providers (`reveille-search`): how long a query takes from the call to
/// its reply on the bus, as KRunner's `Match` and GNOME Shell's `GetInitialResultSet` plus
/// `GetResultMetas` see it, with the real agent holding 100 alarms; and the first query of a
/// session, which starts `reveille-search` by D-Bus activation.
enum SearchBenchmark {
    /// The queries measured: each form of the grammar, the list, and a title search.
    static let queries = ["timer 10m tea", "10m", "alarm 7:30", "alarm tomorrow 6:45 dentist", "wake me at 6", "alarms", "Bench 42"]

    static func run(calls: Int) async throws {
        print("== search providers: query to reply on the bus (release build, private bus, real agent, 100 alarms)")
        let folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let programs = ["reveilled", "reveille", "reveille-search"].map { folder.appendingPathComponent($0).path }
        guard programs.allSatisfy(FileManager.default.isExecutableFile(atPath:)) else {
            print("reveilled, reveille and reveille-search must be built beside reveille-bench: swift build -c release")
            return
        }
        let services = Fixtures.temporaryDirectory("reveille-bench-search")
        defer { try? FileManager.default.removeItem(at: services) }
        try "[D-BUS Service]\nName=\(AlarmBus.searchName)\nExec=\(programs[2])\n"
            .write(to: services.appendingPathComponent("\(AlarmBus.searchName).service"), atomically: true, encoding: .utf8)
        let sandbox = try DesktopSandbox(startsNotificationServer: false, serviceDirectories: [services])
        defer { sandbox.stop() }
        _ = try sandbox.spawn(programs[0], ["--silent"])
        try sandbox.waitForBusName(AgentClient.busName, timeout: .seconds(20))
        let ownExecutable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        try sandbox.run(programs[1], ["auth", "allow", ownExecutable])
        let connection = try DBusConnection.connect(address: sandbox.busAddress)
        defer { connection.close() }
        let client = AgentClient(connection: connection)
        for index in 0..<100 {
            let definition = Fixtures.definition(.fixed(Date().addingTimeInterval(Double(86_400 + index * 60))), title: "Bench \(index)")
            _ = try await client.schedule(id: UUID(), definition: definition)
        }

        // The first query of a session: the bus starts reveille-search (D-Bus activation), 10 times.
        var starts: [Duration] = []
        for _ in 0..<10 {
            let (_, took) = try await Measure.time { try await match(connection, "timer 10m tea") }
            starts.append(took)
            guard let pid = try sandbox.busNameOwnerPID(AlarmBus.searchName) else { break }
            kill(pid, SIGTERM)
            try sandbox.waitForBusNameReleased(AlarmBus.searchName, timeout: .seconds(10))
        }
        Measure.report(
            "first query, reveille-search started by activation (median / max of 10)",
            "\(Measure.format(Measure.percentile(starts, 0.5))) / \(Measure.format(starts.max() ?? .zero))")

        // Then it runs: each query as KRunner sends it as a person types, and as GNOME Shell does.
        var all: [Duration] = []
        for query in queries {
            var samples: [Duration] = []
            for _ in 0..<calls {
                let (results, took) = try await Measure.time { try await match(connection, query) }
                guard results > 0 else { throw TestEnvironmentError.failed("Match(\(query)) found nothing") }
                samples.append(took)
            }
            all += samples
            Measure.report(
                "krunner1.Match \"\(query)\" p50 / p99 (\(calls) calls)",
                "\(Measure.format(Measure.percentile(samples, 0.5))) / \(Measure.format(Measure.percentile(samples, 0.99)))",
                target: "p99 <= 50 ms")
        }
        var gnome: [Duration] = []
        for _ in 0..<calls {
            let (_, took) = try await Measure.time {
                let ids = try await connection.call(
                    destination: AlarmBus.searchName, path: AlarmBus.gnomeSearchPath, interface: "org.gnome.Shell.SearchProvider2",
                    method: "GetInitialResultSet", arguments: [.strings(["timer", "1m", "tea"])])
                _ = try await connection.call(
                    destination: AlarmBus.searchName, path: AlarmBus.gnomeSearchPath, interface: "org.gnome.Shell.SearchProvider2",
                    method: "GetResultMetas", arguments: ids)
            }
            gnome.append(took)
        }
        Measure.report(
            "SearchProvider2 GetInitialResultSet + GetResultMetas \"timer 1m tea\" p50 / p99 (\(calls) pairs)",
            "\(Measure.format(Measure.percentile(gnome, 0.5))) / \(Measure.format(Measure.percentile(gnome, 0.99)))",
            target: "p99 <= 50 ms")
        Measure.report(
            "every Match above p50 / p99",
            "\(Measure.format(Measure.percentile(all, 0.5))) / \(Measure.format(Measure.percentile(all, 0.99)))", target: "p99 <= 50 ms")
    }

    /// KRunner's `Match(query)`; returns how many results came.
    static func match(_ connection: DBusConnection, _ query: String) async throws -> Int {
        let reply = try await connection.call(
            destination: AlarmBus.searchName, path: AlarmBus.kRunnerPath, interface: "org.kde.krunner1", method: "Match",
            arguments: [.string(query)])
        guard case .array(_, let matches)? = reply.first else { return 0 }
        return matches.count
    }
}
