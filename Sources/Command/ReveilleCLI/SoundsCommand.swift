import AlarmKit
import AlarmProtocol
import AlarmRecords
import ArgumentParser
import CommandLineText
import FoundationEssentials
import Localization

/// `reveille sounds`: the sounds an alarm can ring with, and a way to hear one.
struct SoundsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sounds",
        abstract: "List the sounds an alarm can ring with, or hear one.",
        discussion: """
            Lists Reveille's own sounds and those of the desktop's sound theme (GNOME's or Plasma's \
            choice; freedesktop otherwise), each by the name --sound takes, and says how to give a \
            file. The agent plays them: `reveille sounds play NAME` rings one through it for a few \
            seconds, as an alert would, on the same output.

            Examples:
              reveille sounds
              reveille sounds play chimes
              reveille sounds play ~/Music/birds.ogg --for 8s
              reveille add 7:30 --sound bugle
            """,
        subcommands: [List.self, Play.self],
        defaultSubcommand: List.self)

    /// `reveille sounds list` (and `reveille sounds`).
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List the sounds an alarm can ring with.",
            discussion: "Examples:\n  reveille sounds\n  reveille sounds list --json | jq -r '.[].name'")

        @Flag(help: "Print a JSON array of sounds: name, origin (reveille or theme), theme, path, description, default.")
        var json = false

        func run() async throws {
            try await reportingFailures {
                let session = try await AgentSession.open()
                let sounds = try await session.run { try await $0.sounds() }
                if json {
                    let encoder = JSONEncoder()
                    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                    print(String(decoding: try encoder.encode(sounds.map(SoundJSON.init)), as: UTF8.self))
                } else {
                    print(Self.text(sounds))
                }
            }
        }

        /// A sound as `sounds --json` prints it.
        struct SoundJSON: Encodable {
            var name, origin, theme, path, description: String
            var `default`: Bool

            init(_ sound: SoundChoice) {
                (name, origin, theme, path, description) = (sound.name, sound.origin.rawValue, sound.theme, sound.path, sound.description)
                `default` = sound.isDefault
            }
        }

        /// The list as a person reads it: Reveille's own sounds, the theme's, then how to give a file.
        static func text(_ sounds: [SoundChoice]) -> String {
            var lines: [String] = []
            let width = sounds.map { DisplayWidth.of(AlarmListFormat.cleaned($0.name)) }.max() ?? 0
            func line(_ sound: SoundChoice) -> String {
                let name = AlarmListFormat.cleaned(sound.name)
                // A theme's sound has no description: nothing is shown for it (cleaned would write "-").
                var about = [sound.description].filter { !$0.isEmpty }.map(AlarmListFormat.cleaned)
                if sound.isDefault { about.append(Translation.text("(the default)")) }
                guard !about.isEmpty else { return "  " + name }
                let padding = String(repeating: " ", count: width - DisplayWidth.of(name))
                return "  " + name + padding + "  " + about.joined(separator: " ")
            }
            let own = sounds.filter { $0.origin == .reveille }
            if !own.isEmpty {
                lines.append(Translation.text("Reveille's sounds:"))
                lines += own.map(line)
            }
            for theme in Self.themes(of: sounds) {
                lines.append(Translation.format("The sound theme “%s”:", AlarmListFormat.cleaned(theme)))
                lines += sounds.filter { $0.origin == .theme && $0.theme == theme }.map(line)
            }
            if sounds.isEmpty { lines.append(Translation.text("No sounds found.")) }
            lines.append(
                Translation.text(
                    "Give one by name (--sound chimes), or a file: --sound ~/Music/birds.ogg (WAV, FLAC, Ogg Vorbis, Ogg Opus or MP3)."))
            lines.append(Translation.text("Hear one: reveille sounds play NAME"))
            return lines.joined(separator: "\n")
        }

        /// The themes the sounds come from, in the order first met.
        private static func themes(of sounds: [SoundChoice]) -> [String] {
            var themes: [String] = []
            for sound in sounds where sound.origin == .theme && !themes.contains(sound.theme) { themes.append(sound.theme) }
            return themes
        }
    }

    /// `reveille sounds play NAME`.
    struct Play: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "play", abstract: "Hear a sound for a few seconds, as an alert plays it.",
            discussion: "Examples:\n  reveille sounds play chimes\n  reveille sounds play alarm-clock-elapsed --for 10s")

        @Argument(
            help: ArgumentHelp("A sound of `reveille sounds`, a sound-theme name, or a file.", valueName: "sound"),
            completion: .custom(Completions.sounds))
        var sound: String

        @Option(name: .customLong("for"), help: ArgumentHelp("How long to play it: at most 30s (default: 5s).", valueName: "duration"))
        var length: String?

        func validate() throws {
            _ = try seconds()
            _ = try soundName()
        }

        /// How long to play, in seconds: 5 unless given, at most 30.
        func seconds() throws -> Double {
            guard let length else { return 5 }
            let seconds = try parsed("--for") { () throws(InputError) in try DurationInput.parse(length) }
            guard seconds <= 30 else {
                throw ValidationError(InputError.invalid("--for", text: length, reason: Translation.text("it must be at most 30s")))
            }
            return seconds
        }

        /// The sound as the agent takes it: a path made absolute, or a name.
        func soundName() throws -> String {
            var options = SoundOptions()
            options.sound = sound
            guard case .named(let name)? = try options.alertSound() else { return "default" }
            return name
        }

        func run() async throws {
            try await reportingFailures {
                let session = try await AgentSession.open()
                let (name, wanted) = (try soundName(), try seconds())
                let (source, playing) = try await session.run { try await $0.playSound(name, seconds: wanted) }
                if Terminal.isOutputTerminal {
                    print(
                        Translation.format(
                            "Playing %s for %s…", AlarmListFormat.cleaned(source), LengthText.text(seconds: Int64(playing.rounded(.up)))))
                }
                // The agent plays it on its own; the command returns when it has ended.
                try? await Task.sleep(for: .seconds(playing))
            }
        }
    }
}
