import AlarmModel
import FoundationEssentials
import AlarmRecords
import Localization

/// Finds the sound an alert plays, so that an alarm never rings silently.
///
/// Order, for `.named(path)` (a name with a `/`, or ending in an audio extension): the file. For
/// `.named(name)`: Reveille's own sound of that name (`chimes`, in one of `ownSoundFolders`),
/// else that name in the sound theme. For `.default`, and after either of those misses: the
/// theme's `alarm-clock-elapsed`. Then Reveille's own `beeps`; then `DecodedSound.tone`,
/// synthesized in code.
///
/// Theme lookup follows the freedesktop Sound Theme specification, output profile `stereo`: the
/// current theme (the desktop's choice: ``DesktopSoundTheme``), the themes its `index.theme`
/// `Inherits` (depth first, each once), then `freedesktop`; under `$XDG_DATA_HOME/sounds`, then
/// each `$XDG_DATA_DIRS` entry's `sounds`; `<theme>/stereo/<name>.{oga,ogg,wav,flac}`. On a miss,
/// the last `-part` of the name is dropped and the lookup repeated (`alarm-clock-elapsed`,
/// `alarm-clock`, `alarm`).
package struct SoundResolver: Sendable {
    /// The name of the default alarm sound in the freedesktop sound theme.
    package static let defaultThemeName = "alarm-clock-elapsed"
    /// The name of Reveille's own sound an alarm rings when the theme has no alarm sound.
    package static let ownDefaultName = "beeps"
    /// Reveille's own sounds, made by `sounds/generate.py`, with how each sounds (a marked text,
    /// translated where it is shown).
    package static let ownSounds: [(name: String, description: String)] = [
        ("beeps", Translation.marked("rising two-tone beeps")),
        ("chimes", Translation.marked("soft bell chimes, slowly falling")),
        ("dawn", Translation.marked("a gentle rising melody")),
        ("bugle", Translation.marked("the Reveille bugle call")),
    ]
    /// File extensions tried in a theme and among Reveille's own sounds, in order.
    package static let themeExtensions = ["oga", "ogg", "wav", "flac"]

    /// Where a sound was found.
    package enum Source: Sendable, Equatable, CustomStringConvertible {
        /// The file the alarm names.
        case file(URL)
        /// A sound-theme file (`name` is the name that matched, maybe with parts dropped).
        case theme(name: String, url: URL)
        /// Reveille's own default sound.
        case own(URL)
        /// The tone synthesized in code.
        case tone

        package var description: String {
            switch self {
            case .file(let url): "file \(url.path)"
            case .theme(let name, let url): "theme sound \(name) (\(url.path))"
            case .own(let url): "Reveille's own sound (\(url.path))"
            case .tone: "a synthesized tone"
            }
        }

        /// The file, if any.
        package var url: URL? {
            switch self {
            case .file(let url), .theme(_, let url), .own(let url): url
            case .tone: nil
            }
        }
    }

    /// A sound found and decoded.
    package struct Resolved: Sendable {
        /// Where it came from.
        package let source: Source
        /// The decoded samples.
        package let sound: DecodedSound
        /// Candidates tried before it that existed but did not decode (for the log).
        package let skipped: [SoundError]
    }

    /// The current sound theme's name.
    package let themeName: String
    /// Sound-theme roots, in lookup order (`$XDG_DATA_HOME/sounds`, then `$XDG_DATA_DIRS/…/sounds`).
    package let themeRoots: [URL]
    /// Folders holding Reveille's own sounds, in lookup order.
    package let ownSoundFolders: [URL]

    /// A resolver with explicit folders.
    ///
    /// - Parameters:
    ///   - themeName: the current sound theme (GNOME's `org.gnome.desktop.sound theme-name`, say).
    ///   - dataHome: `$XDG_DATA_HOME`.
    ///   - dataDirectories: `$XDG_DATA_DIRS`, in order.
    ///   - ownSoundFolders: where Reveille's own sounds (`beeps.oga`…) may be: `<prefix>/share/reveille/sounds`, a
    ///     checkout's `sounds/`.
    package init(themeName: String = "freedesktop", dataHome: URL?, dataDirectories: [URL], ownSoundFolders: [URL]) {
        self.themeName = themeName.isEmpty ? "freedesktop" : themeName
        themeRoots = ([dataHome].compactMap { $0 } + dataDirectories).map { $0.appendingPathComponent("sounds") }
        self.ownSoundFolders = ownSoundFolders
    }

    /// A resolver reading `XDG_DATA_HOME` (default `~/.local/share`) and `XDG_DATA_DIRS` (default
    /// `/usr/local/share:/usr/share`) from `environment`.
    package init(
        themeName: String = "freedesktop", environment: [String: String] = ProcessInfo.processInfo.environment,
        ownSoundFolders: [URL]
    ) {
        let (dataHome, dirs) = InstalledFiles.dataFolders(environment: environment)
        self.init(themeName: themeName, dataHome: dataHome, dataDirectories: dirs, ownSoundFolders: ownSoundFolders)
    }

    /// Where an installed program finds Reveille's own sounds: `<prefix>/share/reveille/sounds` for
    /// an executable in `<prefix>/bin`.
    /// For a program run from a checkout (`.build/<triple>/debug/reveilled`), the checkout's
    /// `sounds/` comes after.
    package static func installedSoundFolders(executable: URL) -> [URL] {
        let installed = InstalledFiles.prefixShare(of: executable).appendingPathComponent("reveille/sounds")
        let checkout = InstalledFiles.checkout(of: executable, holding: "sounds/" + ownDefaultName + ".oga")
        return [installed] + [checkout?.appendingPathComponent("sounds")].compactMap { $0 }
    }

    // MARK: Resolving

    /// Whether `name` is a file path rather than a sound-theme name.
    package static func isFilePath(_ name: String) -> Bool { AlertConfiguration.AlertSound.isFilePath(name) }

    /// The files to try for `sound`, best first, ending with the tone.
    package func candidates(for sound: AlertConfiguration.AlertSound) -> [Source] {
        var result: [Source] = []
        if case .named(let name) = sound {
            if Self.isFilePath(name) {
                result.append(.file(URL(fileURLWithPath: AlertConfiguration.AlertSound.expandingTilde(name))))
            } else if let url = ownSound(named: name) {
                result.append(.own(url))
            } else if let found = themeSound(named: name) {
                result.append(.theme(name: found.name, url: found.url))
            }
        }
        if let found = themeSound(named: Self.defaultThemeName), !result.contains(.theme(name: found.name, url: found.url)) {
            result.append(.theme(name: found.name, url: found.url))
        }
        if let url = ownSound(named: Self.ownDefaultName), !result.contains(.own(url)) { result.append(.own(url)) }
        result.append(.tone)
        return result
    }

    /// Finds and decodes the sound for `sound`: the first candidate that decodes. Never fails: the
    /// last candidate is the synthesized tone.
    package func resolve(_ sound: AlertConfiguration.AlertSound) -> Resolved {
        var skipped: [SoundError] = []
        for candidate in candidates(for: sound) {
            guard let url = candidate.url else { return Resolved(source: .tone, sound: .tone, skipped: skipped) }
            do {
                return Resolved(source: candidate, sound: try SoundFile.decode(path: url.path), skipped: skipped)
            } catch {
                skipped.append(error)
            }
        }
        return Resolved(source: .tone, sound: .tone, skipped: skipped)
    }

    /// Checks a sound given at scheduling time: a file must exist and decode; a theme name must be
    /// found in the theme. `.default` is always accepted (it falls back to Reveille's own sound).
    ///
    /// - Throws: `SoundError` naming the file or name and why it is refused.
    package func validate(_ sound: AlertConfiguration.AlertSound) throws(SoundError) {
        guard case .named(let name) = sound else { return }
        if Self.isFilePath(name) {
            let path = AlertConfiguration.AlertSound.expandingTilde(name)
            guard path.hasPrefix("/") else { throw .relativePath(path: name) }
            try SoundFile.check(path: path)
        } else if let url = ownSound(named: name) {
            try SoundFile.check(path: url.path)
        } else {
            guard !name.isEmpty, let found = themeSound(named: name) else { throw .unknownThemeSound(name: name) }
            try SoundFile.check(path: found.url.path)
        }
    }

    // MARK: Reveille's own sounds

    /// The file of Reveille's own sound `name` (`chimes.oga`), in the first of `ownSoundFolders`
    /// that has it.
    package func ownSound(named name: String) -> URL? {
        guard !name.isEmpty, !name.contains("/"), !name.hasPrefix(".") else { return nil }
        for folder in ownSoundFolders {
            for ext in Self.themeExtensions {
                let url = folder.appendingPathComponent("\(name).\(ext)")
                if FileManager.default.fileExists(atPath: url.path) { return url }
            }
        }
        return nil
    }

    // MARK: Choosing

    /// Every sound a person may give by name, as `reveille sounds` lists them: Reveille's own
    /// (with how each sounds, in `translate`'s language), then each theme's of the chain (a name
    /// once, where the lookup finds it), by name. The one an alarm without a sound of its own
    /// rings is marked.
    package func choices(translate: (String) -> String = { $0 }) -> [SoundChoice] {
        let defaultSource = candidates(for: .default).first
        var choices: [SoundChoice] = Self.ownSounds.compactMap { sound in
            guard let url = ownSound(named: sound.name) else { return nil }
            return SoundChoice(
                name: sound.name, origin: .reveille, path: url.path, description: translate(sound.description),
                isDefault: defaultSource == .own(url))
        }
        var seen = Set(choices.map(\.name))
        for theme in themeChain {
            var names: [(name: String, url: URL)] = []
            for root in themeRoots {
                let folder = root.appendingPathComponent(theme).appendingPathComponent("stereo")
                guard let files = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { continue }
                for file in files.sorted() {
                    let url = folder.appendingPathComponent(file)
                    guard Self.themeExtensions.contains(url.pathExtension.lowercased()) else { continue }
                    let name = url.deletingPathExtension().lastPathComponent
                    // As the lookup finds it: the first theme, root and extension that has it.
                    guard !seen.contains(name), themeSound(named: name)?.url == url else { continue }
                    seen.insert(name)
                    names.append((name, url))
                }
            }
            choices += names.sorted { $0.name < $1.name }.map { found in
                SoundChoice(
                    name: found.name, origin: .theme, theme: theme, path: found.url.path,
                    isDefault: defaultSource == .theme(name: found.name, url: found.url))
            }
        }
        return choices
    }

    // MARK: The sound theme

    /// The themes searched, in order: the current one, its ancestors through `Inherits`, then
    /// `freedesktop`; each once.
    package var themeChain: [String] {
        var chain: [String] = []
        func visit(_ theme: String) {
            guard !theme.isEmpty, !theme.contains("/"), !chain.contains(theme) else { return }
            chain.append(theme)
            for parent in inherits(of: theme) { visit(parent) }
        }
        visit(themeName)
        visit("freedesktop")
        return chain
    }

    /// The `Inherits` list of `theme`'s `index.theme` (the first one found under the roots).
    func inherits(of theme: String) -> [String] {
        for root in themeRoots {
            let index = root.appendingPathComponent(theme).appendingPathComponent("index.theme")
            guard let text = try? String(contentsOf: index, encoding: .utf8) else { continue }
            var inSection = false
            for rawLine in text.split(whereSeparator: \.isNewline) {
                let line = rawLine.trimmingWhitespace(newlines: false)
                if line.hasPrefix("[") {
                    inSection = line == "[Sound Theme]"
                } else if inSection, let equals = line.firstIndex(of: "="),
                    line[..<equals].trimmingWhitespace(newlines: false) == "Inherits"
                {
                    return line[line.index(after: equals)...].split(separator: ",")
                        .map { $0.trimmingWhitespace(newlines: false) }.filter { !$0.isEmpty }
                }
            }
            return []
        }
        return []
    }

    /// The file for theme sound `name`, dropping the last `-part` of the name on each miss.
    package func themeSound(named name: String) -> (name: String, url: URL)? {
        guard !name.isEmpty, !name.contains("/") else { return nil }
        let chain = themeChain
        var current = Substring(name)
        while true {
            for theme in chain {
                for root in themeRoots {
                    let folder = root.appendingPathComponent(theme).appendingPathComponent("stereo")
                    for ext in Self.themeExtensions {
                        let url = folder.appendingPathComponent("\(current).\(ext)")
                        if FileManager.default.fileExists(atPath: url.path) { return (String(current), url) }
                    }
                }
            }
            guard let dash = current.lastIndex(of: "-") else { return nil }
            current = current[..<dash]
        }
    }
}
