import AlarmKit
import CommandLineText
import ArgumentParser
import FoundationEssentials
import Localization

/// `reveille status`: whether the agent runs, its version, store and alarm count, whether alarms
/// can wake the machine from suspend (and through which route), and which events make the agent
/// check its deadlines again.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Tell whether the agent runs, its version, its store, how many alarms it has, and how alerts reach you.",
        discussion: """
            Also tells whether the agent starts at your next login and how (the systemd user \
            unit, the autostart entry, or only D-Bus activation), and what to run when it will not; \
            which notification server shows alerts and whether sound can play, whether \
            do-not-disturb is on and how an alarm gets through it right now, whether alarms can wake the machine from suspend here and through which route (the agent's wake clocks, the systemd user manager's WakeSystem timer, or KDE's PowerDevil), or every reason none works, and \
            which events make the agent check its deadlines again: clock sets, time-zone changes and \
            resume from suspend. Does not start the agent.

            Examples:
              reveille status
              reveille status --json
            """)

    @Flag(help: "Print the status as JSON.")
    var json = false

    func run() async throws {
        try await reportingFailures {
            let session = try await AgentSession.open(startingAgent: false)
            let running = await session.client.isAgentRunning()
            var object: [String: JSONValue] = ["running": .bool(running)]
            var lines = ["agent    " + (running ? "running" : "not running")]
            if running {
                let version = try await session.run { try await $0.property("Version").stringValue ?? "" }
                let store = try await session.run { try await $0.property("StorePath").stringValue ?? "" }
                let alarms = try await session.run { Int(try await $0.property("AlarmCount").integerValue ?? 0) }
                // An older agent lacks StoreReadOnly: its store is taken as writable.
                let readOnly = (try? await session.client.property("StoreReadOnly").stringValue) ?? ""
                object["version"] = .string(version)
                object["store"] = .string(store)
                object["storeWritable"] = .bool(readOnly.isEmpty)
                if !readOnly.isEmpty { object["storeReadOnlyReason"] = .string(readOnly) }
                object["alarms"] = .integer(alarms)
                let storeLine = readOnly.isEmpty ? store : "\(store) (read-only: \(readOnly); no change can be stored)"
                lines += ["version  " + version, "store    " + storeLine, "alarms   \(alarms)"]
                if let server = try? await session.client.property("NotificationServer").stringValue,
                    let sound = try? await session.client.property("SoundOutput").stringValue
                {
                    object["notifications"] = .string(server)
                    object["sound"] = .string(sound)
                    lines += ["notices  " + server, "sound    " + sound]
                }
                // An older agent lacks these: leave them out.
                let client = session.client
                if let volume = try? await client.property("OutputVolume").stringValue {
                    object["outputVolume"] = .string(volume)
                    lines.append("volume   " + volume)
                }
                if let dnd = try? await client.property("DoNotDisturb").dictionaryValue {
                    var entries: [String: JSONValue] = [:]
                    for (key, value) in dnd {
                        if let text = value.stringValue {
                            entries[key] = .string(text)
                        } else if let flag = value.boolValue {
                            entries[key] = .bool(flag)
                        } else if let number = value.integerValue {
                            entries[key] = .integer(Int(number))
                        }
                    }
                    object["doNotDisturb"] = .object(entries)
                    lines.append("dnd      " + (dnd["description"]?.stringValue ?? "unknown"))
                }
                if let canWake = try? await client.property("CanWakeFromSuspend").boolValue,
                    let wake = try? await client.property("WakeFromSuspend").stringValue
                {
                    object["canWakeFromSuspend"] = .bool(canWake)
                    object["wakeFromSuspend"] = .string(wake)
                    lines.append("wake     " + wake)
                }
                if let timer = try? await client.property("WakeTimer").stringValue {
                    object["wakeTimer"] = .string(timer)
                    lines.append("timer    " + timer)
                }
                if let phone = try? await client.property("PhoneBackup").stringValue {
                    object["phoneBackup"] = .string(phone)
                    lines.append("phone    " + phone)
                }
                if let events = try? await client.property("WatchedEvents").arrayValue?.compactMap(\.stringValue),
                    let sources = try? await client.property("EventSources").stringValue
                {
                    object["watchedEvents"] = .strings(events)
                    object["eventSources"] = .string(sources)
                    lines.append("events   " + sources)
                }
            }
            // Whether the agent starts at the next login: read from files, running or not.
            let login = LoginStart.find()
            object["startsAtLogin"] = .bool(login.startsAtLogin)
            object["loginStart"] = .string(login.route.rawValue)
            object["loginStartDetail"] = .string(login.sentence)
            lines.append("login    " + login.sentence)
            if json {
                print(JSONValue.object(object).text)
            } else {
                print(lines.joined(separator: "\n"))
            }
        }
    }
}

/// `reveille history`: past alerts, their lateness and how they ended.
struct HistoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "List past alerts: when each was due, when it rang, and how it ended.",
        discussion: "Examples:\n  reveille history\n  reveille history --limit 10 --json")

    // Read as text, whatever it starts with (`-1` too), so that every bad count gets the same
    // words as every other bad value.
    @Option(parsing: .unconditional, help: ArgumentHelp("Show at most this many entries (default: 50).", valueName: "count"))
    var limit: String?

    @Flag(help: "Print the history as a JSON array.")
    var json = false

    func validate() throws {
        _ = try count()
    }

    /// `--limit`: a whole number of at least 1; 50 when not given.
    func count() throws -> Int {
        guard let limit else { return 50 }
        guard let count = Int(limit.trimmingWhitespace(newlines: false)), count >= 1, limit.allSatisfy(\.isASCII) else {
            throw ValidationError(
                InputError.invalid("--limit", text: limit, reason: Translation.text("use a whole number of at least 1, as in 10")))
        }
        return count
    }

    func run() async throws {
        try await reportingFailures {
            let session = try await AgentSession.open()
            let count = try count()
            let entries = try await session.run { try await $0.history(limit: count) }
            let reading = ClockReading.local()
            if json {
                print(HistoryFormat.json(entries))
            } else {
                print(
                    HistoryFormat.table(
                        entries, at: reading, timeStyle: DesktopTimeStyle.current(), header: PersonText.historyHeadings))
            }
        }
    }
}

/// `reveille auth`: which apps may set alarms.
struct AuthCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "auth",
        abstract: "See and change which apps may set alarms.",
        subcommands: [List.self, Allow.self, Deny.self, Reset.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List the apps you have answered about.",
            discussion: "Example:\n  reveille auth list")
        @Flag(help: "Print JSON.") var json = false
        func run() async throws {
            try await reportingFailures {
                let session = try await AgentSession.open()
                let answers = try await session.run { try await $0.authorizations() }
                if json {
                    let objects = answers.map { JSONValue.object(["app": .string($0.app), "state": .string($0.state.rawValue)]) }
                    print(JSONValue.array(objects).text)
                } else if answers.isEmpty {
                    print(Translation.text("No apps have asked to set alarms."))
                } else {
                    // An app's name comes from its process: shown inert, as a title is.
                    let names = answers.map { AlarmListFormat.cleaned($0.app) }
                    let width = names.map(DisplayWidth.of).max() ?? 0
                    for (name, answer) in zip(names, answers) {
                        print(name + String(repeating: " ", count: width - DisplayWidth.of(name) + 2) + answer.state.rawValue)
                    }
                }
            }
        }
    }

    struct Allow: AuthAnswerCommand {
        static let configuration = CommandConfiguration(
            commandName: "allow", abstract: "Let an app set alarms.",
            discussion:
                "APP is as `reveille auth list` shows it: an app id or an executable's path.\n\nExample:\n  reveille auth allow org.example.Clock"
        )
        @Argument(help: ArgumentHelp("The app.", valueName: "app")) var app: String
        static let answer = AlarmManager.AuthorizationState.authorized
    }

    struct Deny: AuthAnswerCommand {
        static let configuration = CommandConfiguration(
            commandName: "deny", abstract: "Stop an app from setting alarms.",
            discussion: "Example:\n  reveille auth deny /usr/bin/python3.11")
        @Argument(help: ArgumentHelp("The app.", valueName: "app")) var app: String
        static let answer = AlarmManager.AuthorizationState.denied
    }

    struct Reset: AuthAnswerCommand {
        static let configuration = CommandConfiguration(
            commandName: "reset", abstract: "Forget your answer about an app; it will ask again.",
            discussion: "Example:\n  reveille auth reset org.example.Clock")
        @Argument(help: ArgumentHelp("The app.", valueName: "app")) var app: String
        static let answer = AlarmManager.AuthorizationState.notDetermined
    }

}

/// An `auth` subcommand that stores one answer about an app.
protocol AuthAnswerCommand: AsyncParsableCommand {
    var app: String { get }
    static var answer: AlarmManager.AuthorizationState { get }
}

extension AuthAnswerCommand {
    func validate() throws {
        guard !app.isEmpty else { throw ValidationError(Translation.text("no app given")) }
        guard app.utf8.count <= AppAuthorization.maximumAppLength else {
            throw ValidationError(
                Translation.format("invalid app %s: longer than %s bytes", QuotedText.quote(app), String(AppAuthorization.maximumAppLength))
            )
        }
    }

    func run() async throws {
        try await reportingFailures {
            let session = try await AgentSession.open()
            try await session.run { try await $0.setAuthorization(Self.answer, for: app) }
        }
    }
}
