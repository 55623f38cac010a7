import AlarmDesktop
import Foundation
import Testing
import TestRequirements

/// Every format README says an alarm can ring (WAV, FLAC, Ogg Vorbis, Ogg Opus, MP3), decoded by
/// the agent's own decoder from files real encoders made (`Formats/README.md`): each must sound as
/// the tone it was made from, 880 Hz for 0.3 s at half of full scale, not merely open.
@Suite("Sound decoding: every format README claims", .onItsOwnThread)
struct SoundFormatTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Formats")

    /// The tone's pitch from its zero crossings (rising ones, per second), over the part that is
    /// not the encoder's padding or fade.
    static func pitch(of sound: DecodedSound) -> Double {
        let mono = stride(from: 0, to: sound.samples.count, by: sound.channels).map { Int(sound.samples[$0]) }
        let quarter = mono.count / 4
        let middle = mono[quarter..<(mono.count - quarter)]
        var rising = 0
        for (previous, next) in zip(middle, middle.dropFirst()) where previous < 0 && next >= 0 { rising += 1 }
        return Double(rising) / (Double(middle.count) / Double(sound.sampleRate))
    }

    @Test(
        "Each format decodes to the tone: 880 Hz, about 0.3 s, about half of full scale", arguments: ["wav", "flac", "ogg", "opus", "mp3"])
    func decodes(format: String) throws {
        let sound = try SoundFile.decode(path: Self.folder.appendingPathComponent("tone.\(format)").path)
        let seconds = Double(sound.frameCount) / Double(sound.sampleRate)
        // MP3 and Opus add an encoder's delay and padding of some milliseconds.
        #expect((0.29...0.40).contains(seconds), "\(format): \(seconds) s")
        #expect(abs(Self.pitch(of: sound) - 880) < 15, "\(format): \(Self.pitch(of: sound)) Hz")
        let peak = Double(sound.samples.map { abs(Int($0)) }.max() ?? 0) / 32_767
        #expect((0.4...0.62).contains(peak), "\(format): peak \(peak)")
    }

    @Test(
        "Reveille's own sounds decode, each starting and ending quiet so it loops without a click",
        arguments: ["beeps", "chimes", "dawn", "bugle"])
    func ownSounds(name: String) throws {
        let sound = try SoundFile.decode(path: repositorySounds.appendingPathComponent("\(name).oga").path)
        #expect(sound.sampleRate == 48_000 && sound.channels == 2, "\(name)")
        #expect(Double(sound.frameCount) / 48_000 >= 1.9, "\(name)")
        #expect(sound.samples.contains { abs(Int($0)) > 10_000 }, "\(name): never loud")
        #expect(sound.samples.prefix(64).allSatisfy { abs(Int($0)) < 1_000 }, "\(name): starts loud")
        #expect(sound.samples.suffix(960).allSatisfy { abs(Int($0)) < 1_000 }, "\(name): ends loud")
    }

    @Test("Reveille's own sounds are four, Ogg Vorbis, under 300 kB together")
    func ownSoundsSize() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: repositorySounds.path).filter { $0.hasSuffix(".oga") }.sorted()
        #expect(files == ["beeps.oga", "bugle.oga", "chimes.oga", "dawn.oga"])
        let bytes = try files.map {
            try FileManager.default.attributesOfItem(atPath: repositorySounds.appendingPathComponent($0).path)[.size] as? Int ?? 0
        }
        #expect(bytes.reduce(0, +) < 300_000, "\(bytes)")
        for file in files {
            let head = try FileHandle(forReadingFrom: repositorySounds.appendingPathComponent(file)).readData(ofLength: 64)
            #expect(head.starts(with: Array("OggS".utf8)) && head.range(of: Data("vorbis".utf8)) != nil, "\(file) is not Ogg Vorbis")
        }
    }
}
