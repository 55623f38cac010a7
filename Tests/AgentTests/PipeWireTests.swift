import AlarmKit
import Foundation
import StressTesting
import Testing
import TestRequirements
import TestSupport

/// The agent ringing through the real PipeWire and WirePlumber (headless, a null sink as the
/// speakers, their monitor recorded), where ALSA `default` is PipeWire's ALSA plugin, as on most
/// desktops. The sandbox's other suites keep their own ALSA configurations (the file capture).
@Suite("Agent: ringing through PipeWire", .onItsOwnThread, .serialized, .timeLimit(.minutes(5)))
struct PipeWireTests {
    /// The loudest sample's magnitude in `samples`.
    static func peak(_ samples: ArraySlice<Int16>) -> Int {
        samples.reduce(0) { max($0, abs(Int($1))) }
    }

    /// A sandbox with PipeWire, and the agent playing through it (no notifications).
    static func start(agentArguments: [String] = []) async throws -> (AgentFixture, PipeWireServer, SandboxProcess) {
        try #require(Built.unavailable == nil, "\(Built.unavailable ?? "")")
        try #require(PipeWireServer.availability() == nil, "\(PipeWireServer.availability() ?? "")")
        let fixture = try await AgentFixture.start(startingAgent: false)
        do {
            let sandbox = fixture.sandbox
            let pipewire = try await offPool { try PipeWireServer(in: sandbox) }
            let agent = try sandbox.spawn(
                Built.path("reveilled"), ["--no-notifications"] + agentArguments,
                environment: ["ALSA_CONFIG_PATH": pipewire.alsaConfiguration.path])
            try await offPool { try sandbox.waitForBusName(AgentClient.busName, timeout: .seconds(30)) }
            return (fixture, pipewire, agent)
        } catch {
            fixture.stop()
            throw error
        }
    }

    @Test("An alarm rings through PipeWire: the speakers play it, the agent stays under 5 % of a core, and Stop silences it")
    func ringsThroughPipeWire() async throws {
        let (fixture, pipewire, agent) = try await Self.start(agentArguments: ["--ramp", "0", "--ring-timeout", "0"])
        defer { fixture.stop() }
        let recording = try pipewire.recordSpeakers()

        // Before the alarm the speakers are silent, even while the agent opens its output to
        // tell `reveille status` whether sound can be played (a stream made and closed again):
        // a second of recording, waited out in full, with a status asked in its middle.
        try await waitUntil("the recording to start", timeout: .seconds(20)) { PipeWireServer.samples(of: recording).count > 0 ? () : nil }
        let asked = try await fixture.reveille("status")
        #expect(asked.status == .exited(0) && asked.output.contains("sound    available"), "\(asked)")
        let quiet = try await waitUntil("a second of the speakers' recording", timeout: .seconds(20)) { () -> [Int16]? in
            let samples = PipeWireServer.samples(of: recording)
            return samples.count >= 2 * 48_000 ? samples : nil
        }
        #expect(
            Self.peak(quiet[...]) == 0,
            "the speakers played \(quiet.filter { $0 != 0 }.count) samples before the alarm, loudest \(Self.peak(quiet[...])), while status opened the output"
        )

        let title = #"Tea "Earl Grey" \ strong"#
        let timer = try await fixture.reveille("timer", "1s", "--title", title)
        try #require(timer.status == .exited(0), "\(timer)")
        let id = timer.line
        // The agent's stream appears in PipeWire once the alert rings.
        // (The only playback stream in the sandbox; its process is on its client object.)
        let stream = try await waitUntil(
            "the agent's stream in PipeWire", timeout: .seconds(30), detail: { agent.outputs() }
        ) { try pipewire.nodes(ofClass: "Stream/Output/Audio").first }
        print(
            "PipeWireTests: the agent's stream: \(stream.properties.filter { $0.key.hasPrefix("application.") || $0.key.hasPrefix("media.") || $0.key == "node.name" })"
        )
        // What a volume mixer lists: Reveille, its icon, the alarm's title; and the alarm role.
        #expect(stream.properties["application.name"] == "Reveille")
        #expect(stream.properties["application.id"] == "io.github.reveille.Reveille")
        #expect(stream.properties["application.icon-name"] == "io.github.reveille.Reveille")
        #expect(stream.properties["media.name"] == title)
        #expect(stream.properties["media.role"] == "Alarm")

        // alsa-lib and PipeWire's client library are loaded while it rings, and only then (below).
        let ringingLibraries = ProcessTable.mappedLibraries(of: agent.pid)
        #expect(ringingLibraries.contains { $0.hasPrefix("libasound.so") }, "\(ringingLibraries.sorted())")
        #expect(ringingLibraries.contains { $0.hasPrefix("libpipewire-0.3.so") }, "\(ringingLibraries.sorted())")

        // While it rings, the agent waits in poll() for room in PipeWire's buffer: it must not spin.
        let before = ProcessTable.cpuTime(of: agent.pid)
        let clockBefore = ContinuousClock.now
        try await Task.sleep(for: .seconds(3))
        let used = ProcessTable.cpuTime(of: agent.pid) - before
        let elapsed = ContinuousClock.now - clockBefore
        let share = used / elapsed
        print(
            "PipeWireTests: agent CPU while ringing through PipeWire: \(String(format: "%.1f", share * 100)) % of a core (\(used) in \(elapsed))"
        )
        #expect(share < 0.05, "the agent used \(used) of processor time in \(elapsed) while ringing")

        // The speakers played the alarm: the recording is loud while it rings.
        let ringing = PipeWireServer.samples(of: recording)
        let lastSecond = ringing.suffix(48_000 * 2)
        #expect(lastSecond.count == 48_000 * 2, "the recording holds \(ringing.count) samples")
        #expect(Self.peak(lastSecond) > 8_000, "the speakers' loudest sample in the last second was \(Self.peak(lastSecond))")

        // Stop: the speakers fall silent and the stream goes away.
        let stop = try await fixture.reveille("stop", id)
        #expect(stop.status == .exited(0), "\(stop)")
        try await waitUntil("the agent's stream to leave PipeWire", timeout: .seconds(10)) {
            try pipewire.nodes(ofClass: "Stream/Output/Audio").contains { $0.id == stream.id } ? nil : true
        }
        // The recorder's own buffer still holds the last moment before the end: judge the half
        // second that follows a second of recording.
        let stopped = PipeWireServer.samples(of: recording).count
        try await waitUntil("1.5 s more of recording", timeout: .seconds(10)) {
            PipeWireServer.samples(of: recording).count >= stopped + 3 * 48_000 ? true : nil
        }
        let after = PipeWireServer.samples(of: recording)[(stopped + 2 * 48_000)...]
        #expect(Self.peak(after) == 0, "the speakers still played (peak \(Self.peak(after))) a second after the stream ended")
        // Once silent, the agent unloads alsa-lib and, with it, PipeWire's client library: an agent
        // waiting for its next alarm keeps neither resident.
        let loaded = {
            ProcessTable.mappedLibraries(of: agent.pid).filter { $0.hasPrefix("libasound.so") || $0.hasPrefix("libpipewire-0.3.so") }
        }
        try await waitUntil(
            "the agent to unload alsa-lib and PipeWire's client library", timeout: .seconds(10), detail: { "\(loaded().sorted())" }
        ) {
            loaded().isEmpty ? true : nil
        }
        recording.terminate()
        #expect(agent.isRunning, "\(CrashLog.summary(of: agent.standardError))")
    }

    /// The `volume` line of `reveille status`.
    static func volumeLine(_ fixture: AgentFixture) async throws -> String {
        let status = try await fixture.reveille("status")
        try #require(status.status == .exited(0), "\(status)")
        return status.output.split(separator: "\n").first { $0.hasPrefix("volume") }.map(String.init) ?? status.output
    }

    /// Waits (up to 20 s) until the agent reads the sink as `expected` says: a change made with
    /// `wpctl` reaches PipeWire's ALSA plugin, which the agent reads, a moment later, and on a
    /// loaded machine WirePlumber may still be setting up the new sink. Returns the last line.
    static func waitForVolumeLine(_ fixture: AgentFixture, _ what: String, _ expected: (String) -> Bool) async throws -> String {
        var line = ""
        return try await waitUntil("the agent to read the sink \(what)", timeout: .seconds(20), every: .milliseconds(100), detail: { line })
        {
            line = try await volumeLine(fixture)
            return expected(line) ? line : nil
        }
    }

    @Test(
        "Silent mode on PipeWire: status reads the default sink as its slider shows it; --unmute-to 50 rings a sink muted at 100 % at 50 %, and puts it back"
    )
    func silentModeOnTheSink() async throws {
        let (fixture, pipewire, agent) = try await Self.start(agentArguments: ["--ramp", "0", "--ring-timeout", "0", "--unmute-to", "50"])
        defer { fixture.stop() }
        func sink() throws -> String {
            try pipewire.wpctl(["get-volume", "@DEFAULT_AUDIO_SINK@"]).trimmingCharacters(in: .whitespacesAndNewlines)
        }

        try pipewire.wpctl(["set-volume", "@DEFAULT_AUDIO_SINK@", "0.4"])
        _ = try await Self.waitForVolumeLine(fixture, "audible at 40 %") { $0.contains("audible (PipeWire's default output at 40%)") }

        try pipewire.wpctl(["set-volume", "@DEFAULT_AUDIO_SINK@", "1.0"])
        try pipewire.wpctl(["set-mute", "@DEFAULT_AUDIO_SINK@", "1"])
        #expect(try sink() == "Volume: 1.00 [MUTED]")
        let muted = try await Self.waitForVolumeLine(fixture, "muted") { $0.contains("muted (PipeWire's default output)") }
        #expect(muted.contains("turn it up to 50%"), "\(muted)")

        // What the muted speakers play before the alarm: a whole second of their recording (on
        // PipeWire 1.4 it began with pw-record's own AU header until it was told --raw:
        // PipeWireServer.recorderArguments).
        let recording = try pipewire.recordSpeakers()
        let before = try await waitUntil("a second of the muted speakers' recording", timeout: .seconds(20)) { () -> [Int16]? in
            let samples = PipeWireServer.samples(of: recording)
            return samples.count >= 2 * 48_000 ? samples : nil
        }
        let loud = before.indices.filter { before[$0] != 0 }
        #expect(
            loud.isEmpty,
            "the muted speakers played \(loud.count) samples before the alarm, the first at \(loud.first.map { Double($0) / 96_000 } ?? 0) s, loudest \(Self.peak(before[...]))"
        )
        let timer = try await fixture.reveille("timer", "1s", "--title", "Muted")
        try #require(timer.status == .exited(0), "\(timer)")
        // While it rings the sink is unmuted at 50 %, as the slider would show, and the alarm is heard.
        let raised = try await waitUntil("the sink turned up", timeout: .seconds(20), detail: { agent.outputs() }) {
            try sink() == "Volume: 0.50" ? true : nil
        }
        #expect(raised)
        let ringing = try await waitUntil("a second of the alarm at the speakers", timeout: .seconds(20)) { () -> Int? in
            let peak = Self.peak(PipeWireServer.samples(of: recording).suffix(48_000 * 2)[...])
            return peak > 1_000 ? peak : nil
        }
        // The speakers' monitor carries the sink's volume (monitor.channel-volumes): 50 % on the
        // slider is 0.125 in amplitude (cubic), so the alarm is heard, well below full scale.
        print("PipeWireTests: the alarm on a sink raised to 50 %: loudest sample \(ringing)")
        #expect(ringing < 32_768 / 4, "the alarm played at \(ringing) of 32767 on a sink raised to 50 %")
        let ringingLine = try await Self.volumeLine(fixture)
        #expect(ringingLine.contains("raised while an alarm rings (PipeWire's default output at 50%)"), "\(ringingLine)")

        // Stopped: the sink is muted at 100 % again, exactly as the person left it.
        let stop = try await fixture.reveille("stop", timer.line)
        #expect(stop.status == .exited(0), "\(stop)")
        let restored = try await waitUntil("the sink put back", timeout: .seconds(20), detail: { agent.outputs() }) {
            try sink() == "Volume: 1.00 [MUTED]" ? true : nil
        }
        #expect(restored)
        recording.terminate()
        #expect(agent.isRunning, "\(CrashLog.summary(of: agent.standardError))")
    }

    @Test("Killed while it holds the sink raised: the next agent puts the sink back muted at 100 %, as the person left it")
    func killedWhileRaised() async throws {
        let (fixture, pipewire, agent) = try await Self.start(
            agentArguments: ["--ramp", "0", "--ring-timeout", "0", "--unmute-to", "50", "--verbose"])
        defer { fixture.stop() }
        func sink() throws -> String {
            try pipewire.wpctl(["get-volume", "@DEFAULT_AUDIO_SINK@"]).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        try pipewire.wpctl(["set-volume", "@DEFAULT_AUDIO_SINK@", "1.0"])
        try pipewire.wpctl(["set-mute", "@DEFAULT_AUDIO_SINK@", "1"])
        _ = try await Self.waitForVolumeLine(fixture, "muted") { $0.contains("muted (PipeWire's default output)") }
        let timer = try await fixture.reveille("timer", "1s", "--title", "Crash")
        try #require(timer.status == .exited(0), "\(timer)")
        try await waitUntil("the sink turned up", timeout: .seconds(20), detail: { agent.outputs() }) {
            try sink() == "Volume: 0.50" ? () : nil
        }

        agent.kill()
        let ended = try await agent.waitForExit(timeout: .seconds(10))
        #expect(ended == .signaled(SIGKILL), "\(ended)")
        #expect(try sink() == "Volume: 0.50", "a killed agent put nothing back itself")

        // The next agent (without --unmute-to, so the alarm still ringing does not raise it
        // again) replays the journal at its start.
        let restarted = try fixture.sandbox.spawn(
            Built.path("reveilled"), ["--no-notifications", "--ramp", "0", "--ring-timeout", "0"],
            environment: ["ALSA_CONFIG_PATH": pipewire.alsaConfiguration.path])
        try await offPool { try fixture.sandbox.waitForBusName(AgentClient.busName, timeout: .seconds(30)) }
        try await waitUntil("the sink put back", timeout: .seconds(20), detail: { restarted.outputs() }) {
            try sink() == "Volume: 1.00 [MUTED]" ? () : nil
        }
        #expect(
            restarted.outputs().contains("Putting back the output volume left raised by an agent that stopped"), "\(restarted.outputs())")
        let stop = try await fixture.reveille("stop", timer.line)
        #expect(stop.status == .exited(0), "\(stop)")
        #expect(try sink() == "Volume: 1.00 [MUTED]")
        #expect(restarted.isRunning, "\(CrashLog.summary(of: restarted.standardError))")
    }

    @Test("reveille status says whether sound can be played now: PipeWire running, stopped, and back")
    func soundStatusFollowsTheServer() async throws {
        let (fixture, pipewire, _) = try await Self.start()
        defer { fixture.stop() }

        func soundLine() async throws -> String {
            let status = try await fixture.reveille("status")
            try #require(status.status == .exited(0), "\(status)")
            return status.output.split(separator: "\n").first { $0.hasPrefix("sound") }.map(String.init) ?? status.output
        }
        let running = try await soundLine()
        #expect(running.contains("available (") && !running.contains("unavailable"), "\(running)")
        try await offPool { pipewire.stop() }
        let stopped = try await soundLine()
        #expect(stopped.contains("unavailable"), "with PipeWire stopped: \(stopped)")
        try await offPool { try pipewire.start() }
        let back = try await soundLine()
        #expect(back.contains("available (") && !back.contains("unavailable"), "with PipeWire back: \(back)")
        print("PipeWireTests: sound status running / stopped / back:\n  \(running)\n  \(stopped)\n  \(back)")
    }
}
