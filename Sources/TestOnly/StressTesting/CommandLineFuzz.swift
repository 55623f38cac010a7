import AlarmKit
import CommandLineText
import Foundation
import TestSupport

/// One command line for `reveille`, and what the fuzzer knows it must do.
package struct CommandLineCase: Sendable, CustomStringConvertible {
    /// The arguments after the program name, as bytes (not always UTF-8).
    package var arguments: [[UInt8]]
    /// Why this must be a usage error (exit 64) before any agent is asked; nil when any
    /// documented outcome may be right.
    package var usageError: String?
    /// The subcommand, when the line has a known one (`add`, `timer`, `auth allow`, …).
    package var command: String?
    /// Whether `--json` was given.
    package var json = false

    /// The command line, shell-quoted, bytes that are not printable UTF-8 escaped, long arguments cut.
    package var description: String {
        let words = arguments.map { bytes -> String in
            let text = String(decoding: bytes, as: UTF8.self)
            var quoted = "'"
            for scalar in text.unicodeScalars.prefix(80) {
                if scalar == "'" {
                    quoted += "'\\''"
                } else if scalar.properties.generalCategory == .control || scalar == "\u{FFFD}" {
                    quoted += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    quoted.unicodeScalars.append(scalar)
                }
            }
            return quoted + (text.unicodeScalars.count > 80 ? "…(\(bytes.count) bytes)'" : "'")
        }
        return (["reveille"] + words).joined(separator: " ")
    }
}

/// Makes seeded random command lines for `reveille`: every subcommand with valid, mutated and
/// hostile values (times, durations, days, titles with control characters and invalid UTF-8,
/// ids), unknown options, extra and missing arguments. For each it works out, with the same
/// parsers the command uses, whether the line is bad input that must exit 64.
package struct CommandLineFuzz: Sendable {
    /// The generator; the same seed makes the same lines.
    package var rng: SeededGenerator
    /// Ids the lines may name (those of alarms that exist), besides random ones.
    package var knownIDs: [UUID] = []

    /// A generator from a seed.
    package init(seed: UInt64) {
        rng = SeededGenerator(seed: seed)
    }

    static let times = [
        "7:30", "07:30", "7:30pm", "7am", "23:59", "12:00am", "2027-03-01 07:30", "2028-02-29T07:30:00+01:00", "2030-01-01 6:00 pm",
        // The forms people write (TimeGrammar): days, words, European clocks, moments from now.
        "mon,wed 6:45", "weekdays 7:00", "weekends 9:00", "daily 6:30", "noon", "midnight", "7.30", "19h30", "next friday 9am",
        "in 1h30m", "tomorrow at 7:30", "every mon 7:00", "mon-fri 7:00", "sundays 8am", "+20m", "mon wed 6:45",
        "7:30 on mondays", "every weekday 7:00",
    ]
    static let durations = ["90s", "5m", "1h30m", "1h 30m", "00:05:00", "1d", "0.5s", "366d", "45 min"]
    static let dayLists = ["mon,tue", "weekdays", "weekends", "daily", "sat", "Mon, Fri", "mon-fri", "fridays", "every day"]
    static let titles = ["Tea", "Wake up", "", "Réveil ⏰"]
    static let sounds = ["default", "alarm-clock-elapsed", "/usr/share/sounds/x.oga", "./birds.wav", "~/x.ogg"]
    static let apps = ["org.example.App", "/usr/bin/python3", "io.github.reveille.Reveille"]
    static let limits = ["1", "10", "50", "0", "-1", "abc", "99999999999999999999", "٣"]
    /// Words the parser treats as requests for help or the version, which end it successfully.
    static let helpWords: Set<String> = ["-h", "--help", "help", "--version", "--experimental-dump-help", "--generate-completion-script"]

    /// A value of a slot: usually valid, sometimes mutated, hostile, or not UTF-8 at all.
    mutating func value(_ corpus: [String]) -> [UInt8] {
        switch rng.weighted([(5, 0), (2, 1), (2, 2), (1, 3)]) {
        case 0: return Array(rng.pick(corpus).utf8)
        case 1:
            var bytes = Array(rng.pick(corpus).utf8)
            for _ in 0..<Int.random(in: 1...3, using: &rng) { mutate(&bytes) }
            return bytes
        case 2: return Array(HostileText.string(using: &rng, allowHuge: false).utf8)
        default: return HostileText.bytes(using: &rng)
        }
    }

    mutating func mutate(_ bytes: inout [UInt8]) {
        let position = bytes.isEmpty ? 0 : Int.random(in: 0...bytes.count, using: &rng)
        switch Int.random(in: 0..<5, using: &rng) {
        case 0: bytes.insert(UInt8.random(in: 1...255, using: &rng), at: position)
        case 1:
            if !bytes.isEmpty { bytes.remove(at: Int.random(in: 0..<bytes.count, using: &rng)) }
        case 2:
            if !bytes.isEmpty { bytes[Int.random(in: 0..<bytes.count, using: &rng)] = rng.pick(Array(":.-,0123456789 apmhsd".utf8)) }
        case 3: bytes.insert(contentsOf: Array(rng.pick(["０", "٣", "\u{1B}[2J", "\u{301}", "e", "9"]).utf8), at: position)
        default: bytes += bytes
        }
    }

    /// An id argument: a prefix of a known id, a random hex prefix, or a hostile value.
    mutating func idValue() -> [UInt8] {
        if let id = knownIDs.randomElement(using: &rng), rng.chance(0.4) {
            return Array(id.lowercasedText().prefix(Int.random(in: 4...36, using: &rng)).utf8)
        }
        return value([UUID.random(using: &rng).lowercasedText(), String(UUID.random(using: &rng).uuidString.prefix(6)), "1a2b", "ffff"])
    }

    /// The next command line.
    package mutating func next() -> CommandLineCase {
        var options: [(name: String, value: [UInt8]?)] = []
        var positionals: [[UInt8]] = []
        var command: [String]
        switch rng.weighted([(25, "add"), (25, "timer"), (18, "id"), (8, "list"), (4, "status"), (5, "history"), (8, "auth"), (7, "other")])
        {
        case "add":
            command = ["add"]
            positionals = [value(Self.times)]
            if rng.chance(0.4) { options.append(("--repeat", value(Self.dayLists))) }
            if rng.chance(0.3) { options.append(("--countdown", value(Self.durations))) }
            options += scheduleOptions()
        case "timer":
            command = ["timer"]
            positionals = [value(Self.durations)]
            options += scheduleOptions()
        case "id":
            command = [rng.pick(["show", "cancel", "pause", "resume", "stop", "snooze", "skip", "unskip", "off", "on"])]
            positionals = [idValue()]
            if command == ["show"], rng.chance(0.5) { options.append(("--json", nil)) }
            // `snooze ID [DUR]`: this time's snooze, sometimes.
            if command == ["snooze"], rng.chance(0.5) { positionals.append(value(Self.durations)) }
        case "list":
            command = ["list"]
            if rng.chance(0.5) { options.append(("--json", nil)) }
        case "status":
            command = ["status"]
            if rng.chance(0.5) { options.append(("--json", nil)) }
        case "history":
            command = ["history"]
            if rng.chance(0.5) { options.append(("--limit", value(Self.limits))) }
            if rng.chance(0.5) { options.append(("--json", nil)) }
        case "auth":
            let sub = rng.pick(["list", "allow", "deny", "reset"])
            command = ["auth", sub]
            if sub == "list" {
                if rng.chance(0.5) { options.append(("--json", nil)) }
            } else {
                positionals = [value(Self.apps)]
            }
        default:
            command = []
            positionals = (0..<Int.random(in: 0...3, using: &rng)).map { _ in value(["frobnicate", "lst", "ADD", "--json", "-x"]) }
        }
        var structural: String?
        var repeatedOption = false
        if !command.isEmpty, rng.chance(0.2) {
            switch Int.random(in: 0..<4, using: &rng) {
            case 0:
                options.append((rng.pick(["--frobnicate", "--title-", "-q", "--JSON", "--id=", "---"]), nil))
                structural = "an unknown option"
            case 1:
                var extra = value(["extra", "7:30", "5m"])
                if extra.first == UInt8(ascii: "-") || extra.isEmpty { extra.insert(UInt8(ascii: "x"), at: 0) }
                positionals.append(extra)
                structural = "an extra argument"
            case 2:
                if positionals.isEmpty {
                    options.append(("--frobnicate", nil))
                    structural = "an unknown option"
                } else {
                    positionals.removeAll()
                    structural = "a missing argument"
                }
            default:
                if let index = options.indices.randomElement(using: &rng), options[index].value != nil {
                    options.append((options[index].name, value(["5m", "Tea", "7:30"])))
                    repeatedOption = true
                }
            }
        }
        // The words in a random order that keeps each option with its value.
        var words: [[[UInt8]]] = positionals.map { [$0] }
        for option in options { words.append([Array(option.name.utf8)] + (option.value.map { [$0] } ?? [])) }
        words.shuffle(using: &rng)
        var line = CommandLineCase(arguments: command.map { Array($0.utf8) } + words.flatMap { $0 })
        line.command = command.isEmpty ? nil : command.joined(separator: " ")
        line.json = options.contains { $0.name == "--json" }
        line.usageError =
            repeatedOption
            ? nil : Self.usageError(command: command, positionals: positionals, options: options, structural: structural)
        return line
    }

    /// `--title`, `--snooze`, `--sound`, `--id`, `--json`, each sometimes.
    mutating func scheduleOptions() -> [(name: String, value: [UInt8]?)] {
        var options: [(name: String, value: [UInt8]?)] = []
        if rng.chance(0.6) {
            options.append(
                (
                    "--title",
                    rng.chance(0.1)
                        ? Array(HostileText.repeated(rng.pick(["a", "é", "\u{1B}"]), count: rng.pick([999, 1_000, 1_001, 3_000])).utf8)
                        : value(Self.titles)
                ))
        }
        if rng.chance(0.3) { options.append(("--snooze", value(Self.durations))) }
        if rng.chance(0.15) { options.append(("--sound", value(Self.sounds))) }
        if rng.chance(0.15) { options.append(("--id", value([UUID.random(using: &rng).uuidString, "not-a-uuid"]))) }
        if rng.chance(0.1) { options.append(("--volume", value(["0", "60", "60%", "100", "101", "-1", "loud", "", "1e2"]))) }
        if rng.chance(0.1) { options.append(("--ramp", value(["0", "0s", "0m", "default"] + Self.durations))) }
        if rng.chance(0.1) { options.append(("--ring-for", value(["0", "00:00", "2d", "25h", "default"] + Self.durations))) }
        if rng.chance(0.3) { options.append(("--json", nil)) }
        return options
    }

    /// Why the line is bad input, found with the parsers the command uses; nil when it is not,
    /// or when the fuzzer cannot tell (a value that looks like an option, an option given twice,
    /// an instant within an hour of now or of the hundred-year limit).
    static func usageError(
        command: [String], positionals: [[UInt8]], options: [(name: String, value: [UInt8]?)], structural: String?
    ) -> String? {
        let text = { (bytes: [UInt8]) in String(decoding: bytes, as: UTF8.self) }
        let values = positionals + options.compactMap(\.value)
        // A value starting with "-" may be read as an option, and help words end the parse.
        if values.contains(where: { $0.first == UInt8(ascii: "-") || helpWords.contains(text($0)) }) { return nil }
        if command.isEmpty {
            guard let first = positionals.first else { return nil }
            let known = [
                "add", "timer", "edit", "list", "show", "cancel", "pause", "resume", "stop", "snooze", "skip", "unskip", "off", "on",
                "watch",
                "status", "history", "sounds", "auth",
            ]
            return known.contains(text(first)) ? nil : "an unknown subcommand"
        }
        // `snooze ID DUR`: a second argument is the snooze's duration, not an extra one.
        let secondIsDuration = command == ["snooze"] && positionals.count == 2
        if let structural, !(secondIsDuration && structural == "an extra argument") { return structural }
        func option(_ name: String) -> String? { options.last { $0.name == name }?.value.map(text) }
        func bad(_ body: () throws -> Void) -> String? {
            do { try body() } catch { return "\(error)" }
            return nil
        }
        switch command[0] {
        case "add", "timer":
            if let id = option("--id"), UUID(text: id) == nil { return "--id is no UUID" }
            if let sound = option("--sound") {
                if sound.isEmpty { return "--sound is empty" }
                if sound.utf8.count > AlarmDefinition.maximumSoundNameLength { return "--sound is too long" }
                if sound.utf8.count > AlarmDefinition.maximumSoundNameLength - 200 { return nil }  // A relative path grows.
            }
            if let title = option("--title"), title.count > AlarmDefinition.maximumTextLength { return "--title is too long" }
            if let snooze = option("--snooze"), let error = bad({ _ = try DurationInput.parse(snooze) }) { return error }
            func isDefault(_ text: String) -> Bool { text.trimmingCharacters(in: .whitespaces).lowercased() == "default" }
            if let volume = option("--volume"), !isDefault(volume) {
                let trimmed = volume.trimmingCharacters(in: .whitespaces)
                let digits = trimmed.hasSuffix("%") ? String(trimmed.dropLast()).trimmingCharacters(in: .whitespaces) : trimmed
                guard let percent = Int(digits), (0...100).contains(percent), digits.allSatisfy(\.isASCII) else {
                    return "--volume is not a percentage"
                }
            }
            for (name, limit) in [("--ramp", AlarmDefinition.maximumSoundRamp), ("--ring-for", AlarmDefinition.maximumRingTimeout)] {
                guard let span = option(name), !isDefault(span) else { continue }
                do {
                    if try DurationInput.parse(span, allowingZero: true) > limit { return "\(name) is too long" }
                } catch {
                    return "\(error)"
                }
            }
            if command[0] == "timer" {
                return bad { _ = try DurationInput.parse(text(positionals[0])) }
            }
            if let countdown = option("--countdown"), let error = bad({ _ = try DurationInput.parse(countdown) }) { return error }
            var days: [Locale.Weekday]?
            if let list = option("--repeat") {
                do { days = try WeekdaysInput.parse(list) } catch { return "\(error)" }
            }
            let schedule: Alarm.Schedule
            do {
                schedule = try ClockTimeInput.parse(text(positionals[0]), repeatingOn: days, timeZone: .current, now: Date())
            } catch {
                return "\(error)"
            }
            if case .fixed(let date) = schedule {
                let fromNow = date.timeIntervalSinceNow
                let limit = 100 * 366 * 86_400.0
                if abs(fromNow) < 3_600 || abs(fromNow - limit) < 86_400 { return nil }
                if fromNow < 0 { return "the instant has passed" }
                if fromNow > limit { return "the instant is more than a century away" }
            }
            return nil
        case "show", "cancel", "pause", "resume", "stop", "snooze", "skip", "unskip", "off", "on":
            if let error = bad({ _ = try AlarmIDInput.checkSyntax(text(positionals[0])) }) { return error }
            return secondIsDuration ? bad { _ = try DurationInput.parse(text(positionals[1])) } : nil
        case "history":
            if let limit = option("--limit"), (Int(limit) ?? 0) < 1 { return "--limit is not a positive number" }
            return nil
        case "auth":
            guard command.count > 1, command[1] != "list", let app = positionals.first else { return nil }
            if app.isEmpty { return "no app" }
            if app.count > AppAuthorization.maximumAppLength { return "the app is too long" }
            return nil
        default:
            return nil
        }
    }
}
