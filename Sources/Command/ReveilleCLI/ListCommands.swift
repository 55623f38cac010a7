import AlarmRecords
import AlarmKit
import AlarmProtocol
import CommandLineText
import ArgumentParser
import FoundationEssentials
import Localization

/// `reveille list`: every alarm, as a table or JSON.
struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List alarms and timers.",
        discussion: """
            Columns: id prefix, kind, state, next alert in local time, how far away, title. Ringing \
            alarms come first, paused timers last.

            Examples:
              reveille list
              reveille list --json | jq -r '.[] | select(.state == "alerting") | .id'
            """)

    @Flag(help: "Print a JSON array of alarms.")
    var json = false

    func run() async throws {
        try await reportingFailures {
            let session = try await AgentSession.open()
            let alarms = try await session.run { try await $0.list() }
            let reading = ClockReading.local()
            let records = alarms.map { $0.record(at: reading) }
            if json {
                let descriptions = records.sorted { $0.id < $1.id }.map { AlarmDescription($0, at: reading) }
                print(AlarmDescription.json(descriptions))
            } else {
                print(
                    AlarmListFormat.table(
                        records, at: reading, width: Terminal.width(), timeStyle: DesktopTimeStyle.current(),
                        headings: PersonText.listHeadings,
                        color: TerminalColor.detect(
                            isTerminal: Terminal.isOutputTerminal, environment: ProcessInfo.processInfo.environment)))
            }
        }
    }
}

/// `reveille show`: one alarm in full.
struct ShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show one alarm in full.",
        discussion: """
            ID is the full id or any unique prefix of it.

            Examples:
              reveille show 3f2a
              reveille show 3f2a9c01-… --json
            """)

    @OptionGroup var alarmID: AlarmIDArgument

    @Flag(help: "Print the alarm as JSON.")
    var json = false

    func run() async throws {
        try await reportingFailures {
            let session = try await AgentSession.open()
            let alarm = try await session.run(naming: alarmID.id) { client, uuid in try await client.get(id: uuid) }
            let reading = ClockReading.local()
            let record = alarm.record(at: reading)
            if json {
                print(AlarmDescription(record, at: reading).json())
            } else {
                // The agent's length, for an alarm that snoozes without one of its own (an older agent has none).
                let defaultSnooze = (try? await session.client.property("DefaultSnooze").integerValue).flatMap { $0 }
                print(
                    AlarmDetails.text(
                        alarm, record: record, at: reading, timeStyle: DesktopTimeStyle.current(),
                        defaultSnooze: defaultSnooze.map(TimeInterval.init)))
            }
        }
    }
}

/// The multi-line description `reveille show` prints.
enum AlarmDetails {
    static func text(
        _ alarm: AlarmWire.RemoteAlarm, record: AlarmRecord, at reading: ClockReading, timeStyle: TimeStyle = .standard,
        defaultSnooze: TimeInterval? = nil
    ) -> String {
        let definition = alarm.definition
        var lines: [(String, String)] = [
            ("id", alarm.alarm.id.lowercasedText()),
            ("title", AlarmListFormat.cleaned(definition.title)),
            ("kind", definition.isTimer ? "timer" : "alarm"),
            ("state", record.state.rawValue),
        ]
        switch definition.schedule {
        case .fixed(let date):
            lines.append(("schedule", "at " + LocalTimeFormat.string(for: date, at: reading, style: timeStyle)))
        case .relative(let relative):
            let time = timeStyle.clockText(hour: relative.time.hour, minute: relative.time.minute)
            let days = relative.repeats.weekdays
            lines.append(
                (
                    "schedule",
                    days.isEmpty
                        ? "once at \(time)" : "\(time) on " + WeekdaysInput.weekOrdered(days).map(\.englishName).joined(separator: ", ")
                ))
        case nil:
            break
        }
        if let preAlert = definition.countdownDuration?.preAlert {
            lines.append((definition.isTimer ? "duration" : "countdown", DurationFormat.units(preAlert)))
        }
        if let postAlert = definition.countdownDuration?.postAlert {
            lines.append((definition.isTimer ? "repeat" : "snooze", DurationFormat.units(postAlert)))
        } else if definition.presentation.alert.secondaryButtonBehavior == .countdown {
            let length = defaultSnooze.map { DurationFormat.units($0) + ", " } ?? ""
            lines.append((definition.isTimer ? "repeat" : "snooze", length + "the agent's (reveilled --default-snooze)"))
        }
        if let fireDate = record.fireDate(from: reading) {
            lines.append(
                (
                    "next",
                    LocalTimeFormat.string(for: fireDate, at: reading, style: timeStyle) + "  ("
                        + RelativeTimeFormat.string(for: fireDate, relativeTo: reading.now) + ")"
                ))
        }
        if let remaining = record.remaining(from: reading) {
            lines.append(("remaining", DurationFormat.clock(remaining)))
        }
        if !definition.isEnabled { lines.append(("off", "turned off: it does not ring until turned on (reveille on)")) }
        if let skipped = record.pendingSkip(at: reading.now) {
            lines.append(("skips", LocalTimeFormat.string(for: skipped, at: reading, style: timeStyle) + "  (undo with reveille unskip)"))
        }
        lines.append(
            (
                "sound",
                alarm.definition.sound == .default
                    ? "default"
                    : {
                        if case .named(let name) = alarm.definition.sound { return AlarmListFormat.cleaned(name) } else { return "default" }
                    }()
            ))
        if let volume = definition.volume { lines.append(("volume", "\(volume) %")) }
        if let ramp = definition.soundRamp { lines.append(("ramp", ramp == 0 ? "none (full volume at once)" : DurationFormat.units(ramp))) }
        if let ringTimeout = definition.ringTimeout {
            lines.append(("rings for", ringTimeout == 0 ? "until answered" : DurationFormat.units(ringTimeout)))
        }
        lines.append(("owner", AlarmListFormat.cleaned(alarm.owner)))
        let width = lines.map(\.0.count).max() ?? 0
        return lines.map { $0.0 + String(repeating: " ", count: width - $0.0.count) + "  " + $0.1 }.joined(separator: "\n")
    }
}

/// The ID argument of a command that acts on one alarm (`@OptionGroup`): the alarm's full id or a
/// unique prefix of it.
struct AlarmIDArgument: ParsableArguments {
    @Argument(help: ArgumentHelp("The alarm's id or a unique prefix.", valueName: "id"), completion: .custom(Completions.alarmIDs))
    var id: String

    /// Refuses an id no alarm's id could start with (a usage error, exit 64), before the agent is
    /// asked for its alarms.
    func validate() throws {
        _ = try parsed { () throws(InputError) in try AlarmIDInput.checkSyntax(id) }
    }
}

/// A command that acts on one alarm by id.
protocol AlarmControlCommand: AsyncParsableCommand {
    var alarmID: AlarmIDArgument { get }
    static func act(_ client: AgentClient, _ id: UUID) async throws
    /// What a terminal is told once it is done (`nil`: nothing), given the alarm as it is then and
    /// the start of its id to type.
    static func confirmation(_ record: AlarmRecord, at reading: ClockReading, style: TimeStyle, handle: String) -> String?
}

extension AlarmControlCommand {
    static func confirmation(_ record: AlarmRecord, at reading: ClockReading, style: TimeStyle, handle: String) -> String? { nil }

    func run() async throws {
        try await reportingFailures {
            let session = try await AgentSession.open()
            let id = try await session.run(naming: alarmID.id) { client, uuid in
                try await Self.act(client, uuid)
                return uuid
            }
            try await session.confirm(id, Self.confirmation)
        }
    }
}

extension AgentSession {
    /// On a terminal, asks the agent for the alarm as it is now and prints what `confirmation`
    /// says of it; piped, prints nothing, as before (nor does it ask).
    func confirm(
        _ id: UUID, _ confirmation: (AlarmRecord, ClockReading, TimeStyle, String) -> String?
    ) async throws {
        guard Terminal.isOutputTerminal, let alarm = try? await client.get(id: id) else { return }
        let reading = ClockReading.local()
        let handle = await handle(for: id)
        if let text = confirmation(alarm.record(at: reading), reading, DesktopTimeStyle.current(), handle) { print(text) }
    }
}

/// `reveille cancel`.
struct CancelCommand: AlarmControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel", abstract: "Remove an alarm or timer, whatever its state.",
        discussion: "Examples:\n  reveille cancel 3f2a\n  reveille list --json | jq -r '.[].id' | xargs -n1 reveille cancel")
    @OptionGroup var alarmID: AlarmIDArgument
    static func act(_ client: AgentClient, _ id: UUID) async throws { try await client.cancel(id: id) }
}

/// `reveille pause`.
struct PauseCommand: AlarmControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "pause", abstract: "Pause a running countdown; it keeps its time left.",
        discussion: "Example:\n  reveille pause 0b7e")
    @OptionGroup var alarmID: AlarmIDArgument
    static func act(_ client: AgentClient, _ id: UUID) async throws { try await client.pause(id: id) }
}

/// `reveille resume`.
struct ResumeCommand: AlarmControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume", abstract: "Resume a paused countdown where it left off.",
        discussion: "Example:\n  reveille resume 0b7e")
    @OptionGroup var alarmID: AlarmIDArgument
    static func act(_ client: AgentClient, _ id: UUID) async throws { try await client.resume(id: id) }
}

/// `reveille stop`.
struct StopCommand: AlarmControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "stop", abstract: "Stop a ringing alarm (a repeating one is scheduled for its next day).",
        discussion: "Example:\n  reveille stop 3f2a")
    @OptionGroup var alarmID: AlarmIDArgument
    static func act(_ client: AgentClient, _ id: UUID) async throws { try await client.stop(id: id) }
}

/// `reveille snooze`.
struct SnoozeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snooze", abstract: "Snooze a ringing alarm (or repeat a timer), for its snooze duration or the one given.",
        discussion: "Examples:\n  reveille snooze 3f2a\n  reveille snooze 3f2a 20m")
    @OptionGroup var alarmID: AlarmIDArgument
    @Argument(help: ArgumentHelp("How long to snooze this time, such as 5m or 1h30m (default: the alarm's snooze).", valueName: "duration"))
    var duration: String?

    func validate() throws { _ = try seconds() }

    func run() async throws {
        try await reportingFailures {
            let session = try await AgentSession.open()
            let seconds = try seconds()
            let id = try await session.run(naming: alarmID.id) { client, uuid in
                if let seconds { try await client.snooze(id: uuid, for: seconds) } else { try await client.countdown(id: uuid) }
                return uuid
            }
            try await session.confirm(id) { record, reading, style, _ in Confirmation.snoozed(record, at: reading, style: style) }
        }
    }

    /// The duration given, in seconds.
    private func seconds() throws -> TimeInterval? {
        try duration.map { text in try parsed { () throws(InputError) in try DurationInput.parse(text) } }
    }
}

/// `reveille skip`.
struct SkipCommand: AlarmControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "skip", abstract: "Skip a repeating alarm's next alert; it rings again the time after.",
        discussion: "Examples:\n  reveille skip 3f2a\n  reveille unskip 3f2a")
    @OptionGroup var alarmID: AlarmIDArgument
    static func act(_ client: AgentClient, _ id: UUID) async throws { try await client.skip(id: id) }
    static func confirmation(_ record: AlarmRecord, at reading: ClockReading, style: TimeStyle, handle: String) -> String? {
        Confirmation.skipped(record, at: reading, style: style, handle: handle)
    }
}

/// `reveille unskip`.
struct UnskipCommand: AlarmControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "unskip", abstract: "Ring a skipped alert after all, if it is still ahead.",
        discussion: "Example:\n  reveille unskip 3f2a")
    @OptionGroup var alarmID: AlarmIDArgument
    static func act(_ client: AgentClient, _ id: UUID) async throws { try await client.unskip(id: id) }
}

/// `reveille off`.
struct OffCommand: AlarmControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "off", abstract: "Turn an alarm off: it keeps its settings and never rings until turned on.",
        discussion: "Examples:\n  reveille off 3f2a\n  reveille on 3f2a")
    @OptionGroup var alarmID: AlarmIDArgument
    static func act(_ client: AgentClient, _ id: UUID) async throws { try await client.setEnabled(false, id: id) }
    static func confirmation(_ record: AlarmRecord, at reading: ClockReading, style: TimeStyle, handle: String) -> String? {
        Confirmation.turnedOff(record, handle: handle)
    }
}

/// `reveille on`.
struct OnCommand: AlarmControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "on", abstract: "Turn an alarm on again: it rings at its next time from now.",
        discussion: "Example:\n  reveille on 3f2a")
    @OptionGroup var alarmID: AlarmIDArgument
    static func act(_ client: AgentClient, _ id: UUID) async throws {
        do {
            try await client.setEnabled(true, id: id)
        } catch let error as AgentClientError where error.kind == .invalid {
            // The alarm's own instant passed while it was off: nothing the person typed was wrong.
            throw CLIFailure.refused(error.message)
        }
    }
    static func confirmation(_ record: AlarmRecord, at reading: ClockReading, style: TimeStyle, handle: String) -> String? {
        Confirmation.turnedOn(record, at: reading, style: style)
    }
}
