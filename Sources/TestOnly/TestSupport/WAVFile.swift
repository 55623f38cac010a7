import Foundation

/// Small 16-bit PCM WAV files made on the fly, with samples a test can recognise in a capture.
package struct WAVFile: Sendable, Equatable {
    /// Frames per second.
    package let sampleRate: Int
    /// Interleaved channels per frame.
    package let channels: Int
    /// The samples, interleaved (`frames * channels` of them).
    package let samples: [Int16]

    /// Bytes per frame (2 bytes per sample).
    package var frameSize: Int { channels * 2 }
    /// How many frames it holds.
    package var frameCount: Int { samples.count / channels }
    /// The PCM data's size in bytes, which is what a raw capture of it holds.
    package var dataByteCount: Int { samples.count * 2 }

    /// A file of `frames` frames whose samples come from `sample(frame, channel)`.
    package init(frames: Int, channels: Int = 2, sampleRate: Int = 48_000, sample: (Int, Int) -> Int16) {
        self.sampleRate = sampleRate
        self.channels = channels
        var samples: [Int16] = []
        samples.reserveCapacity(frames * channels)
        for frame in 0..<frames {
            for channel in 0..<channels { samples.append(sample(frame, channel)) }
        }
        self.samples = samples
    }

    /// A file whose interleaved samples count up through the 16-bit range (-32767, -32766, …),
    /// skipping 0: the first 65534 samples are all different and none is silent, so a capture that
    /// drops, repeats or reorders anything does not match.
    package static func ramp(frames: Int, channels: Int = 2, sampleRate: Int = 48_000) -> WAVFile {
        WAVFile(frames: frames, channels: channels, sampleRate: sampleRate) { frame, channel in
            let step = (frame * channels + channel) % 65_534
            return Int16(step < 32_767 ? step - 32_767 : step - 32_766)
        }
    }

    /// The whole file: a RIFF/WAVE header, a `fmt ` chunk and a `data` chunk.
    package var data: Data {
        var data = Data()
        func append32(_ value: Int) { withUnsafeBytes(of: UInt32(value).littleEndian) { data.append(contentsOf: $0) } }
        func append16(_ value: Int) { withUnsafeBytes(of: UInt16(value).littleEndian) { data.append(contentsOf: $0) } }
        data.append(contentsOf: Array("RIFF".utf8))
        append32(36 + dataByteCount)
        data.append(contentsOf: Array("WAVEfmt ".utf8))
        append32(16)
        append16(1)  // PCM
        append16(channels)
        append32(sampleRate)
        append32(sampleRate * frameSize)
        append16(frameSize)
        append16(16)
        data.append(contentsOf: Array("data".utf8))
        append32(dataByteCount)
        for sample in samples { withUnsafeBytes(of: sample.littleEndian) { data.append(contentsOf: $0) } }
        return data
    }

    /// Writes the file to `url`.
    package func write(to url: URL) throws {
        try data.write(to: url)
    }
}
