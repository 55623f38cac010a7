import AlarmKit
import AlarmProtocol
import CommandLineText
import ArgumentParser
import FoundationEssentials
import Localization

/// Options `add` and `timer` share.
struct AlarmOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The alert's title (default: Alarm, or Timer).", valueName: "title"))
    var title: String?

    @Option(help: ArgumentHelp("Offer Snooze, for this long: 90s, 5m, 1h30m, 00:05:00.", valueName: "duration"))
    var snooze: String?

    @Option(help: ArgumentHelp("A sound file, or a sound-theme name (default: alarm-clock-elapsed).", valueName: "file|name"))
    var sound: String?

    @Option(help: ArgumentHelp("The alert sound's volume: 0 to 100 (percent of the sound's own level; default: full).", valueName: "percent"))
    var volume: String?

    @Option(help: ArgumentHelp("How long the sound takes to rise to its volume: 90s, 1m; 0 starts there (default: the agent's).", valueName: "duration"))
    var ramp: String?

    @Option(
        name: .customLong("ring-for"),
        help: ArgumentHelp("How long an unanswered alert rings: 20m, 1h; 0 rings until answered (default: the agent's, 10m).", valueName: "duration"))
    var ringFor: String?

    @Option(help: ArgumentHelp("The alarm's id (a UUID); scheduling an id again replaces that alarm.", valueName: "uuid"))
    var id: String?

    @Flag(
        name: .customLong("no-breakthrough"),
        help: "Respect do-not-disturb: while it is on, the alert waits to be shown and rings as the agent's --dnd-sound says (alarms break through by default).")
    var noBreakthrough = false

    @Flag(help: "Print the alarm as JSON instead of its id.")
    var json = false

    /// The id to use: the one given, or a new one.
    func alarmID() throws -> UUID {
        guard let id else { return UUID.random() }
        guard let uuid = UUID(text: id) else { throw ValidationError("invalid --id \(QuotedText.quote(id)): not a UUID") }
        return uuid
    }

    /// The snooze duration, if any.
    func snoozeDuration() throws -> TimeInterval? {
        try snooze.map { text in try parsed { () throws(InputError) in try DurationInput.parse(text) } }
    }

    /// Gives the definition the alarm's own volume, crescendo and ring time-out, where given.
    func applySoundSettings(to definition: inout AlarmDefinition) throws {
        if let volume {
            let digits = volume.hasSuffix("%") ? String(volume.dropLast()) : volume
            guard let percent = Int(digits.trimmingWhitespace(newlines: false)) else {
                throw ValidationError("invalid --volume \(QuotedText.quote(volume)): not a whole number from 0 to 100")
            }
            definition.volume = percent
        }
        definition.soundRamp = try ramp.map { try Self.spanOrZero($0) }
        definition.ringTimeout = try ringFor.map { try Self.spanOrZero($0) }
    }

    /// A length of time that may be `0` (a crescendo, a ring time-out); otherwise a duration.
    private static func spanOrZero(_ text: String) throws -> TimeInterval {
        if text.trimmingWhitespace(newlines: false) == "0" { return 0 }
        return try parsed { () throws(InputError) in try DurationInput.parse(text) }
    }

    /// The sound: a path made absolute (the agent runs elsewhere), or a theme name.
    func alertSound() throws -> AlertConfiguration.AlertSound {
        guard let sound else { return .default }
        guard !sound.isEmpty else { throw ValidationError("invalid --sound: empty") }
        if sound == "default" { return .default }
        guard AlertConfiguration.AlertSound.isFilePath(sound) || sound.hasPrefix(".") else { return .named(sound) }
        let expanded = AlertConfiguration.AlertSound.expandingTilde(sound)
        let url = URL(fileURLWithPath: expanded, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
        let path = url.standardizedFileURL.path
        var isDirectory = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ValidationError("invalid --sound: no such file: \(path)")
        }
        guard !isDirectory else { throw ValidationError("invalid --sound: a folder, not a sound file: \(path)") }
        return .named(path)
    }

    /// Checks a definition against the agent's own rules before anything is sent, so that input
    /// the agent would refuse (a title over 1,000 characters, an instant a century away) is a
    /// usage error naming the option. `durationOption` names what gave the pre-alert duration,
    /// `time` is the TIME argument as typed.
    static func checkLocally(_ definition: AlarmDefinition, durationOption: String, time: String? = nil) throws {
        do {
            try definition.validate(now: Date())
        } catch {
            guard case .invalidConfiguration(let field, let reason) = error else { throw ValidationError(error.description) }
            let option: String
            switch field {
            case "presentation.alert.title", "presentation.countdown.title", "presentation.paused.title": option = "--title"
            case "countdownDuration.preAlert": option = durationOption
            case "countdownDuration.postAlert": option = "--snooze"
            case "sound": option = "--sound"
            case "volume": option = "--volume"
            case "soundRamp": option = "--ramp"
            case "ringTimeout": option = "--ring-for"
            case let field where field.hasPrefix("schedule"): option = time.map { "time \(QuotedText.quote($0))" } ?? "time"
            default: option = field
            }
            throw ValidationError("invalid \(option): \(reason)")
        }
    }

    /// Schedules a definition (with `--no-breakthrough` applied) and prints the result.
    func schedule(_ definition: AlarmDefinition, id: UUID) async throws {
        var definition = definition
        definition.breakthrough = !noBreakthrough
        try await reportingFailures {
            let session = try await AgentSession.open()
            let alarm = try await session.run { try await $0.schedule(id: id, definition: definition) }
            if json {
                print(AlarmDescription(alarm.record(at: .local()), at: .local()).json())
            } else {
                print(alarm.alarm.id.lowercasedText())
            }
        }
    }
}

/// Reads a value, turning an `InputError` into a usage error (exit 64) that names the bad part.
func parsed<T>(_ body: () throws(InputError) -> T) throws -> T {
    do {
        return try body()
    } catch {
        throw ValidationError(error.description)
    }
}

/// `reveille add`: an alarm at a clock time or an instant.
struct AddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Schedule an alarm at a clock time or an instant.",
        discussion: """
            A clock time (7:30, 07:30, 7:30pm) follows the time zone: it rings at that time wherever you \
            are. A date and time (2026-12-01 07:30, 2026-12-01T07:30:00+01:00) is an instant, and so is a \
            moment from now: in 20m, +20m, tomorrow 7:30, 7:30 tomorrow, today 18:00, mon 7:30 (the next \
            Monday whose 7:30 is still ahead). Prints the new alarm's id.

            Examples:
              reveille add 7:30 --repeat weekdays --title "Wake up" --snooze 9m
              reveille add "tomorrow 6:15" --title Flight
              reveille add "in 20m" --title "Check the oven"
              reveille add 6:45pm --title "Call mum"
              reveille add "2026-12-01 07:30" --title Train
              reveille add 7:00 --repeat sat,sun --countdown 10m --sound ~/Music/birds.ogg
              reveille add 6:30 --repeat weekdays --volume 60 --ramp 90s --ring-for 20m
              id=$(reveille add 7:30)
            """)

    @Argument(help: ArgumentHelp("A clock time, or a date and time.", valueName: "time"))
    var time: String

    @Option(name: .customLong("repeat"), help: ArgumentHelp("Repeat on days: mon,tue,…, weekdays, weekends, daily.", valueName: "days"))
    var days: String?

    @Option(help: ArgumentHelp("Count down this long before the alarm, with a live countdown.", valueName: "duration"))
    var countdown: String?

    @OptionGroup var options: AlarmOptions

    func validate() throws {
        _ = try definition()
        _ = try options.alarmID()
    }

    func definition() throws -> AlarmDefinition {
        let weekdays = try days.map { text in try parsed { () throws(InputError) in try WeekdaysInput.parse(text) } }
        let schedule = try parsed { () throws(InputError) in
            try ClockTimeInput.parse(time, repeatingOn: weekdays, timeZone: ZoneRules.current, now: Date())
        }
        let preAlert = try countdown.map { text in try parsed { () throws(InputError) in try DurationInput.parse(text) } }
        let snooze = try options.snoozeDuration()
        var definition = AlarmDefinition(
            schedule: schedule,
            countdownDuration: preAlert == nil && snooze == nil ? nil : .init(preAlert: preAlert, postAlert: snooze),
            presentation: AlarmWire.defaultPresentation(title: options.title ?? "Alarm", isTimer: false, snoozes: snooze != nil),
            sound: try options.alertSound())
        if case .fixed(let date) = schedule, date <= Date() {
            let when = LocalTimeFormat.string(for: date, at: .local(), style: DesktopTimeStyle.current())
            throw ValidationError("invalid time \(QuotedText.quote(time)): \(when) has already passed")
        }
        definition.tintColor = .orange
        try options.applySoundSettings(to: &definition)
        try AlarmOptions.checkLocally(definition, durationOption: "--countdown", time: time)
        return definition
    }

    func run() async throws {
        try await options.schedule(try definition(), id: try options.alarmID())
    }
}

/// `reveille timer`: a countdown that rings when it ends.
struct TimerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "timer",
        abstract: "Start a timer that rings when it ends.",
        discussion: """
            Timers count real elapsed time, suspend included. Prints the new timer's id.

            Examples:
              reveille timer 5m --title Tea
              reveille timer 1h30m --snooze 5m
              reveille timer 00:25:00 --title Pomodoro --json
              id=$(reveille timer 90s); reveille pause "$id"
            """)

    @Argument(help: ArgumentHelp("How long: 90s, 5m, 1h30m, 00:05:00.", valueName: "duration"))
    var duration: String

    @OptionGroup var options: AlarmOptions

    func validate() throws {
        _ = try definition()
        _ = try options.alarmID()
    }

    func definition() throws -> AlarmDefinition {
        let seconds = try parsed { () throws(InputError) in try DurationInput.parse(duration) }
        let snooze = try options.snoozeDuration()
        var definition = AlarmDefinition(
            schedule: nil, countdownDuration: .init(preAlert: seconds, postAlert: snooze),
            presentation: AlarmWire.defaultPresentation(title: options.title ?? "Timer", isTimer: true, snoozes: snooze != nil),
            tintColor: .green, sound: try options.alertSound())
        try options.applySoundSettings(to: &definition)
        try AlarmOptions.checkLocally(definition, durationOption: "duration")
        return definition
    }

    func run() async throws {
        try await options.schedule(try definition(), id: try options.alarmID())
    }
}
