import Foundation
import Synchronization

/// PipeWire and WirePlumber, headless, in a `DesktopSandbox`: the sound server most desktops run,
/// with a null sink as the speakers, its monitor recorded, so that a test hears what a person
/// would hear through the real server.
///
/// `pipewire` and `wireplumber` run in the sandbox (its `XDG_RUNTIME_DIR` and session bus) and end
/// with it. `alsaConfiguration` is a self-contained ALSA configuration whose `default` is
/// PipeWire's ALSA plugin: give it to one program as `ALSA_CONFIG_PATH`; nothing else in the
/// sandbox, nor the machine's own ALSA `default`, changes.
package final class PipeWireServer: Sendable {
    /// The programs it needs (Debian's `pipewire`, `pipewire-bin`, `wireplumber`, `pipewire-alsa`).
    package static let programs = ["pipewire", "wireplumber", "pw-cli", "pw-dump", "pw-record", "wpctl"]

    /// The null sink's node name: the speakers.
    package let sinkName = "reveille-speakers"
    /// A self-contained ALSA configuration: `default` is PipeWire.
    package let alsaConfiguration: URL
    let sandbox: DesktopSandbox
    /// The running `pipewire` and `wireplumber`.
    private let processes = Mutex<[SandboxProcess]>([])

    /// Why it cannot run here, or nil.
    package static func availability() -> String? {
        let missing = programs.filter { Executables.find($0) == nil }
        if !missing.isEmpty { return "missing \(missing.joined(separator: ", ")) (scripts/install-deps --tests installs them)" }
        if pluginPath == nil { return "PipeWire's ALSA plugin is not installed (pipewire-alsa)" }
        return nil
    }

    /// The ALSA PCM plugin of pipewire-alsa.
    static let pluginPath: String? = {
        let candidates = ["/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib"]
            .map { $0 + "/alsa-lib/libasound_module_pcm_pipewire.so" }
        return candidates.first { FileManager.default.fileExists(atPath: $0) }
    }()

    /// Starts PipeWire and WirePlumber in `sandbox`, adds the null sink, makes it the default, and
    /// returns once WirePlumber has taken it as the default.
    package init(in sandbox: DesktopSandbox) throws {
        if let missing = Self.availability() { throw SandboxError.failed("PipeWire cannot run: \(missing)") }
        self.sandbox = sandbox
        let folder = sandbox.root.appendingPathComponent("pipewire")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        alsaConfiguration = folder.appendingPathComponent("alsa.conf")
        try """
        pcm_type.pipewire { lib "\(Self.pluginPath!)" }
        ctl_type.pipewire { lib "\(Self.pluginPath!.replacingOccurrences(of: "pcm_pipewire", with: "ctl_pipewire"))" }
        pcm.!default { type pipewire }
        ctl.!default { type pipewire }

        """.write(to: alsaConfiguration, atomically: true, encoding: .utf8)

        try start()
    }

    /// Starts `pipewire` and `wireplumber` (again, after `stop()`), adds the null sink and makes it
    /// the default.
    package func start() throws {
        let socket = sandbox.runtimeDirectory.appendingPathComponent("pipewire-0").path
        let server = try sandbox.spawn("pipewire")
        processes.withLock { $0.append(server) }
        _ = try Poll.blocking("PipeWire's socket", timeout: .seconds(15)) {
            FileManager.default.fileExists(atPath: socket) ? true : nil
        }
        let manager = try sandbox.spawn("wireplumber")
        processes.withLock { $0.append(manager) }
        try sandbox.run(
            "pw-cli",
            [
                "create-node", "adapter",
                "{ factory.name=support.null-audio-sink node.name=\(sinkName) media.class=Audio/Sink monitor.channel-volumes=true "
                    + "object.linger=1 audio.position=[FL FR] }",
            ])
        let sink = try Poll.blocking("the null sink in PipeWire", timeout: .seconds(15)) { try node(named: sinkName) }
        _ = try Poll.blocking("WirePlumber to make the null sink the default", timeout: .seconds(15)) { () throws -> Bool? in
            _ = try? sandbox.run("wpctl", ["set-default", String(sink.id)])
            return try sandbox.run("wpctl", ["inspect", "@DEFAULT_AUDIO_SINK@"]).contains("node.name = \"\(sinkName)\"") ? true : nil
        }
    }

    /// Stops `wireplumber` and `pipewire`, as when the sound server goes away, and waits until
    /// they have ended.
    package func stop() {
        let running = processes.withLock { processes in
            defer { processes.removeAll() }
            return processes
        }
        for process in running.reversed() { process.stop(grace: .seconds(5)) }
        try? FileManager.default.removeItem(at: sandbox.runtimeDirectory.appendingPathComponent("pipewire-0"))
    }

    /// A node PipeWire has: its id and properties.
    package struct Node: Sendable {
        /// The object id.
        package var id: Int
        /// Its properties, those with text values, as `pw-dump` shows them.
        package var properties: [String: String]
    }

    /// Every node of a media class (`Stream/Output/Audio`: the streams playing), from `pw-dump`.
    package func nodes(ofClass mediaClass: String) throws -> [Node] {
        try allNodes().filter { $0.properties["media.class"] == mediaClass }
    }

    /// The node with this `node.name`, if PipeWire has one.
    package func node(named name: String) throws -> Node? {
        try allNodes().first { $0.properties["node.name"] == name }
    }

    private func allNodes() throws -> [Node] {
        // pw-dump can print a half-written object while the graph changes under it: ask again.
        var attempt = 0
        var parsed: [[String: Any]]?
        while parsed == nil {
            attempt += 1
            let dump = try sandbox.run("pw-dump")
            parsed = (try? JSONSerialization.jsonObject(with: Data(dump.utf8))) as? [[String: Any]]
            if parsed == nil && attempt == 5 { throw SandboxError.failed("pw-dump printed no JSON five times:\n\(dump)") }
        }
        return (parsed ?? []).compactMap { object in
            guard object["type"] as? String == "PipeWire:Interface:Node", let id = object["id"] as? Int,
                let info = object["info"] as? [String: Any], let properties = info["props"] as? [String: Any]
            else { return nil }
            var texts: [String: String] = [:]
            for (key, value) in properties {
                if let text = value as? String {
                    texts[key] = text
                } else if let number = value as? NSNumber {
                    texts[key] = number.stringValue
                }
            }
            return Node(id: id, properties: texts)
        }
    }

    /// Records what the speakers play (the sink's monitor), in real time, as raw 16-bit stereo
    /// samples at 48 kHz into the returned process's standard output file, until it is stopped.
    package func recordSpeakers() throws -> SandboxProcess {
        try sandbox.spawn("pw-record", Self.recorderArguments(target: sinkName) + ["-"])
    }

    /// `pw-record`'s arguments for raw 16-bit stereo samples at 48 kHz from `target`, written to
    /// the file argument that follows (`-`: standard output).
    ///
    /// PipeWire 1.x's `pw-record` writes `-` through libsndfile as an AU file unless told `--raw`
    /// (pw-cat.c, `format_from_filename`: `spa_streq(filename, "-") ? SF_FORMAT_AU`), so a
    /// recording began with its 24-byte header, which reads as loud samples (".snd" backwards,
    /// 28260 and 11891; then 24, 3, 48000, 2), with no sound at all at the sink: the "loud sample
    /// with nothing playing" on Debian 13's PipeWire 1.4.2, heard with no Reveille running.
    /// 0.3.65 (Debian 12) has no `--raw` and writes `-` raw.
    static func recorderArguments(target: String) -> [String] {
        ["--target", target, "--rate", "48000", "--channels", "2", "--format", "s16"] + (recorderTakesRaw ? ["--raw"] : [])
    }

    /// Whether this `pw-record` has `--raw` (its help lists it).
    static let recorderTakesRaw: Bool = {
        guard let program = Executables.find("pw-record") else { return false }
        let help = (try? Executables.run(program, ["--help"])) ?? ""
        return help.contains("--raw")
    }()

    /// The samples a recording holds so far (`recordSpeakers()`).
    package static func samples(of recording: SandboxProcess) -> [Int16] {
        let data = (try? Data(contentsOf: recording.standardOutputURL)) ?? Data()
        return data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self).prefix(data.count / 2)) }
    }

    /// Runs `wpctl` with these arguments on the default sink (`set-mute`, `set-volume`, `get-volume`).
    @discardableResult
    package func wpctl(_ arguments: [String]) throws -> String {
        try sandbox.run("wpctl", arguments)
    }
}
