import AlarmKit
import AlarmProtocol
import AlarmRecords
import CommandLineText
import ArgumentParser
import FoundationEssentials
import Localization

/// The alert sound's options, which `add`, `timer` and `edit` share.
struct SoundOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "A sound file, a sound of `reveille sounds`, or a sound-theme name (default: the theme's alarm-clock-elapsed).",
            valueName: "file|name"),
        completion: .custom(Completions.sounds))
    var sound: String?

    @Option(
        help: ArgumentHelp("The alert sound's volume: 0 to 100 (percent of the sound's own level; default: full).", valueName: "percent"))
    var volume: String?

    @Option(
        help: ArgumentHelp(
            "How long the sound takes to rise to its volume: 90s, 1m; 0 starts there (default: the agent's).", valueName: "duration"))
    var ramp: String?

    @Option(
        name: .customLong("ring-for"),
        help: ArgumentHelp(
            "How long an unanswered alert rings: 20m, 1h; 0 rings until answered (default: the agent's, 10m).", valueName: "duration"))
    var ringFor: String?

    /// Refuses a value that is no volume or length, in the words every value is refused in.
    func validate() throws {
        _ = try volumePercent()
        _ = try rampSeconds()
        _ = try ringForSeconds()
        _ = try alertSound()
    }

    /// Whether a value is `default`: the agent's own setting, as when it is not given.
    static func isDefault(_ text: String?) -> Bool {
        text?.trimmingWhitespace(newlines: false).lowercased() == "default"
    }

    /// `--volume`: a whole number from 0 to 100, with or without `%`; `nil` when not given or `default`.
    func volumePercent() throws -> Int? {
        guard let volume, !Self.isDefault(volume) else { return nil }
        let trimmed = volume.trimmingWhitespace(newlines: false)
        let digits = trimmed.hasSuffix("%") ? String(trimmed.dropLast()).trimmingWhitespace(newlines: false) : trimmed
        guard let percent = Int(digits), (0...100).contains(percent), digits.allSatisfy(\.isASCII) else {
            throw ValidationError(
                InputError.invalid(
                    "--volume", text: volume, reason: Translation.text("use a whole number from 0 to 100, as in 60")))
        }
        return percent
    }

    /// `--ramp`: a length, or `0` (`0s`, `0m`) to start at full volume; `nil` when not given or `default`.
    func rampSeconds() throws -> TimeInterval? {
        guard let ramp, !Self.isDefault(ramp) else { return nil }
        return try parsed("--ramp") { () throws(InputError) in try DurationInput.parse(ramp, allowingZero: true) }
    }

    /// `--ring-for`: a length, or `0` (`0s`, `0m`) to ring until answered; `nil` when not given or `default`.
    func ringForSeconds() throws -> TimeInterval? {
        guard let ringFor, !Self.isDefault(ringFor) else { return nil }
        return try parsed("--ring-for") { () throws(InputError) in try DurationInput.parse(ringFor, allowingZero: true) }
    }

    /// Gives the definition the alarm's own volume, crescendo and ring time-out, where given.
    func applySoundSettings(to definition: inout AlarmDefinition) throws {
        if let percent = try volumePercent() { definition.volume = percent }
        if let ramp = try rampSeconds() { definition.soundRamp = ramp }
        if let ringFor = try ringForSeconds() { definition.ringTimeout = ringFor }
    }

    /// The sound: a path made absolute (the agent runs elsewhere), or a name; `nil` when not given.
    func alertSound() throws -> AlertConfiguration.AlertSound? {
        guard let sound else { return nil }
        guard !sound.isEmpty else {
            throw ValidationError(
                InputError.invalid("--sound", text: sound, reason: Translation.text("give a sound file or a name from reveille sounds")))
        }
        if sound == "default" { return .default }
        guard AlertConfiguration.AlertSound.isFilePath(sound) || sound.hasPrefix(".") else { return .named(sound) }
        let expanded = AlertConfiguration.AlertSound.expandingTilde(sound)
        let url = URL(fileURLWithPath: expanded, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
        let path = url.standardizedFileURL.path
        var isDirectory = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ValidationError(InputError.invalid("--sound", text: sound, reason: Translation.format("no such file: %s", path)))
        }
        guard !isDirectory else {
            throw ValidationError(
                InputError.invalid("--sound", text: sound, reason: Translation.format("a folder, not a sound file: %s", path)))
        }
        return .named(path)
    }
}

/// Options `add` and `timer` share.
struct AlarmOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The alert's title (default: Alarm, or Timer).", valueName: "title"))
    var title: String?

    @Option(help: ArgumentHelp("Offer Snooze, for this long: 90s, 5m, 1h30m, 00:05:00.", valueName: "duration"))
    var snooze: String?

    @OptionGroup var sound: SoundOptions

    @Option(help: ArgumentHelp("The alarm's id (a UUID); scheduling an id again replaces that alarm.", valueName: "uuid"))
    var id: String?

    @Flag(
        name: .customLong("no-breakthrough"),
        help:
            "Respect do-not-disturb: while it is on, the alert waits to be shown and rings as the agent's --dnd-sound says (alarms break through by default)."
    )
    var noBreakthrough = false

    @Flag(help: "Print the alarm as JSON instead of its id.")
    var json = false

    /// The id to use: the one given, or a new one.
    func alarmID() throws -> UUID {
        guard let id else { return UUID.random() }
        guard let uuid = UUID(text: id) else {
            throw ValidationError(
                InputError.invalid("--id", text: id, reason: Translation.text("not a UUID, such as 3f2a9c01-5b7e-4d2a-9c01-5b7e4d2a9c01")))
        }
        return uuid
    }

    /// The snooze duration, if any.
    func snoozeDuration() throws -> TimeInterval? {
        try snooze.map { text in try parsed("--snooze") { () throws(InputError) in try DurationInput.parse(text) } }
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
            throw ValidationError(Translation.format("invalid %s: %s", option, reason))
        }
    }

    /// Schedules a definition (with `--no-breakthrough` applied) and prints the result: the id
    /// alone, the alarm as JSON, or on a terminal what was set and when.
    func schedule(_ definition: AlarmDefinition, id: UUID) async throws {
        var definition = definition
        definition.breakthrough = !noBreakthrough
        try await reportingFailures {
            let session = try await AgentSession.open()
            await session.sayWhenAskingPermission()
            let alarm = try await session.run { try await $0.schedule(id: id, definition: definition) }
            if json {
                print(AlarmDescription(alarm.record(at: .local()), at: .local()).json())
            } else if Terminal.isOutputTerminal {
                let reading = ClockReading.local()
                let handle = await session.handle(for: alarm.alarm.id)
                print(Confirmation.scheduled(alarm.record(at: reading), at: reading, style: DesktopTimeStyle.current(), handle: handle))
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

/// Reads an option's value, turning an `InputError` into a usage error (exit 64) that names the
/// option and the value, in the words every value is refused in: `invalid --snooze "5x": …`.
func parsed<T>(_ option: String, _ body: () throws(InputError) -> T) throws -> T {
    do {
        return try body()
    } catch {
        throw ValidationError(error.description(naming: option))
    }
}

/// `reveille add`: an alarm at a clock time or an instant.
struct AddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Schedule an alarm at a clock time, on days, or at an instant.",
        discussion: """
            A clock time (7:30, 07:30, 7.30, 19h30, 7:30pm, 7am, noon, midnight) follows the time zone: \
            it rings at that time wherever you are. With days it repeats: mon,wed 6:45, mon-fri 7:00, \
            weekdays 7:00, weekends 9:00, daily 6:30, every mon 7:00 (or give --repeat). A date and time \
            (2026-12-01 07:30, 2026-12-01T07:30:00+01:00) is an instant, and so is a moment from now: \
            in 20m, +20m, tomorrow 7:30, 7:30 tomorrow, today 18:00, mon 7:30 (the next Monday whose \
            7:30 is still ahead), next friday 9am (the first Friday after today). \
            The alarm offers Snooze, for the agent's length (9 minutes unless reveilled \
            --default-snooze says otherwise); --snooze sets its own, --no-snooze leaves it out. \
            On a terminal it says what was set and when; piped, it prints the new alarm's id alone.

            Examples:
              reveille add 7:30
              reveille add "weekdays 7:00" --title "Wake up"
              reveille add "mon,wed 6:45" --snooze 5m
              reveille add "tomorrow 6:15" --title Flight
              reveille add "next friday 9am" --title Dentist
              reveille add "in 20m" --title "Check the oven" --no-snooze
              reveille add 7:30 --repeat weekdays --title "Wake up" --snooze 9m
              reveille add "2026-12-01 07:30" --title Train
              reveille add 7:00 --repeat sat,sun --countdown 10m --sound ~/Music/birds.ogg
              reveille add 6:30 --repeat weekdays --volume 60 --ramp 90s --ring-for 20m
              id=$(reveille add 7:30)
            """)

    @Argument(help: ArgumentHelp("A clock time, days and a clock time, a date and time, or a moment from now.", valueName: "time"))
    var time: String

    @Option(
        name: .customLong("repeat"),
        help: ArgumentHelp("Repeat on days: mon,tue,…, mon-fri, weekdays, weekends, daily.", valueName: "days"),
        completion: .custom(Completions.days))
    var days: String?

    @Option(help: ArgumentHelp("Count down this long before the alarm, with a live countdown.", valueName: "duration"))
    var countdown: String?

    @Flag(name: .customLong("no-snooze"), help: "Offer no Snooze: the alert has Stop only.")
    var noSnooze = false

    @OptionGroup var options: AlarmOptions

    func validate() throws {
        _ = try definition()
        _ = try options.alarmID()
    }

    func definition() throws -> AlarmDefinition {
        if noSnooze, options.snooze != nil {
            throw ValidationError(Translation.text("give --snooze or --no-snooze, not both"))
        }
        let weekdays = try days.map { text in try parsed("--repeat") { () throws(InputError) in try WeekdaysInput.parse(text) } }
        let now = Date()
        let schedule = try parsed { () throws(InputError) in
            try TimeInputReading.schedule(time, repeatingOn: weekdays, now: now)
        }
        let preAlert = try countdown.map { text in try parsed("--countdown") { () throws(InputError) in try DurationInput.parse(text) } }
        let snooze = try options.snoozeDuration()
        var definition = AlarmDefinition(
            schedule: schedule,
            countdownDuration: preAlert == nil && snooze == nil ? nil : .init(preAlert: preAlert, postAlert: snooze),
            presentation: AlarmWire.defaultPresentation(title: options.title ?? "Alarm", isTimer: false, snoozes: !noSnooze),
            sound: try options.sound.alertSound() ?? .default)
        if case .fixed(let date) = schedule, date <= now {
            throw ValidationError(
                InputError.invalid(
                    .time, time.trimmingWhitespace(),
                    reason: Translation.format(
                        "%s has already passed", LocalTimeFormat.string(for: date, at: .local(), style: DesktopTimeStyle.current()))
                ).description)
        }
        definition.tintColor = .orange
        try options.sound.applySoundSettings(to: &definition)
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
            Timers count real elapsed time, suspend included. On a terminal it says when the timer \
            rings; piped, it prints the new timer's id alone.

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
            tintColor: .green, sound: try options.sound.alertSound() ?? .default)
        try options.sound.applySoundSettings(to: &definition)
        try AlarmOptions.checkLocally(definition, durationOption: "duration")
        return definition
    }

    func run() async throws {
        try await options.schedule(try definition(), id: try options.alarmID())
    }
}

/// TIME as the command reads it: the whole grammar (``TimeGrammar``), in this machine's time zone,
/// with the person's own short day names besides the English ones.
enum TimeInputReading {
    /// What TIME names, from `now`.
    static func read(_ text: String, now: Date) throws(InputError) -> TimeReading {
        try TimeGrammar.read(text, now: now, zone: .current, dayNames: TimeGrammar.personDayNames(DesktopTimeStyle.current()))
    }

    /// The schedule TIME names, repeating on `days` when they are given (`--repeat`).
    static func schedule(_ text: String, repeatingOn days: [Locale.Weekday]?, now: Date) throws(InputError) -> Alarm.Schedule {
        let reading = try read(text, now: now)
        return try ClockTimeInput.repeating(reading, text: text, on: days, now: now)
    }
}
