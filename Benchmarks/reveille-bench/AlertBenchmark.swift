import AlarmCore
import AlarmModel
import AlarmKit
import DBus
import Foundation
import TestSupport

/// Alerts as a person meets them: the release agent rings alarms and timers in a sandbox with
/// dunst and ALSA captured to a file (paced to real time), and the benchmark measures, per alert,
/// the lateness from the scheduled instant to the `Notify` call on the bus and to the first audio
/// frame handed to ALSA, the time from a `Stop` call to silence (`snd_pcm_drop` returned), and the
/// agent's CPU while one alert rings.
///
/// The `Notify` call is timed by a bus monitor in this process; the first frame and the silence by
/// the agent (its debug log, `Alert sound ended`), in wall-clock seconds, which this process
/// compares with its own wall clock.
enum AlertBenchmark {
    struct Sample {
        var notify: Duration
        var firstFrame: Duration
        var stopToPlayer: Duration
        var stopToSilence: Duration
        var stopToDropReturned: Duration
    }

    /// One agent under measurement: its sandbox (bus, dunst, ALSA capture paced to real time), the
    /// agent itself, a client allowed to schedule, and a monitor that stamps each `Notify` call.
    final class Rig {
        /// What the rig's lines are labelled with (`today`, or the other build's folder).
        let name: String
        /// The folder holding the build's `reveilled` and `reveille`.
        let folder: URL
        let sandbox: DesktopSandbox
        var agent: SandboxProcess
        let client: AgentClient
        let monitor: NotifyMonitor
        /// The monitor stamps messages on the continuous clock; these map them to the wall clock.
        private let origin = (wall: Date(), continuous: ContinuousClock.now)

        /// Starts a sandbox and the agent of the build in `folder` in it, and allows this benchmark.
        init(name: String, folder: URL) async throws {
            self.name = name
            self.folder = folder
            let reveilled = folder.appendingPathComponent("reveilled").path
            guard FileManager.default.isExecutableFile(atPath: reveilled) else {
                throw SandboxError.failed("no reveilled in \(folder.path): swift build -c release")
            }
            sandbox = try DesktopSandbox(startsNotificationServer: true, pacedBytesPerSecond: 48_000 * 4)
            do {
                agent = try sandbox.spawn(reveilled, ["--verbose"])
                try sandbox.waitForBusName(AgentClient.busName, timeout: .seconds(20))
                let ownExecutable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
                try sandbox.run(folder.appendingPathComponent("reveille").path, ["auth", "allow", ownExecutable])
                client = AgentClient(connection: try DBusConnection.connect(address: sandbox.busAddress))
                monitor = try sandbox.monitorNotifyCalls(promptStamps: true)
            } catch {
                sandbox.stop()
                throw error
            }
        }

        var reveilled: String { folder.appendingPathComponent("reveilled").path }

        /// The wall-clock time of a monitor's stamp.
        func wall(_ instant: ContinuousClock.Instant) -> Date {
            origin.wall.addingTimeInterval((instant - origin.continuous) / .seconds(1))
        }

        /// Rings one alarm (the next whole second at least 0.6 s away, as a clock-time alarm is)
        /// or one 1-second timer, stops it once it sounds, and returns what it measured;
        /// `whileRinging` runs before the Stop (the CPU reading). With `clearTint` the alarm's tint
        /// is transparent, so that its notifications carry no tint image.
        func ringOnce(
            kind: String, index: Int, clearTint: Bool = false, whileRinging: (Rig) async throws -> Void = { _ in }
        ) async throws -> Sample {
            let id = UUID()
            let title = "\(kind) \(index)"
            var definition: AlarmDefinition
            if kind == "alarm" {
                let at = (Date().timeIntervalSince1970 + 0.6).rounded(.up)
                definition = Fixtures.definition(.fixed(Date(timeIntervalSince1970: at)), title: title)
            } else {
                definition = Fixtures.timer(1, title: title)
            }
            if clearTint { definition.tintColor = .clear }
            let scheduled = try await client.schedule(id: id, definition: definition).fireDate
            let call = try await monitor.waitForNotify(matching: { $0.summary == title && $0.urgency == .byte(2) })
            // Let the sound start and the device fill before stopping.
            try await Task.sleep(for: .milliseconds(150))
            try await whileRinging(self)
            let stopAt = Date()
            try await client.stop(id: id)
            let ended = try await soundEnded(for: id, in: agent)
            guard let scheduled, let received = call.receivedAt else {
                throw SandboxError.failed("no fire date or Notify time for \(title)")
            }
            return Sample(
                notify: .seconds(wall(received).timeIntervalSince(scheduled)),
                firstFrame: .seconds(ended.firstFrame.timeIntervalSince(scheduled)),
                stopToPlayer: .seconds(ended.stopRequested.timeIntervalSince(stopAt)),
                stopToSilence: .seconds(ended.dropCalled.timeIntervalSince(stopAt)),
                stopToDropReturned: .seconds(ended.silenced.timeIntervalSince(stopAt)))
        }

        func stop() {
            client.connection.close()
            sandbox.stop()
        }
    }

    /// p50 / p99 / max of `values`.
    static func line(_ values: [Duration]) -> String {
        "\(Measure.format(Measure.percentile(values, 0.5))) / \(Measure.format(Measure.percentile(values, 0.99))) / \(Measure.format(values.max() ?? .zero))"
    }

    /// The load average over the last minute, as `uptime` prints it.
    static func load() -> String {
        let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
        return text.split(separator: " ").prefix(3).joined(separator: " ")
    }

    /// A short name for the build in `folder`: the checkout's folder for `<checkout>/.build/release`,
    /// else the folder's own name.
    static func buildName(of folder: URL) -> String {
        let parts = folder.standardizedFileURL.pathComponents
        if parts.count >= 3, parts[parts.count - 2] == ".build" { return parts[parts.count - 3] }
        return folder.lastPathComponent
    }

    /// Today's agent and an older build's (`other`: its bin folder, holding `reveilled` and
    /// `reveille`), each in a sandbox of its own, ringing in turn, one alert each, so that both
    /// meet the same machine: the load other programs put on it comes and goes over a run, and
    /// alternating spreads it over both. Which agent rings first alternates too. With `clearTint`
    /// every alarm's tint is transparent: no tint image in its notifications (which an agent
    /// older than the tint images never sends), to tell that image's cost from the rest.
    static func compare(alerts: Int, other: URL, clearTint: Bool = false) async throws {
        print(
            "== alerts, today's agent and \(other.path)'s, alternately (release agents, dunst, ALSA capture paced to real time)"
                + (clearTint ? ", every tint clear (no tint image)" : ""))
        print("load average at the start: \(load())")
        let folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let today = try await Rig(name: "today", folder: folder)
        defer { today.stop() }
        let older = try await Rig(name: buildName(of: other), folder: other)
        defer { older.stop() }
        let rigs = [today, older]
        for kind in ["alarm", "timer"] {
            var samples: [[Sample]] = [[], []]
            for index in 0..<alerts {
                for turn in 0..<2 {
                    let which = (index + turn) % 2
                    samples[which].append(try await rigs[which].ringOnce(kind: kind, index: index, clearTint: clearTint))
                }
            }
            for (which, rig) in rigs.enumerated() {
                Measure.report("\(rig.name): \(kind)s, instant to Notify, p50 / p99 / max (\(alerts))", line(samples[which].map(\.notify)))
            }
            for (which, rig) in rigs.enumerated() {
                Measure.report("\(rig.name): \(kind)s, instant to first audio frame", line(samples[which].map(\.firstFrame)))
            }
            for (which, rig) in rigs.enumerated() {
                Measure.report("\(rig.name): \(kind)s, Stop call to snd_pcm_drop called", line(samples[which].map(\.stopToSilence)))
            }
        }
        print("load average at the end: \(load())")
    }

    static func run(alerts: Int) async throws {
        print("== alerts (release agent, dunst, ALSA capture paced to real time)")
        let folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        guard FileManager.default.isExecutableFile(atPath: folder.appendingPathComponent("reveilled").path) else {
            print("reveilled must be built beside reveille-bench: swift build -c release")
            return
        }
        let rig = try await Rig(name: "today", folder: folder)
        defer { rig.stop() }
        let (sandbox, agent, client, monitor, reveilled) = (rig.sandbox, rig.agent, rig.client, rig.monitor, rig.reveilled)
        func wall(_ instant: ContinuousClock.Instant) -> Date { rig.wall(instant) }

        var cpu: Double?
        for kind in ["alarm", "timer"] {
            var samples: [Sample] = []
            for index in 0..<alerts {
                samples.append(
                    try await rig.ringOnce(kind: kind, index: index) { rig in
                        if cpu == nil, kind == "alarm" { cpu = try await ringingCPU(pid: rig.agent.pid, seconds: 20) }
                    })
            }
            Measure.report(
                "\(kind)s: scheduled instant to Notify, p50 / p99 / max (\(alerts))", line(samples.map(\.notify)), target: "p99 < 5 ms")
            Measure.report(
                "\(kind)s: scheduled instant to first audio frame, p50 / p99 / max", line(samples.map(\.firstFrame)), target: "p99 < 30 ms")
            Measure.report("\(kind)s: Stop call to the player told (bus, engine, store)", line(samples.map(\.stopToPlayer)))
            // The file capture cannot say when a listener stops hearing it: the PipeWire section
            // below measures that at the sink.
            Measure.report("\(kind)s: Stop call to snd_pcm_drop called (in the agent)", line(samples.map(\.stopToSilence)))
            Measure.report("  to snd_pcm_drop returned", line(samples.map(\.stopToDropReturned)))
        }
        // Two hundred alarms due in the same second: how late the last notification and the last
        // first frame are. (8 kHz mono sound, so 200 paced capture streams stay light.)
        let burst = 200
        let soundURL = sandbox.home.appendingPathComponent("burst.wav")
        try WAVFile(frames: 800, channels: 1, sampleRate: 8_000) { frame, _ in Int16(frame % 200 * 50) }.write(to: soundURL)
        let due = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 4).rounded(.up))
        var burstIDs: [UUID] = []
        for index in 0..<burst {
            var definition = Fixtures.definition(.fixed(due), title: "burst \(index)")
            definition.sound = .named(soundURL.path)
            let id = UUID()
            _ = try await client.schedule(id: id, definition: definition)
            burstIDs.append(id)
        }
        let burstCalls = try await waitUntil("\(burst) notifications", timeout: .seconds(120)) {
            let calls = monitor.notifyCalls().filter { $0.urgency == .byte(2) && $0.summary.hasPrefix("burst ") }
            return calls.count >= burst ? calls : nil
        }
        try await Task.sleep(for: .seconds(1))
        for id in burstIDs { try await client.stop(id: id) }
        var lastFrame = Date.distantPast
        for id in burstIDs { lastFrame = max(lastFrame, try await soundEnded(for: id, in: agent).firstFrame) }
        let lastNotify = wall(burstCalls.compactMap(\.receivedAt).max() ?? .now)
        Measure.report(
            "\(burst) alarms in the same second: the last Notify call after the instant",
            Measure.format(.seconds(lastNotify.timeIntervalSince(due))))
        Measure.report(
            "\(burst) alarms in the same second: the last first audio frame after the instant",
            Measure.format(.seconds(lastFrame.timeIntervalSince(due))))
        try await offPool { try sandbox.closeAll() }

        // Recovery: kill -9 while an alert rings, start the agent again, and time how long until the
        // alert is posted again and sounds again.
        var current = agent
        var toNotify: [Duration] = []
        var toSound: [Duration] = []
        for index in 0..<10 {
            let id = UUID()
            let title = "crash \(index)"
            _ = try await client.schedule(id: id, definition: Fixtures.timer(0.5, title: title))
            try await monitor.waitForNotify(matching: { $0.summary == title && $0.urgency == .byte(2) })
            current.kill()
            _ = try await current.waitForExit(timeout: .seconds(10))
            let spawnedAt = Date()
            let spawnedInstant = ContinuousClock.now
            current = try sandbox.spawn(reveilled, ["--verbose"])
            let again = try await monitor.waitForNotify(matching: { call in
                call.summary == title && call.urgency == .byte(2) && (call.receivedAt ?? spawnedInstant) > spawnedInstant
            })
            try await waitForName(sandbox)
            try await client.stop(id: id)
            let ended = try await soundEnded(for: id, in: current)
            toNotify.append((again.receivedAt ?? spawnedInstant) - spawnedInstant)
            toSound.append(.seconds(ended.firstFrame.timeIntervalSince(spawnedAt)))
        }
        current.terminate()
        Measure.report(
            "kill -9 while ringing, restart to the alert posted again, median / max (10)",
            "\(Measure.format(Measure.percentile(toNotify, 0.5))) / \(Measure.format(toNotify.max() ?? .zero))", target: "< 1 s")
        Measure.report(
            "  restart to its sound again, median / max",
            "\(Measure.format(Measure.percentile(toSound, 0.5))) / \(Measure.format(toSound.max() ?? .zero))", target: "< 1 s")
        if let cpu {
            Measure.report(
                "agent CPU while one alert rings (20 s, volume ramp on, ALSA file capture)", String(format: "%.3f%% of a core", cpu),
                target: "< 2%")
        }
    }

    /// Waits until the agent owns its bus name again.
    static func waitForName(_ sandbox: DesktopSandbox) async throws {
        try sandbox.waitForBusName(AgentClient.busName, timeout: .seconds(20))
    }

    /// The agent's share of one core over `seconds` (`ProcessTable.cpuTime`, in clock ticks, so
    /// the window is long).
    static func ringingCPU(pid: Int32, seconds: Int) async throws -> Double {
        let before = ProcessTable.cpuTime(of: pid)
        let start = ContinuousClock.now
        try await Task.sleep(for: .seconds(seconds))
        return (ProcessTable.cpuTime(of: pid) - before) / (ContinuousClock.now - start) * 100
    }

    /// Waits for the agent's `Alert sound ended` log line for `id` and reads its wall-clock times.
    static func soundEnded(
        for id: UUID, in agent: SandboxProcess
    ) async throws -> (firstFrame: Date, stopRequested: Date, dropCalled: Date, silenced: Date) {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            for line in agent.standardError.split(separator: "\n") where line.contains("Alert sound ended") && line.contains("\(id)") {
                func value(_ key: String) -> Double? {
                    guard let range = line.range(of: "\(key)=") else { return nil }
                    return Double(line[range.upperBound...].prefix { $0 == "." || $0.isNumber })
                }
                if let first = value("firstFrame"), let requested = value("stopRequested"), let dropped = value("dropCalled"),
                    let silenced = value("silenced")
                {
                    return (
                        Date(timeIntervalSince1970: first), Date(timeIntervalSince1970: requested),
                        Date(timeIntervalSince1970: dropped), Date(timeIntervalSince1970: silenced)
                    )
                }
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        let tail = agent.standardError.split(separator: "\n").suffix(8).joined(separator: "\n")
        throw SandboxError.failed("the agent logged no end of the sound for \(id) in 10 s; its log ends:\n\(tail)")
    }
}
