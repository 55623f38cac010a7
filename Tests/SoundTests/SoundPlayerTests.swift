import AlarmDesktop
import Foundation
import Testing
import TestRequirements
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Playback to ALSA captured to files. The test process's alsa-lib has already read (or will read)
/// the system configuration, so players open the sandbox's configuration file themselves
/// (`SoundDevice.configuration`, `snd_pcm_open_lconf`).
@Suite("Sound playback", .onItsOwnThread, .serialized, .timeLimit(.minutes(5)))
struct SoundPlayerTests {
    init() {
        // The capture writes into pv's pipe; when a sandbox stops first, a write must fail with
        // EPIPE, as it does in the agent, rather than end the whole test process.
        signal(SIGPIPE, SIG_IGN)
    }

    /// 48 kHz stereo S16: bytes per second.
    static let rate = 192_000

    /// A 0.25 s constant-amplitude square wave (±20000): one loop is 48 000 bytes.
    static let square = DecodedSound(
        samples: (0..<12_000).flatMap { frame -> [Int16] in
            let value: Int16 = (frame / 24) % 2 == 0 ? 20_000 : -20_000
            return [value, value]
        }, channels: 2, sampleRate: 48_000)

    /// The same square wave with the right channel inverted: two channels that differ, both kept.
    static let stereoSquare = DecodedSound(
        samples: (0..<12_000).flatMap { frame -> [Int16] in
            let value: Int16 = (frame / 24) % 2 == 0 ? 20_000 : -20_000
            return [value, -value]
        }, channels: 2, sampleRate: 48_000)

    /// Waits (test-side polling) until `condition` holds; throws naming `what` after `timeout`.
    static func wait(_ what: String, _ timeout: Duration = .seconds(10), until condition: () -> Bool) async throws {
        try await waitUntil(what, timeout: timeout) { condition() ? () : nil }
    }

    /// Waits until a capture that trails behind a pipe has stopped growing (its size the same for
    /// `still`); returns that size. Throws when it still grows after `timeout`.
    static func waitUntilSettled(
        _ what: String, still: Duration = .milliseconds(300), timeout: Duration = .seconds(12), _ size: () -> Int
    ) async throws -> Int {
        var last = size()
        var since = ContinuousClock.now
        return try await waitUntil("\(what) to stop growing for \(still)", timeout: timeout, detail: { "last size \(last)" }) {
            let now = size()
            if now != last {
                last = now
                since = .now
                return nil
            }
            return ContinuousClock.now - since >= still ? now : nil
        }
    }

    /// The largest absolute sample in `samples[range]` (clamped to the array).
    static func peak(_ samples: [Int16], _ range: Range<Int>) -> Int {
        let clamped = range.clamped(to: samples.startIndex..<samples.endIndex)
        return samples[clamped].reduce(0) { max($0, abs(Int($1))) }
    }

    @Test(
        "Loops, ramps up, and stop() ends the stream at once (sandbox ALSA capture, real-time paced); a sound kept as one channel plays on both",
        arguments: ["alike channels", "different channels"])
    func loopsRampsAndStops(channels: String) async throws {
        let sound = channels == "alike channels" ? Self.square : Self.stereoSquare
        #expect(sound.keptChannels == (channels == "alike channels" ? 1 : 2))
        try #require(DesktopSandbox.availability() == nil, "cannot run here: \(DesktopSandbox.availability() ?? "")")
        let sandbox = try DesktopSandbox(startsNotificationServer: false, pacedBytesPerSecond: Self.rate)
        defer { sandbox.stop() }
        let player = SoundPlayer(
            sound: sound,
            configuration: .init(
                device: .configuration(file: sandbox.alsa.configurationURL), rampDuration: .seconds(1), startGain: 0.05))
        let before = ContinuousClock.now
        try await player.start()
        #expect(player.isPlaying)
        #expect(player.periodFrames > 0)
        let loopBytes = sound.frameCount * sound.bytesPerFrame

        // Beyond one loop (and past the 1 s ramp): 1.5 s of sound.
        try await Self.wait("1.5 s of sound in the capture") { sandbox.capturedByteCount > Self.rate * 3 / 2 }
        #expect(sandbox.capturedByteCount > 2 * loopBytes)
        let first = try #require(player.firstFrameInstant)
        #expect(first > before && first - before < .seconds(1))
        #expect(player.firstFrameDate != nil)

        player.stop()
        let writtenAtStop = player.framesWritten
        await player.waitUntilFinished()
        #expect(!player.isPlaying)
        // Here the thread may be inside snd_pcm_writei, which on this file PCM blocks writing its
        // buffer into pv's pipe (paced to real time): bounded by that buffer (about 100 ms). The
        // null-device test below measures the wake-up itself.
        let stopToDrop = try #require(player.stopToDrop)
        #expect(stopToDrop < .milliseconds(250))
        print("stop to snd_pcm_drop: \(stopToDrop); to its return: \(player.stopToSilence ?? .zero)")
        // No more than one period was handed to ALSA after stop().
        #expect(player.framesWritten - writtenAtStop <= player.periodFrames)

        // The capture (trailing behind through pv's pipe) stops growing. snd_pcm_drop discards what
        // was still queued in ALSA's buffer (that is what makes Stop immediate), so the capture ends
        // between one buffer short of what was handed to ALSA and all of it, never beyond.
        let finalBytes = player.framesWritten * sound.bytesPerFrame
        let settled = try await Self.waitUntilSettled("the capture after Stop") { sandbox.capturedByteCount }
        let more = try await occurrences(of: "bytes captured once the capture had settled after Stop", over: .seconds(1)) {
            sandbox.capturedByteCount
        }
        #expect(more.count == 0, "the capture goes on growing after Stop: \(more)")
        let bufferBytes = Int(Double(sound.sampleRate) * 0.1 * 1.5) * sound.bytesPerFrame
        #expect(settled <= finalBytes)
        #expect(settled >= finalBytes - bufferBytes, "captured \(settled) of \(finalBytes) bytes")

        // Seamless loop at full volume after the ramp: the samples of the third loop (past 1 s of
        // ramp: loops 5 and 6) repeat the sound exactly.
        let samples = sandbox.capturedSamples()
        let loopSamples = sound.samples.count
        let fullStart = 5 * loopSamples
        if samples.count >= fullStart + loopSamples {
            #expect(Array(samples[fullStart..<(fullStart + loopSamples)]) == sound.samples)
        } else {
            Issue.record("capture too short: \(samples.count) samples")
        }
        // The ramp: quiet first (about 5% of 20000), louder later, full after the ramp.
        let tenth = 48_000 * 2 / 10
        #expect(Self.peak(samples, 0..<tenth) < 2_000)
        #expect(Self.peak(samples, (5 * tenth)..<(6 * tenth)) > Self.peak(samples, 0..<tenth) * 3)
        #expect(Self.peak(samples, (11 * tenth)..<(12 * tenth)) == 20_000)
    }

    @Test("stop() wakes the audio thread and drops at once (null PCM, never blocking)")
    func stopIsImmediate() async throws {
        let folder = Fixtures.temporaryDirectory("reveille-sound-null")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = folder.appendingPathComponent("asound.conf")
        try "pcm.!default { type null }\n".write(to: config, atomically: true, encoding: .utf8)
        var worst = Duration.zero
        for _ in 0..<5 {
            let player = SoundPlayer(sound: Self.square, configuration: .init(device: .configuration(file: config)))
            try await player.start()
            try await Self.wait("a second of sound written") { player.framesWritten > 48_000 }
            player.stop()
            await player.waitUntilFinished()
            worst = max(worst, try #require(player.stopToSilence))
        }
        print("stop to silence (null PCM), worst of 5: \(worst)")
        // At once: not after the sound or ALSA's buffer plays out (the benchmark measures the time).
        #expect(worst < .milliseconds(500))
    }

    @Test("Two players are independent: stopping one leaves the other playing")
    func independentPlayers() async throws {
        let pv = try #require(
            ["/usr/bin/pv", "/usr/local/bin/pv"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }),
            "pv is not installed (scripts/install-deps --tests installs it)")
        let folder = Fixtures.temporaryDirectory("reveille-sound-two")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let captureA = folder.appendingPathComponent("a.raw")
        let captureB = folder.appendingPathComponent("b.raw")
        func pcm(_ name: String, _ capture: URL) -> String {
            """
            pcm.\(name) {
                type file
                slave.pcm { type null }
                file "|\(pv) -q -B 4096 -L \(Self.rate) >> '\(capture.path)'"
                format "raw"
            }

            """
        }
        let config = folder.appendingPathComponent("asound.conf")
        try (pcm("first", captureA) + pcm("second", captureB)).write(to: config, atomically: true, encoding: .utf8)
        func size(_ url: URL) -> Int { (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0 }

        let a = SoundPlayer(sound: Self.square, configuration: .init(device: .configuration(file: config, name: "first")))
        let b = SoundPlayer(sound: Self.square, configuration: .init(device: .configuration(file: config, name: "second")))
        try await a.start()
        try await b.start()
        try await Self.wait("both captures past 100 kB") { size(captureA) > 100_000 && size(captureB) > 100_000 }
        a.stop()
        await a.waitUntilFinished()
        #expect(b.isPlaying)
        let aFinal = a.framesWritten * 4
        try await Self.wait("A's capture to hold all A wrote (\(aFinal) bytes)") { size(captureA) >= aFinal }
        let bBefore = size(captureB)
        let more = try await occurrences(of: "bytes of A captured after all it wrote", over: .seconds(1)) { size(captureA) }
        #expect(more.count == 0 && size(captureA) == aFinal, "\(more)")
        #expect(size(captureB) > bBefore + Self.rate / 2, "B: \(b.failure ?? "no failure")")
        #expect(b.isPlaying, "B: \(b.failure ?? "no failure")")
        b.stop()
        await b.waitUntilFinished()
        #expect(!b.isPlaying)
    }

    @Test("No device: start reports unavailable, once, with nothing on stderr")
    func noDevice() async throws {
        let folder = Fixtures.temporaryDirectory("reveille-sound-none")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = folder.appendingPathComponent("asound.conf")
        try "# no default PCM here\npcm.other { type null }\n".write(to: config, atomically: true, encoding: .utf8)
        let stderrFile = folder.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: stderrFile.path, contents: nil)

        // Capture this process's stderr (fd 2) while the players try to open the device.
        fflush(nil)
        let saved = dup(2)
        let capture = open(stderrFile.path, O_WRONLY)
        dup2(capture, 2)
        var errors: [SoundPlayerError] = []
        for device in [
            SoundDevice.configuration(file: config), .configuration(file: config, name: "missing"), .system(name: "reveille-no-such-pcm"),
        ] {
            let player = SoundPlayer(sound: Self.square, configuration: .init(device: device))
            do {
                try await player.start()
                Issue.record("started on \(device)")
                player.stop()
            } catch let error as SoundPlayerError {
                errors.append(error)
            }
            await player.waitUntilFinished()
            #expect(!player.isPlaying)
        }
        fflush(nil)
        dup2(saved, 2)
        close(saved)
        close(capture)

        // Other tests running meanwhile write to this process's stderr too: look for alsa-lib's own
        // messages ("ALSA lib pcm.c:2666:(snd_pcm_open_noupdate) Unknown PCM ...").
        let printed = try String(contentsOf: stderrFile, encoding: .utf8)
        #expect(!printed.contains("ALSA lib"), "stderr: \(printed)")
        #expect(errors.count == 3)
        let firsts = errors.map { error -> Bool in
            if case .unavailable(_, _, let first) = error { return first }
            return true
        }
        #expect(firsts.filter { $0 }.count <= 1)
        #expect(errors.dropFirst().allSatisfy { if case .unavailable(_, _, false) = $0 { true } else { false } })
        if case .unavailable = SoundPlayer.outputStatus {} else { Issue.record("status \(SoundPlayer.outputStatus)") }
        #expect(errors.first?.description.contains("no sound output") == true)
    }
}
