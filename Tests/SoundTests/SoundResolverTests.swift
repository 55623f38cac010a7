import AlarmCore
import AlarmModel
import AlarmRecords
import AlarmDesktop
import Foundation
import Testing
import TestRequirements
import TestSupport

/// A temporary XDG data tree with sound themes, and a folder of Reveille's own sounds.
struct ThemeTree {
    let root: URL
    var dataHome: URL { root.appendingPathComponent("home/.local/share") }
    var dataDir: URL { root.appendingPathComponent("usr/share") }
    var ownSounds: URL { root.appendingPathComponent("own") }

    init() throws {
        root = Fixtures.temporaryDirectory("reveille-sound-themes")
        for folder in [dataHome, dataDir, ownSounds] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
    }

    /// Writes a small WAV as `<base>/sounds/<theme>/stereo/<name>.wav`.
    @discardableResult
    func addSound(_ name: String, theme: String, under base: URL, ext: String = "wav") throws -> URL {
        let folder = base.appendingPathComponent("sounds/\(theme)/stereo")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appendingPathComponent("\(name).\(ext)")
        try WAVFile.ramp(frames: 480).data.write(to: url)
        return url
    }

    func addIndex(theme: String, inherits: String, under base: URL) throws {
        let folder = base.appendingPathComponent("sounds/\(theme)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try "[Sound Theme]\nName=\(theme)\nInherits=\(inherits)\nDirectories=stereo\n\n[stereo]\nOutputProfile=stereo\n"
            .write(to: folder.appendingPathComponent("index.theme"), atomically: true, encoding: .utf8)
    }

    func resolver(theme: String = "freedesktop", own: [URL]? = nil) -> SoundResolver {
        SoundResolver(themeName: theme, dataHome: dataHome, dataDirectories: [dataDir], ownSoundFolders: own ?? [ownSounds])
    }

    func remove() { try? FileManager.default.removeItem(at: root) }
}

/// The repository's `sounds/` folder.
let repositorySounds = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("sounds")

@Suite("Sound resolution", .onItsOwnThread)
struct SoundResolverTests {
    @Test("The current theme wins, then the themes it inherits, then freedesktop")
    func themeInheritance() throws {
        let tree = try ThemeTree()
        defer { tree.remove() }
        try tree.addIndex(theme: "ocean", inherits: "middle", under: tree.dataDir)
        try tree.addIndex(theme: "middle", inherits: "freedesktop", under: tree.dataDir)
        let fromParent = try tree.addSound("alarm-clock-elapsed", theme: "middle", under: tree.dataDir)
        try tree.addSound("alarm-clock-elapsed", theme: "freedesktop", under: tree.dataDir)
        let resolver = tree.resolver(theme: "ocean")
        #expect(resolver.themeChain == ["ocean", "middle", "freedesktop"])
        #expect(resolver.resolve(.default).source == .theme(name: "alarm-clock-elapsed", url: fromParent))

        // The current theme's own file, in XDG_DATA_HOME, comes first.
        let own = try tree.addSound("alarm-clock-elapsed", theme: "ocean", under: tree.dataHome, ext: "oga")
        // (a WAV named .oga: libsndfile goes by the contents)
        #expect(resolver.resolve(.default).source == .theme(name: "alarm-clock-elapsed", url: own))
        // Without the theme, freedesktop's.
        #expect(tree.resolver(theme: "absent").resolve(.default).source.url?.path.contains("/freedesktop/") == true)
    }

    @Test("A miss drops the last -part of the name")
    func dropsParts() throws {
        let tree = try ThemeTree()
        defer { tree.remove() }
        let alarm = try tree.addSound("alarm-clock", theme: "freedesktop", under: tree.dataDir)
        let resolver = tree.resolver()
        #expect(resolver.themeSound(named: "alarm-clock-elapsed")?.url == alarm)
        #expect(resolver.resolve(.named("alarm-clock-elapsed-loud")).source == .theme(name: "alarm-clock", url: alarm))
        #expect(resolver.themeSound(named: "bell") == nil)
    }

    @Test("Without a theme sound: Reveille's own sound, then a tone; never silent")
    func fallbacks() throws {
        let tree = try ThemeTree()
        defer { tree.remove() }
        let resolved = tree.resolver(own: [tree.ownSounds, repositorySounds]).resolve(.default)
        #expect(resolved.source == .own(repositorySounds.appendingPathComponent("beeps.oga")))
        #expect(resolved.sound.frameCount > 0)

        let tone = tree.resolver(own: [tree.ownSounds]).resolve(.default)
        #expect(tone.source == .tone)
        #expect(tone.sound.samples.contains { abs(Int($0)) > 10_000 })

        // A missing or broken file at alert time falls back too.
        let broken = tree.root.appendingPathComponent("broken.wav")
        try Data("not audio".utf8).write(to: broken)
        #expect(
            tree.resolver(own: [repositorySounds]).resolve(.named("/nonexistent/x.wav")).source
                == .own(repositorySounds.appendingPathComponent("beeps.oga")))
        let fromBroken = tree.resolver(own: []).resolve(.named(broken.path))
        #expect(fromBroken.source == .tone)
        #expect(fromBroken.skipped.count == 1)
    }

    @Test("A name is Reveille's own sound first, then the theme's; the default is the theme's, then beeps")
    func ownSoundsByName() throws {
        let tree = try ThemeTree()
        defer { tree.remove() }
        let themeChimes = try tree.addSound("chimes", theme: "freedesktop", under: tree.dataDir)
        let resolver = tree.resolver(own: [tree.ownSounds, repositorySounds])
        #expect(resolver.resolve(.named("chimes")).source == .own(repositorySounds.appendingPathComponent("chimes.oga")))
        #expect(resolver.resolve(.named("bugle")).source == .own(repositorySounds.appendingPathComponent("bugle.oga")))
        try resolver.validate(.named("dawn"))
        // Without Reveille's own folders the theme's sound of that name plays.
        #expect(tree.resolver(own: []).resolve(.named("chimes")).source == .theme(name: "chimes", url: themeChimes))
        #expect(resolver.resolve(.default).source == .own(repositorySounds.appendingPathComponent("beeps.oga")))
        let alarm = try tree.addSound("alarm-clock-elapsed", theme: "freedesktop", under: tree.dataDir)
        #expect(resolver.resolve(.default).source == .theme(name: "alarm-clock-elapsed", url: alarm))
        // A name never climbs out of the sound folders: with a slash it is a file's path, and a
        // relative one is refused as such.
        #expect(throws: SoundError.relativePath(path: "../chimes")) { try resolver.validate(.named("../chimes")) }
        #expect(resolver.ownSound(named: "../chimes") == nil)
    }

    @Test("The choices: Reveille's own with how they sound, then each theme's by name, the default marked")
    func choices() throws {
        let tree = try ThemeTree()
        defer { tree.remove() }
        try tree.addIndex(theme: "ocean", inherits: "freedesktop", under: tree.dataDir)
        let oceanAlarm = try tree.addSound("alarm-clock-elapsed", theme: "ocean", under: tree.dataDir)
        try tree.addSound("alarm-clock-elapsed", theme: "freedesktop", under: tree.dataDir)
        try tree.addSound("bell", theme: "freedesktop", under: tree.dataDir, ext: "oga")
        try tree.addSound("complete", theme: "freedesktop", under: tree.dataHome)
        let choices = tree.resolver(theme: "ocean", own: [repositorySounds]).choices()
        #expect(choices.map(\.name) == ["beeps", "chimes", "dawn", "bugle", "alarm-clock-elapsed", "bell", "complete"])
        #expect(choices.filter(\.isDefault).map(\.path) == [oceanAlarm.path])
        #expect(choices.first { $0.name == "chimes" }?.description == "soft bell chimes, slowly falling")
        #expect(choices.first { $0.name == "alarm-clock-elapsed" }?.theme == "ocean")
        #expect(choices.first { $0.name == "bell" }?.theme == "freedesktop")
        #expect(choices.filter { $0.origin == .reveille }.count == 4)
    }

    @Test("A named file is played")
    func namedFile() throws {
        let tree = try ThemeTree()
        defer { tree.remove() }
        let file = tree.root.appendingPathComponent("mine.wav")
        try WAVFile.ramp(frames: 100, channels: 1, sampleRate: 22_050).data.write(to: file)
        let resolved = tree.resolver().resolve(.named(file.path))
        #expect(resolved.source == .file(file))
        #expect(resolved.sound.channels == 1 && resolved.sound.sampleRate == 22_050 && resolved.sound.frameCount == 100)
    }

    @Test("validate refuses a missing file, a folder, a non-audio file and an unknown theme name")
    func validation() throws {
        let tree = try ThemeTree()
        defer { tree.remove() }
        let resolver = tree.resolver()
        #expect(throws: SoundError.fileNotFound(path: "/nonexistent/alarm.wav")) {
            try resolver.validate(.named("/nonexistent/alarm.wav"))
        }
        #expect(throws: SoundError.notAFile(path: tree.root.path)) { try resolver.validate(.named(tree.root.path)) }
        let text = tree.root.appendingPathComponent("notes.txt")
        try Data("this is not a sound\n".utf8).write(to: text)
        do {
            try resolver.validate(.named(text.path))
            Issue.record("a text file was accepted")
        } catch {
            guard case .undecodable(let path, let reason) = error else { Issue.record("wrong error \(error)"); return }
            #expect(path == text.path)
            #expect(!reason.isEmpty)
            #expect(error.description.contains("cannot decode sound file \(text.path)"))
        }
        #expect(throws: SoundError.unknownThemeSound(name: "no-such-sound")) { try resolver.validate(.named("no-such-sound")) }
        try resolver.validate(.default)
        try resolver.validate(.named(repositorySounds.appendingPathComponent("beeps.oga").path))
    }
}

@Suite("Sound decoding", .onItsOwnThread)
struct SoundDecodingTests {
    @Test("The freedesktop theme's alarm-clock-elapsed.oga (Ogg Vorbis) decodes")
    func freedesktopOga() throws {
        let path = "/usr/share/sounds/freedesktop/stereo/alarm-clock-elapsed.oga"
        try #require(
            FileManager.default.fileExists(atPath: path),
            "sound-theme-freedesktop is not installed (\(path); scripts/install-deps --tests installs it)")
        let sound = try SoundFile.decode(path: path)
        #expect(sound.sampleRate == 48_000)
        #expect(sound.channels == 2)
        #expect(abs(Double(sound.frameCount) / 48_000 - 6.1) < 0.2)
        #expect(sound.samples.contains { abs(Int($0)) > 1_000 })
        // Its two channels are the same: it is kept once, and played on both.
        #expect(sound.keptChannels == 1)
        #expect(sound.samples.count == sound.frameCount * 2)
    }

    @Test("A sound whose channels are all alike is kept once and gives back every channel's samples; any difference keeps them all")
    func keptChannels() {
        let alike: [Int16] = [1, 1, 1, -7, -7, -7, 300, 300, 300]
        let kept = DecodedSound(samples: alike, channels: 3, sampleRate: 8_000)
        #expect(kept.keptChannels == 1 && kept.channels == 3 && kept.frameCount == 3)
        #expect(kept.samples == alike)
        #expect(kept.withKeptSamples { Array($0) } == [1, -7, 300])
        // One sample of the last frame differs: all three channels are kept as they are.
        let different: [Int16] = [1, 1, 1, -7, -7, -7, 300, 300, 301]
        let whole = DecodedSound(samples: different, channels: 3, sampleRate: 8_000)
        #expect(whole.keptChannels == 3 && whole.frameCount == 3)
        #expect(whole.samples == different)
        #expect(whole.withKeptSamples { Array($0) } == different)
        let mono = DecodedSound(samples: [4, 5, 6], channels: 1, sampleRate: 8_000)
        #expect(mono.keptChannels == 1 && mono.samples == [4, 5, 6])
    }

    @Test("The synthesized tone is loud enough and loops from silence")
    func tone() {
        let tone = DecodedSound.tone
        #expect(tone.channels == 2 && tone.sampleRate == 48_000)
        #expect(tone.samples.first == 0)
        #expect(tone.samples.contains { abs(Int($0)) > 10_000 })
    }
}
