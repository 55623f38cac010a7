import Foundation
import Testing
import TestRequirements
@testable import TestSupport

/// ALSA's `default` device captured to a file, with aplay as the player.
@Suite("ALSA capture", .onItsOwnThread, .requires(sandboxMissing), .timeLimit(.minutes(5)))
struct AlsaCaptureTests {
    /// The index of the first sample where `captured` and `expected` differ (a length difference
    /// counts), or `nil` when they are equal; keeps failure messages short.
    func firstDifference(_ captured: [Int16], _ expected: [Int16]) -> Int? {
        if let index = zip(captured, expected).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset {
            return index
        }
        return captured.count == expected.count ? nil : min(captured.count, expected.count)
    }

    @Test("aplay of N frames to default captures exactly N frames' bytes, sample for sample")
    func exactCapture() async throws {
        let sandbox = try DesktopSandbox(startsNotificationServer: false)
        defer { stopAndExpectNothingLeft(sandbox) }
        // aplay writes whole periods: 12 000 frames are 12 periods of 1000.
        let wav = WAVFile.ramp(frames: 12_000, channels: 2, sampleRate: 48_000)
        let file = sandbox.root.appendingPathComponent("ramp.wav")
        try wav.write(to: file)
        #expect(sandbox.capturedByteCount == 0)

        let player = try sandbox.spawn("aplay", ["-q", "-D", "default", "--period-size=1000", "--buffer-size=4000", file.path])
        #expect(try await player.waitForExit(timeout: .seconds(20)) == .exited(0), "\(player.outputs())")
        #expect(sandbox.capturedByteCount == 12_000 * wav.frameSize)
        #expect(sandbox.capturedByteCount == wav.dataByteCount)
        let difference = firstDifference(sandbox.capturedSamples(), wav.samples)
        #expect(difference == nil, "the capture differs from the file at sample \(difference ?? -1)")
        #expect(sandbox.alsa.captureFiles == [sandbox.captureURL])
    }

    @Test("aplay pads its last period with silence, and the capture shows exactly that")
    func lastPeriodPadded() async throws {
        let sandbox = try DesktopSandbox(startsNotificationServer: false)
        defer { stopAndExpectNothingLeft(sandbox) }
        let wav = WAVFile.ramp(frames: 12_345, channels: 2, sampleRate: 48_000)
        let file = sandbox.root.appendingPathComponent("ramp.wav")
        try wav.write(to: file)
        let player = try sandbox.spawn("aplay", ["-q", "--period-size=1000", "--buffer-size=4000", file.path])
        #expect(try await player.waitForExit(timeout: .seconds(20)) == .exited(0), "\(player.outputs())")
        #expect(sandbox.capturedByteCount == 13_000 * wav.frameSize)
        let captured = sandbox.capturedSamples()
        let difference = firstDifference(Array(captured.prefix(wav.samples.count)), wav.samples)
        #expect(difference == nil, "the capture differs from the file at sample \(difference ?? -1)")
        #expect(captured.dropFirst(wav.samples.count).allSatisfy { $0 == 0 })
    }

    @Test("Each stream gets its own capture file; the capture joins them in order")
    func streamsAccumulate() async throws {
        let sandbox = try DesktopSandbox(startsNotificationServer: false)
        defer { stopAndExpectNothingLeft(sandbox) }
        let first = WAVFile(frames: 1000, channels: 1, sampleRate: 8000) { frame, _ in Int16(frame + 1) }
        let second = WAVFile(frames: 500, channels: 1, sampleRate: 8000) { frame, _ in Int16(-frame - 1) }
        for (index, wav) in [first, second].enumerated() {
            let file = sandbox.root.appendingPathComponent("\(index).wav")
            try wav.write(to: file)
            let player = try sandbox.spawn("aplay", ["-q", "--period-size=250", "--buffer-size=1000", file.path])
            #expect(try await player.waitForExit(timeout: .seconds(20)) == .exited(0), "\(player.outputs())")
        }
        #expect(sandbox.alsa.captureFiles.map(\.lastPathComponent) == ["capture.raw", "capture.raw.0001"])
        #expect(sandbox.capturedByteCount == 1500 * 2)
        let difference = firstDifference(sandbox.capturedSamples(), first.samples + second.samples)
        #expect(difference == nil, "the capture differs from the two files at sample \(difference ?? -1)")
        sandbox.alsa.removeCaptures()
        #expect(sandbox.capturedByteCount == 0)
    }

    @Test("The ALSA configuration is self-contained: the system's alsa.conf is never read")
    func selfContained() async throws {
        let sandbox = try DesktopSandbox(startsNotificationServer: false)
        defer { stopAndExpectNothingLeft(sandbox) }
        let text = try String(contentsOf: sandbox.alsa.configurationURL, encoding: .utf8)
        let directives = text.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("#") }
        #expect(!directives.contains { $0.contains("<") || $0.contains("@hooks") || $0.contains("alsa.conf") })
        // `sysdefault` is defined by every system alsa.conf (through the card functions); here it
        // does not exist at all, and nothing tried to evaluate the system's definition.
        let player = try sandbox.spawn("aplay", ["-q", "-D", "sysdefault", "/dev/null"])
        #expect(try await player.waitForExit(timeout: .seconds(20)) != .exited(0))
        #expect(player.standardError.contains("Unknown PCM sysdefault"), "\(player.outputs())")
        #expect(!player.standardError.contains("snd_func"), "\(player.outputs())")
        // `null` is there for programs that ask for it by name, and captures nothing.
        let wav = WAVFile.ramp(frames: 100)
        let file = sandbox.root.appendingPathComponent("null.wav")
        try wav.write(to: file)
        let toNull = try sandbox.spawn("aplay", ["-q", "-D", "null", file.path])
        #expect(try await toNull.waitForExit(timeout: .seconds(20)) == .exited(0), "\(toNull.outputs())")
        #expect(sandbox.capturedByteCount == 0)
    }

    @Test("With pacing, the capture grows at real time: never ahead of the clock, and not instantly")
    func pacedCapture() throws {
        let rate = 48_000 * 4  // 48 kHz, stereo, 16-bit
        let sandbox = try DesktopSandbox(startsNotificationServer: false, pacedBytesPerSecond: rate)
        defer { stopAndExpectNothingLeft(sandbox) }
        let wav = WAVFile.ramp(frames: 48_000 * 3)  // 3 s
        let file = sandbox.root.appendingPathComponent("three-seconds.wav")
        try wav.write(to: file)

        // Sampled on this thread (not with Task.sleep, which a busy test pool may delay), so every
        // sample's time is when its size was read.
        let started = ContinuousClock.now
        let player = try sandbox.spawn("aplay", ["-q", file.path])
        var samples: [(seconds: Double, bytes: Int)] = []
        func seconds(_ duration: Duration) -> Double {
            Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        }
        while sandbox.capturedByteCount < wav.dataByteCount, ContinuousClock.now - started < .seconds(30) {
            let bytes = sandbox.capturedByteCount
            samples.append((seconds(ContinuousClock.now - started), bytes))
            Thread.sleep(forTimeInterval: 0.05)
        }
        let complete = seconds(ContinuousClock.now - started)
        print("paced capture: 3 s of sound captured in \(complete) s; \(samples.count) samples")
        if let oneSecond = samples.first(where: { $0.seconds >= 1 }) {
            print("paced capture: \(oneSecond.bytes) bytes (\(Double(oneSecond.bytes) / Double(rate)) s) after \(oneSecond.seconds) s")
        }

        #expect(sandbox.capturedByteCount == wav.dataByteCount)
        // Real time cannot be outrun: at no moment is more captured than the clock allows (one pv
        // tick of slack). Unpaced, all 3 s would be there within milliseconds.
        let ahead = samples.filter { Double($0.bytes) > Double(rate) * ($0.seconds + 0.25) }
        #expect(ahead.isEmpty, "ahead of real time: \(ahead)")
        #expect(complete >= 2.7, "3 s of sound captured in \(complete) s")
        // Loosely: it keeps going (a loaded machine only makes it slower).
        #expect(complete < 20)
        #expect(try player.waitForExit(timeout: .seconds(10)) == .exited(0), "\(player.outputs())")
        let difference = firstDifference(sandbox.capturedSamples(), wav.samples)
        #expect(difference == nil, "the capture differs from the file at sample \(difference ?? -1)")
    }
}
