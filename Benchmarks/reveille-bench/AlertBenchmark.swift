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

    static func run(alerts: Int) async throws {
        print("== alerts (release agent, dunst, ALSA capture paced to real time)")
        let folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let reveilled = folder.appendingPathComponent("reveilled").path
        guard FileManager.default.isExecutableFile(atPath: reveilled) else {
            print("reveilled must be built beside reveille-bench: swift build -c release")
            return
        }
        let sandbox = try DesktopSandbox(startsNotificationServer: true, pacedBytesPerSecond: 48_000 * 4)
        defer { sandbox.stop() }
        let agent = try sandbox.spawn(reveilled, ["--verbose"])
        try sandbox.waitForBusName(AgentClient.busName, timeout: .seconds(20))
        let ownExecutable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        try sandbox.run(folder.appendingPathComponent("reveille").path, ["auth", "allow", ownExecutable])
        let client = AgentClient(connection: try DBusConnection.connect(address: sandbox.busAddress))
        let monitor = try sandbox.monitorNotifyCalls(promptStamps: true)
        // The monitor stamps messages on the continuous clock; this maps them to the wall clock.
        let (wallOrigin, continuousOrigin) = (Date(), ContinuousClock.now)
        func wall(_ instant: ContinuousClock.Instant) -> Date {
            wallOrigin.addingTimeInterval((instant - continuousOrigin) / .seconds(1))
        }

        var cpu: Double?
        for kind in ["alarm", "timer"] {
            var samples: [Sample] = []
            for index in 0..<alerts {
                let id = UUID()
                let title = "\(kind) \(index)"
                let definition: AlarmDefinition
                if kind == "alarm" {
                    // The next whole second at least 0.6 s away: what a clock-time alarm looks like.
                    let at = (Date().timeIntervalSince1970 + 0.6).rounded(.up)
                    definition = Fixtures.definition(.fixed(Date(timeIntervalSince1970: at)), title: title)
                } else {
                    definition = Fixtures.timer(1, title: title)
                }
                let scheduled = try await client.schedule(id: id, definition: definition).fireDate
                let call = try await monitor.waitForNotify(matching: { $0.summary == title && $0.urgency == .byte(2) })
                // Let the sound start and the device fill before stopping.
                try await Task.sleep(for: .milliseconds(150))
                if cpu == nil, kind == "alarm" {
                    cpu = try await ringingCPU(pid: agent.pid, seconds: 20)
                }
                let stopAt = Date()
                try await client.stop(id: id)
                let ended = try await soundEnded(for: id, in: agent)
                guard let scheduled, let received = call.receivedAt else {
                    throw SandboxError.failed("no fire date or Notify time for \(title)")
                }
                samples.append(Sample(
                    notify: .seconds(wall(received).timeIntervalSince(scheduled)),
                    firstFrame: .seconds(ended.firstFrame.timeIntervalSince(scheduled)),
                    stopToPlayer: .seconds(ended.stopRequested.timeIntervalSince(stopAt)),
                    stopToSilence: .seconds(ended.dropCalled.timeIntervalSince(stopAt)),
                    stopToDropReturned: .seconds(ended.silenced.timeIntervalSince(stopAt))))
            }
            func line(_ values: [Duration]) -> String {
                "\(Measure.format(Measure.percentile(values, 0.5))) / \(Measure.format(Measure.percentile(values, 0.99))) / \(Measure.format(values.max() ?? .zero))"
            }
            Measure.report("\(kind)s: scheduled instant to Notify, p50 / p99 / max (\(alerts))", line(samples.map(\.notify)), target: "p99 < 5 ms")
            Measure.report("\(kind)s: scheduled instant to first audio frame, p50 / p99 / max", line(samples.map(\.firstFrame)), target: "p99 < 30 ms")
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
        let lastNotify = wall(burstCalls.compactMap(\.receivedAt).max() ?? continuousOrigin)
        Measure.report("\(burst) alarms in the same second: the last Notify call after the instant", Measure.format(.seconds(lastNotify.timeIntervalSince(due))))
        Measure.report("\(burst) alarms in the same second: the last first audio frame after the instant", Measure.format(.seconds(lastFrame.timeIntervalSince(due))))
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
            Measure.report("agent CPU while one alert rings (20 s, volume ramp on, ALSA file capture)", String(format: "%.3f%% of a core", cpu), target: "< 2%")
        }
        client.connection.close()
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
        throw SandboxError.failed("the agent logged no end of the sound for \(id)")
    }
}
