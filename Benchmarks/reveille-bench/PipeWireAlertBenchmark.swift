import AlarmCore
import AlarmModel
import AlarmKit
import DBus
import Foundation
import TestSupport

/// Alerts through the sound server most desktops run: the release agent plays through PipeWire's
/// ALSA plugin to a null sink (PipeWire and WirePlumber, headless), whose monitor is recorded as it
/// arrives. Measures the time from a `Stop` call until the sink receives no more of the alarm's
/// audio (the last sound's arrival at the recorder, which runs in the sink's graph cycle), and the
/// agent's CPU while an alert rings through PipeWire.
enum PipeWireAlertBenchmark {
    static func run(alerts: Int) async throws {
        print("== alerts through PipeWire (release agent, PipeWire + WirePlumber, null sink recorded)")
        if let missing = PipeWireServer.availability() {
            Measure.report("PipeWire", "cannot run here: \(missing)", target: "runs")
            return
        }
        let folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let reveilled = folder.appendingPathComponent("reveilled").path
        let sandbox = try DesktopSandbox(startsNotificationServer: false)
        defer { sandbox.stop() }
        let pipewire = try PipeWireServer(in: sandbox)
        defer { pipewire.stop() }
        let agent = try sandbox.spawn(
            reveilled, ["--verbose", "--no-notifications", "--ramp", "0"],
            environment: ["ALSA_CONFIG_PATH": pipewire.alsaConfiguration.path])
        try sandbox.waitForBusName(AgentClient.busName, timeout: .seconds(20))
        let ownExecutable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        try sandbox.run(folder.appendingPathComponent("reveille").path, ["auth", "allow", ownExecutable])
        let client = AgentClient(connection: try DBusConnection.connect(address: sandbox.busAddress))
        defer { client.connection.close() }

        // A tone with no silent sample, so the last loud sample at the sink is the alarm's last.
        let tone = sandbox.home.appendingPathComponent("square.wav")
        try WAVFile(frames: 48_000, channels: 2, sampleRate: 48_000) { frame, _ in frame % 110 < 55 ? 12_000 : -12_000 }.write(to: tone)
        func definition(_ title: String) -> AlarmDefinition {
            var definition = Fixtures.timer(0.3, title: title)
            definition.sound = .named(tone.path)
            return definition
        }
        let speakers = try SpeakerRecording(pipewire)
        defer { speakers.stop() }

        /// Waits until the speakers play something recorded after `mark` samples.
        func waitForSound(after mark: Int) async throws {
            try await waitUntil("the alarm at the speakers", timeout: .seconds(20), detail: { agent.outputs() }) {
                (speakers.lastSound()?.index ?? -1) >= mark ? true : nil
            }
        }
        /// Waits until the speakers have been silent for `quiet` of recording.
        func waitForSilence(quiet: Int = 48_000 / 2 * 2) async throws {
            try await waitUntil("the speakers silent", timeout: .seconds(20)) {
                speakers.samples.count - (speakers.lastSound()?.index ?? 0) > quiet ? true : nil
            }
        }

        // The agent's CPU while one alert rings through PipeWire.
        let ringing = UUID()
        _ = try await client.schedule(id: ringing, definition: definition("CPU"))
        try await waitForSound(after: 0)
        let cpu = try await AlertBenchmark.ringingCPU(pid: agent.pid, seconds: 20)
        try await client.stop(id: ringing)
        try await waitForSilence()

        var toSinkSilence: [Duration] = []
        var toDrop: [Duration] = []
        for index in 0..<alerts {
            let id = UUID()
            let mark = speakers.samples.count
            _ = try await client.schedule(id: id, definition: definition("stop \(index)"))
            try await waitForSound(after: mark)
            try await Task.sleep(for: .milliseconds(200))
            let stopAt = Date()
            try await client.stop(id: id)
            try await waitForSilence()
            guard let last = speakers.lastSound() else { throw SandboxError.failed("nothing recorded for alert \(index)") }
            toSinkSilence.append(.seconds(max(0, last.arrived.timeIntervalSince(stopAt))))
            toDrop.append(.seconds(try await AlertBenchmark.soundEnded(for: id, in: agent).dropCalled.timeIntervalSince(stopAt)))
        }
        func line(_ values: [Duration]) -> String {
            "\(Measure.format(Measure.percentile(values, 0.5))) / \(Measure.format(Measure.percentile(values, 0.99))) / \(Measure.format(values.max() ?? .zero))"
        }
        Measure.report(
            "Stop to the sink's last alarm sample, p50 / p99 / max (\(alerts))", line(toSinkSilence), target: "< 50 ms")
        Measure.report("  of which Stop call to snd_pcm_drop called in the agent", line(toDrop))
        Measure.report("agent CPU while one alert rings through PipeWire (20 s)", String(format: "%.3f%% of a core", cpu), target: "< 1%")
    }
}
