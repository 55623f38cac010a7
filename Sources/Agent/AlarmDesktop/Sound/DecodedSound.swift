import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// A sound decoded to interleaved signed 16-bit samples, ready to loop on a PCM.
///
/// A sound whose channels all carry the same samples keeps only one of them and plays it on every
/// channel: the stock alarm sounds (the freedesktop theme's `alarm-clock-elapsed` and Reveille's
/// own) are such stereo, so the sound an idle agent keeps decoded takes half the memory (575 KB
/// instead of 1.15 MB for `alarm-clock-elapsed`'s 6.1 s at 48 kHz). What is played is the same.
package struct DecodedSound: Sendable, Equatable {
    /// The kept samples: interleaved frames of `keptChannels` samples each.
    private let kept: [Int16]
    /// Samples kept per frame: 1 when every channel carries the same samples, else `channels`.
    package let keptChannels: Int
    /// Channels per frame.
    package let channels: Int
    /// Frames per second.
    package let sampleRate: Int

    /// Interleaved samples, `frameCount * channels` of them (made from the kept ones: for tests
    /// and checks, not for playback, which reads them in place with `withKeptSamples`).
    package var samples: [Int16] {
        guard keptChannels != channels else { return kept }
        return kept.flatMap { sample in repeatElement(sample, count: channels) }
    }
    /// How many frames the sound holds.
    package var frameCount: Int { kept.count / keptChannels }
    /// How long one pass of the sound lasts.
    package var duration: Duration { .nanoseconds(Int64(frameCount) * 1_000_000_000 / Int64(max(sampleRate, 1))) }
    /// Bytes per frame in `S16_LE`.
    package var bytesPerFrame: Int { channels * 2 }

    /// A sound from interleaved samples; `samples.count` must be a multiple of `channels`.
    package init(samples: [Int16], channels: Int, sampleRate: Int) {
        precondition(channels > 0 && sampleRate > 0 && samples.count % channels == 0, "malformed sound")
        self.channels = channels
        self.sampleRate = sampleRate
        if channels > 1, Self.channelsAreAlike(samples, channels: channels) {
            kept = stride(from: 0, to: samples.count, by: channels).map { samples[$0] }
            keptChannels = 1
        } else {
            kept = samples
            keptChannels = channels
        }
    }

    /// Calls `body` with the kept samples (frames of `keptChannels` samples each).
    package func withKeptSamples<Result>(_ body: (UnsafeBufferPointer<Int16>) throws -> Result) rethrows -> Result {
        try kept.withUnsafeBufferPointer(body)
    }

    /// Whether every frame of `samples` has the same sample on each of its `channels`.
    private static func channelsAreAlike(_ samples: [Int16], channels: Int) -> Bool {
        samples.withUnsafeBufferPointer { buffer in
            var start = 0
            while start < buffer.count {
                let first = buffer[start]
                for channel in 1..<channels where buffer[start + channel] != first { return false }
                start += channels
            }
            return true
        }
    }

    /// The last resort, synthesized in code so that an alarm never rings silently: two short
    /// 880 Hz / 1320 Hz beeps and a rest, 1.2 s, 48 kHz stereo, with soft edges so it loops cleanly.
    package static let tone: DecodedSound = {
        let rate = 48_000
        let beeps: [(start: Double, frequency: Double)] = [(0.0, 880), (0.25, 1_320)]
        let length = 0.15, fade = 0.008, peak = 0.5
        let frames = Int(1.2 * Double(rate))
        var samples = [Int16](repeating: 0, count: frames * 2)
        for frame in 0..<frames {
            let time = Double(frame) / Double(rate)
            var value = 0.0
            for beep in beeps where time >= beep.start && time < beep.start + length {
                let local = time - beep.start
                let edge = min(local, length - local)
                let envelope = edge < fade ? 0.5 - 0.5 * cos(Double.pi * edge / fade) : 1
                value += envelope * sin(2 * Double.pi * beep.frequency * local)
            }
            let sample = Int16((value * peak * 32_767).rounded())
            samples[frame * 2] = sample
            samples[frame * 2 + 1] = sample
        }
        return DecodedSound(samples: samples, channels: 2, sampleRate: rate)
    }()
}
