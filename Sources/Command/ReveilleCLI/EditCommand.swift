import AlarmKit
import AlarmProtocol
import AlarmRecords
import ArgumentParser
import CommandLineText
import FoundationEssentials
import Localization

/// `reveille edit`: changes only what is given of an alarm, keeping its id and its history.
struct EditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit",
        abstract: "Change an alarm's time, days, title, sound or snooze, keeping its id and history.",
        discussion: """
            Only what is given changes; the values read as add reads them. A new clock time keeps \
            the days (and a one-time alarm's day), a time with days (weekdays 7:00) replaces both, \
            --repeat changes the days and keeps the time (--repeat once: no more repeating). An alarm \
            whose time changes is scheduled anew from now; otherwise it keeps its state (a running \
            timer keeps counting). A ringing alarm cannot be changed: stop or snooze it first. \
            --snooze default, --volume default, --ramp default and --ring-for default go back to the \
            agent's own; --sound default to the theme's alarm sound.

            Examples:
              reveille edit 3f2a --time 6:45
              reveille edit 3f2a --repeat mon,wed,fri
              reveille edit 3f2a --time "weekends 9:00" --title "Lie in"
              reveille edit 3f2a --sound chimes --volume 60
              reveille edit 3f2a --no-snooze
              reveille edit 0b7e --title "Green tea" --json
            """)

    @OptionGroup var alarmID: AlarmIDArgument

    @Option(help: ArgumentHelp("A new time, as add takes it: 6:45, weekdays 7:00, tomorrow 7:30.", valueName: "time"))
    var time: String?

    @Option(
        name: .customLong("repeat"),
        help: ArgumentHelp("New days to repeat on: mon,tue,…, weekdays, weekends, daily; once: no more.", valueName: "days"),
        completion: .custom(Completions.days))
    var days: String?

    @Option(help: ArgumentHelp("A new title.", valueName: "title"))
    var title: String?

    @Option(help: ArgumentHelp("Snooze for this long (90s, 5m), or default: the agent's length.", valueName: "duration"))
    var snooze: String?

    @Flag(name: .customLong("no-snooze"), help: "Offer no Snooze any more.")
    var noSnooze = false

    @Option(help: ArgumentHelp("A new countdown before the alarm; 0 takes it away.", valueName: "duration"))
    var countdown: String?

    @OptionGroup var sound: SoundOptions

    @Flag(inversion: .prefixedNo, help: "Break through do-not-disturb, or respect it (--no-breakthrough).")
    var breakthrough: Bool?

    @Flag(help: "Print the changed alarm as JSON.")
    var json = false

    func validate() throws {
        _ = try change(now: Date())
    }

    /// The change the options ask for; refuses an empty one and one that says two things at once.
    func change(now: Date) throws -> AlarmEdit {
        var change = AlarmEdit()
        if noSnooze, snooze != nil { throw ValidationError(Translation.text("give --snooze or --no-snooze, not both")) }
        if let title {
            try AlarmOptions.checkLocally(
                AlarmDefinition(
                    schedule: nil, countdownDuration: .init(preAlert: 60, postAlert: nil),
                    presentation: AlarmWire.defaultPresentation(title: title, isTimer: true, snoozes: false)),
                durationOption: "--countdown")
            change.title = title
        }
        let weekdays: [Locale.Weekday]? = try days.map { text in
            if ["once", "never", "none"].contains(text.trimmingWhitespace(newlines: false).lowercased()) { return [] }
            return try parsed("--repeat") { () throws(InputError) in try WeekdaysInput.parse(text) }
        }
        if let time {
            let reading = try parsed("--time") { () throws(InputError) in try TimeInputReading.read(time, now: now) }
            switch reading {
            case .clockTime(let relative) where relative.repeats == .never && weekdays == nil:
                change.time = relative.time
            case .clockTime(let relative):
                if weekdays != nil, reading.repeatingDays != nil {
                    throw ValidationError(
                        InputError.invalid(
                            "--time", text: time,
                            reason: Translation.text(
                                "it names its days already; give the days once, in the time (mon,wed 6:45) or with --repeat")))
                }
                var schedule = relative
                if let weekdays { schedule.repeats = weekdays.isEmpty ? .never : .weekly(WeekdaysInput.weekOrdered(weekdays)) }
                change.schedule = .relative(schedule)
            case .instant, .fromNow:
                if let weekdays, !weekdays.isEmpty {
                    throw ValidationError(
                        InputError.invalid(
                            "--time", text: time,
                            reason: Translation.text(
                                "a date and time alerts once and cannot repeat; give a clock time such as 7:30 to repeat on days")))
                }
                guard case .fixed(let instant) = reading.schedule(from: now), instant > now else {
                    throw ValidationError(InputError.invalid("--time", text: time, reason: Translation.text("it has already passed")))
                }
                change.schedule = .fixed(instant)
            }
        } else if let weekdays {
            change.weekdays = weekdays
        }
        if noSnooze {
            change.snooze = .off
        } else if let snooze {
            if SoundOptions.isDefault(snooze) {
                change.snooze = .agentDefault
            } else {
                change.snooze = .seconds(try parsed("--snooze") { () throws(InputError) in try DurationInput.parse(snooze) })
            }
        }
        change.preAlert = try countdown.map { text in
            try parsed("--countdown") { () throws(InputError) in try DurationInput.parse(text, allowingZero: true) }
        }
        change.sound = try sound.alertSound()
        // `default` gives a sound setting back to the agent.
        if SoundOptions.isDefault(sound.volume) { change.reset.insert(.volume) } else { change.volume = try sound.volumePercent() }
        if SoundOptions.isDefault(sound.ramp) { change.reset.insert(.ramp) } else { change.ramp = try sound.rampSeconds() }
        if SoundOptions.isDefault(sound.ringFor) {
            change.reset.insert(.ringTimeout)
        } else {
            change.ringTimeout = try sound.ringForSeconds()
        }
        change.breakthrough = breakthrough
        guard !change.isEmpty else {
            throw ValidationError(
                Translation.text(
                    "nothing to change: give --time, --repeat, --title, --sound, --volume, --snooze or another option (reveille edit --help)"
                ))
        }
        return change
    }

    func run() async throws {
        try await reportingFailures {
            let change = try change(now: Date())
            let session = try await AgentSession.open()
            await session.sayWhenAskingPermission()
            let alarm = try await session.run(naming: alarmID.id) { client, uuid in try await client.edit(id: uuid, change) }
            let reading = ClockReading.local()
            if json {
                print(AlarmDescription(alarm.record(at: reading), at: reading).json())
            } else if Terminal.isOutputTerminal {
                let handle = await session.handle(for: alarm.alarm.id)
                print(Confirmation.edited(alarm.record(at: reading), at: reading, style: DesktopTimeStyle.current(), handle: handle))
            }
        }
    }
}
