import AgentRuntime
import AlarmCore
import AlarmModel
import AlarmRecords
import AlarmDesktop
import AlarmProtocol
import DBus
import FoundationEssentials
import Localization

extension AlarmService {
    /// The manager interface: its methods, properties and signals, with their handlers.
    ///
    /// Without a service (to write the introspection XML) the handlers refuse every call.
    static func managerDescription(_ service: AlarmService?) -> DBusInterface {
        DBusInterface(
            name: Self.managerInterface,
            methods: [
                DBusMethod(
                    name: "Schedule", inArguments: [.init(name: "id", signature: "s"), .init(name: "configuration", signature: "a{sv}")],
                    outArguments: [.init(name: "alarm", signature: "a{sv}")]
                ) { call in
                    let s = try required(service)
                    return try await s.handle {
                        let id = try Self.id(call.arguments.first)
                        let resolved = try await s.authorizedCaller(of: call)
                        let definition = try AlarmWire.decodeConfiguration(call.arguments[1])
                        // The model's own rules first (a sound name over 4,096 bytes is refused
                        // there), then whether the sound can be played, which reads files.
                        try definition.validate(now: s.clock.read().now)
                        try await Self.checkSound(definition.sound, with: s.validateSound)
                        // Answered from the engine's thread the moment the alarm is stored.
                        let record = try await s.engine.schedule(id: id, definition: definition, caller: resolved.caller) {
                            try? call.reply([AlarmWire.encode($0, at: s.clock.read())])
                        }
                        return call.isAnswered ? [] : [AlarmWire.encode(record, at: s.clock.read())]
                    }
                },
                DBusMethod(
                    name: "Edit", inArguments: [.init(name: "id", signature: "s"), .init(name: "changes", signature: "a{sv}")],
                    outArguments: [.init(name: "alarm", signature: "a{sv}")]
                ) { call in
                    let s = try required(service)
                    return try await s.handle {
                        let id = try Self.id(call.arguments.first)
                        let resolved = try await s.authorizedCaller(of: call)
                        let change = try AlarmWire.decodeEdit(call.arguments[1])
                        if let sound = change.sound {
                            try sound.validateName()
                            try await Self.checkSound(sound, with: s.validateSound)
                        }
                        let record = try await s.engine.edit(id: id, applying: change, caller: resolved.caller)
                        return [AlarmWire.encode(record, at: s.clock.read())]
                    }
                },
                control("Cancel", service) { try await $0.engine.cancel(id: $1, caller: $2) },
                control("Stop", service) { try await $0.engine.stop(id: $1, caller: $2) },
                control("Pause", service) { try await $0.engine.pause(id: $1, caller: $2) },
                control("Resume", service) { try await $0.engine.resume(id: $1, caller: $2) },
                control("Countdown", service) { try await $0.engine.countdown(id: $1, caller: $2) },
                control("Snooze", service, second: .init(name: "seconds", signature: "d"), read: Self.snoozeDuration) {
                    try await $0.engine.snooze(id: $1, for: $2, caller: $3)
                },
                control("Skip", service) { try await $0.engine.skip(id: $1, caller: $2) },
                control("Unskip", service) { try await $0.engine.unskip(id: $1, caller: $2) },
                control("SetEnabled", service, second: .init(name: "enabled", signature: "b"), read: Self.enabledFlag) {
                    try await $0.engine.setEnabled($2, id: $1, caller: $3)
                },
                listing("List", watching: .objects, service),
                listing("Watch", watching: .lists, service),
                DBusMethod(
                    name: "Get", inArguments: [.init(name: "id", signature: "s")], outArguments: [.init(name: "alarm", signature: "a{sv}")]
                ) { call in
                    let s = try required(service)
                    return try await s.handle {
                        let id = try Self.id(call.arguments.first)
                        let caller = try await s.watchingCaller(call.sender).caller
                        return [AlarmWire.encode(try await s.engine.alarm(id: id, caller: caller), at: s.clock.read())]
                    }
                },
                requestingAuthorization("RequestAuthorization", usage: nil, service),
                requestingAuthorization("RequestAuthorizationWithUsage", usage: .init(name: "usage", signature: "s"), service),
                DBusMethod(
                    name: "History", inArguments: [.init(name: "limit", signature: "u")],
                    outArguments: [.init(name: "entries", signature: "aa{sv}")]
                ) { call in
                    let s = try required(service)
                    return try await s.handle {
                        try await s.requireUser(call)
                        let limit = Int(min(call.arguments.first?.integerValue ?? 100, 100_000))
                        let entries = try await s.engine.history(limit: limit).map(Self.encode)
                        return [.array(elementSignature: "a{sv}", entries)]
                    }
                },
                DBusMethod(name: "ListSounds", inArguments: [], outArguments: [.init(name: "sounds", signature: "aa{sv}")]) { call in
                    let s = try required(service)
                    return try await s.handle {
                        try await s.requireUser(call)
                        // The theme's folders are read off the threads that answer calls.
                        let choices = await BlockingFileWork.run(timeout: .seconds(5)) { [sounds = s.sounds] in
                            sounds.choices(translate: Translation.text)
                        }
                        guard let choices else {
                            throw DBusError(name: DBusError.failed, message: "the sound folders could not be read within 5 s")
                        }
                        return [.array(elementSignature: "a{sv}", choices.map(AlarmWire.encode))]
                    }
                },
                DBusMethod(
                    name: "PlaySound", inArguments: [.init(name: "sound", signature: "s"), .init(name: "seconds", signature: "d")],
                    outArguments: [.init(name: "source", signature: "s"), .init(name: "seconds", signature: "d")]
                ) { call in
                    let s = try required(service)
                    return try await s.handle {
                        try await s.requireUser(call)
                        let name = call.arguments[0].stringValue ?? ""
                        guard let seconds = call.arguments[1].doubleValue, seconds.isFinite, seconds > 0 else {
                            throw DBusError(name: AgentError.invalidArguments, message: "seconds must be a positive number (d)")
                        }
                        let sound: AlertConfiguration.AlertSound = name.isEmpty || name == "default" ? .default : .named(name)
                        try sound.validateName()
                        guard let player = s.desktop?.sounds else {
                            throw DBusError(name: DBusError.failed, message: "the agent plays no sound (reveilled --silent)")
                        }
                        let playing = min(seconds, AlertSounds.maximumPreview / .seconds(1))
                        do {
                            let source = try await player.preview(sound, for: .seconds(playing))
                            return [.string(source.description), .double(playing)]
                        } catch let error as SoundError {
                            throw DBusError(name: AgentError.invalidSound, message: error.description)
                        } catch {
                            throw DBusError(name: DBusError.failed, message: "\(error)")
                        }
                    }
                },
                DBusMethod(
                    name: "ListAuthorizations", inArguments: [], outArguments: [.init(name: "apps", signature: "a(ssd)")]
                ) { call in
                    let s = try required(service)
                    return try await s.handle {
                        try await s.requireUser(call)
                        let answers = s.authorization.all().map {
                            DBusValue.structure([.string($0.app), .string($0.state.rawValue), .double($0.decidedAt.timeIntervalSince1970)])
                        }
                        return [.array(elementSignature: "(ssd)", answers)]
                    }
                },
                DBusMethod(
                    name: "SetAuthorization",
                    inArguments: [.init(name: "app", signature: "s"), .init(name: "state", signature: "s")], outArguments: []
                ) { call in
                    let s = try required(service)
                    return try await s.handle {
                        try await s.requireUser(call)
                        let app = call.arguments[0].stringValue ?? ""
                        let text = call.arguments[1].stringValue ?? ""
                        guard !app.isEmpty, app.utf8.count <= AppAuthorization.maximumAppLength else {
                            throw DBusError(name: AgentError.invalidArguments, message: "the app name is empty or too long")
                        }
                        guard let state = AlarmManager.AuthorizationState(rawValue: text) else {
                            throw DBusError(
                                name: AgentError.invalidArguments,
                                message: "\(QuotedText.quote(text)) is not authorized, denied or notDetermined")
                        }
                        try await s.authorization.set(state, for: app)
                        return []
                    }
                },
            ],
            properties: [
                DBusProperty(name: "Version", signature: "s", access: .read) { _ in .string(try required(service).status.version) },
                DBusProperty(name: "StorePath", signature: "s", access: .read) { _ in .string(try required(service).status.storePath) },
                DBusProperty(name: "StoreReadOnly", signature: "s", access: .read) { _ in
                    .string(try required(service).status.storeReadOnlyReason ?? "")
                },
                DBusProperty(name: "AuthorizationState", signature: "s", access: .read) { call in
                    let s = try required(service)
                    let resolved = try await s.caller(of: call)
                    guard case .app(let app) = resolved.caller else { return .string(AlarmManager.AuthorizationState.authorized.rawValue) }
                    return .string(s.authorization.state(of: app).rawValue)
                },
                DBusProperty(name: "NotificationServer", signature: "s", access: .read) { _ in
                    .string(
                        try required(service).desktop?.notifications?.server.description
                            ?? "not used (the agent runs without notifications)")
                },
                DBusProperty(name: "SoundOutput", signature: "s", access: .read) { _ in
                    let s = try required(service)
                    guard let sounds = s.desktop?.sounds else { return .string("off (the agent runs silent)") }
                    switch await sounds.currentOutputStatus() {
                    case nil: return .string("not known: \(sounds.configuration.device) did not answer within 2 s")
                    case .unknown: return .string("not tried yet (no alert has rung)")
                    case .available: return .string("available (\(sounds.configuration.device))")
                    case .unavailable(let reason): return .string("unavailable: \(reason); alerts are shown without sound")
                    }
                },
                DBusProperty(name: "OutputVolume", signature: "s", access: .read) { _ in
                    .string(try required(service).desktop?.silentMode?.status ?? "not read (the agent runs silent)")
                },
                DBusProperty(name: "DoNotDisturb", signature: "a{sv}", access: .read) { _ in
                    Self.encode(try required(service).desktop?.doNotDisturb?.status)
                },
                DBusProperty(name: "AlarmCount", signature: "u", access: .read) { call in
                    let s = try required(service)
                    let caller = try await s.caller(of: call).caller
                    return .uint32(UInt32(await s.engine.alarms(visibleTo: caller).count))
                },
                DBusProperty(name: "CanWakeFromSuspend", signature: "b", access: .read) { _ in
                    .boolean(try required(service).status.wakeSources?.capability.canWake ?? false)
                },
                DBusProperty(name: "WakeFromSuspend", signature: "s", access: .read) { _ in
                    .string(try required(service).status.wakeSources?.capability.explanation ?? "")
                },
                DBusProperty(name: "WakeTimer", signature: "s", access: .read) { _ in
                    let trouble = try await required(service).engine.wakeTimerTrouble
                    return .string(trouble?.sentence(at: Date()) ?? "armed")
                },
                DBusProperty(name: "WatchedEvents", signature: "as", access: .read) { _ in
                    .strings(try required(service).status.wakeSources?.watchedEvents ?? ["clock-set"])
                },
                DBusProperty(name: "SnoozeChoices", signature: "au", access: .read) { _ in
                    .array(elementSignature: "u", try required(service).status.snoozeChoices.map { .uint32(UInt32(clamping: $0)) })
                },
                DBusProperty(name: "DefaultSnooze", signature: "u", access: .read) { _ in
                    .uint32(UInt32(clamping: Int(try required(service).status.defaultSnooze.rounded())))
                },
                DBusProperty(name: "PhoneBackup", signature: "s", access: .read) { _ in
                    .string(await Self.phoneBackupSentence(try required(service).status.phoneBackup))
                },
                DBusProperty(name: "EventSources", signature: "s", access: .read) { _ in
                    .string(try required(service).status.wakeSources?.eventSources ?? "clock set (timerfd)")
                },
            ],
            signals: [
                DBusSignal(name: "AuthorizationChanged", arguments: [.init(name: "state", signature: "s")]),
                DBusSignal(
                    name: "AlarmsChanged",
                    arguments: [.init(name: "alarms", signature: "aa{sv}"), .init(name: "removed", signature: "as")]),
            ])
    }

    /// How long a sound file may take to be checked at scheduling time.
    static let soundCheckLimit: Duration = .seconds(2)

    /// Checks a named sound on a thread of its own (a file on a hung mount must not hold a worker
    /// that answers calls), within `soundCheckLimit`; throws `InvalidSound` saying why.
    static func checkSound(
        _ sound: AlertConfiguration.AlertSound,
        with validate: @escaping @Sendable (AlertConfiguration.AlertSound) throws(SoundError) -> Void
    ) async throws {
        guard case .named(let name) = sound else { return }
        let checked = await BlockingFileWork.run(timeout: soundCheckLimit) {
            Result { () throws(SoundError) in try validate(sound) }
        }
        switch checked {
        case .success?: return
        case .failure(let error)?: throw DBusError(name: AgentError.invalidSound, message: error.description)
        case nil:
            throw DBusError(
                name: AgentError.invalidSound,
                message:
                    "the sound could not be read within \(DurationFormat.units(soundCheckLimit / .seconds(1))) (a file system that does not answer?): \(SoundError.shown(name))"
            )
        }
    }

    /// A method taking an alarm id and returning nothing.
    private static func control(
        _ name: String, _ service: AlarmService?, _ body: @escaping @Sendable (AlarmService, UUID, AlarmCaller) async throws -> Void
    ) -> DBusMethod {
        DBusMethod(name: name, inArguments: [.init(name: "id", signature: "s")], outArguments: []) { call in
            let s = try required(service)
            return try await s.handle {
                let id = try Self.id(call.arguments.first)
                try await body(s, id, try await s.caller(of: call).caller)
                return []
            }
        }
    }

    /// A method on one alarm with a second argument, which `read` checks before the alarm is
    /// looked at (throwing the named error for a bad one).
    private static func control<Value: Sendable>(
        _ name: String, _ service: AlarmService?, second: DBusArgument, read: @escaping @Sendable (DBusValue?) throws -> Value,
        _ body: @escaping @Sendable (AlarmService, UUID, Value, AlarmCaller) async throws -> Void
    ) -> DBusMethod {
        DBusMethod(name: name, inArguments: [.init(name: "id", signature: "s"), second], outArguments: []) { call in
            let s = try required(service)
            return try await s.handle {
                let id = try Self.id(call.arguments.first)
                let value = try read(call.arguments.count > 1 ? call.arguments[1] : nil)
                try await body(s, id, value, try await s.caller(of: call).caller)
                return []
            }
        }
    }

    /// The flag `SetEnabled` was given; otherwise the named error `InvalidArguments`.
    static func enabledFlag(_ value: DBusValue?) throws -> Bool {
        guard case .boolean(let enabled)? = value else {
            throw DBusError(name: AgentError.invalidArguments, message: "enabled must be a boolean (b)")
        }
        return enabled
    }

    /// The seconds `Snooze` was given: a positive, finite number, at most a year (as a countdown's
    /// durations); otherwise the named error `InvalidArguments`, before the alarm is looked at.
    static func snoozeDuration(_ value: DBusValue?) throws -> TimeInterval {
        guard let seconds = value?.doubleValue else {
            throw DBusError(name: AgentError.invalidArguments, message: "the snooze duration is not a number of seconds")
        }
        do {
            try AlarmDefinition.validate(duration: seconds, field: "snooze duration")
        } catch {
            throw DBusError(name: AgentError.invalidArguments, message: error.description)
        }
        return seconds
    }

    /// A method answering the caller's alarms (`AlarmService.list`), noting the caller as
    /// watching them the given way: `List` (the objects' signals) or `Watch` (`AlarmsChanged`).
    private static func listing(_ name: String, watching: CallerResolver.Watching, _ service: AlarmService?) -> DBusMethod {
        DBusMethod(name: name, inArguments: [], outArguments: [.init(name: "alarms", signature: "aa{sv}")]) { call in
            let s = try required(service)
            return try await s.handle {
                try s.list(for: try await s.watchingCaller(call.sender, watching).caller, replyingTo: call)
            }
        }
    }

    /// A method asking the person whether the calling app may set alarms (the person's own
    /// commands always may), with the app's usage description when `usage` names that argument.
    private static func requestingAuthorization(_ name: String, usage: DBusArgument?, _ service: AlarmService?) -> DBusMethod {
        DBusMethod(name: name, inArguments: usage.map { [$0] } ?? [], outArguments: [.init(name: "state", signature: "s")]) { call in
            let s = try required(service)
            return try await s.handle {
                let text = usage == nil ? nil : try AuthorizationCenter.usageDescription(call.arguments.first)
                let resolved = try await s.caller(of: call)
                guard case .app = resolved.caller else { return [.string(AlarmManager.AuthorizationState.authorized.rawValue)] }
                return [.string(try await s.authorization.request(for: resolved.identity, usage: text).rawValue)]
            }
        }
    }

    /// The service, or the refusal handlers give when there is none.
    static func required(_ service: AlarmService?) throws -> AlarmService {
        guard let service else { throw DBusError(name: DBusError.failed, message: "the agent is not serving") }
        return service
    }

    func requireUser(_ call: DBusMethodCall) async throws {
        guard try await caller(of: call).caller == .user else {
            throw DBusError(name: AgentError.notAuthorized, message: "only the person's own reveille command may do this")
        }
    }

    /// The `DoNotDisturb` property: `server` (s), `desktop` (s, empty when unknown), `setting` (s),
    /// `state` (`on`, `off`, `unknown`), `way` (how an alarm with breakthrough gets through now:
    /// `not-needed`, `shown-as-critical`, `lifted-while-ringing`, `sound-only`, `unknown`),
    /// `lifted` (b), `held` (u: alerts without breakthrough waiting), `heldSound` (`quiet`,
    /// `silent`), `description` (s: the sentence `reveille status` prints).
    static func encode(_ status: DoNotDisturbStatus?) -> DBusValue {
        guard let status else {
            return .dictionary([
                "state": .string("unknown"), "way": .string("unknown"),
                "description": .string("not watched (the agent runs without notifications, or with --ignore-dnd)"),
            ])
        }
        return .dictionary([
            "server": .string(status.server),
            "desktop": .string(status.desktop?.rawValue ?? ""),
            "setting": .string(status.setting ?? ""),
            "state": .string(status.state.rawValue),
            "way": .string(status.way.rawValue),
            "lifted": .boolean(status.lifted),
            "held": .uint32(UInt32(clamping: status.held)),
            "heldSound": .string(status.heldSound.rawValue),
            "description": .string(status.sentence),
        ])
    }

    /// What `PhoneBackup` says: off, or after how long which reachable phones ring (asked now).
    static func phoneBackupSentence(_ backup: (after: Duration, ringer: PhoneRinger)?) async -> String {
        guard let backup else { return "off (reveilled --phone-after turns it on)" }
        let after = DurationFormat.units(backup.after / .seconds(1))
        let search = await backup.ringer.reachablePhones()
        var sentence =
            search.phones.isEmpty
            ? "after \(after): no phone reachable (pair one with KDE Connect or GSConnect)"
            : "after \(after): " + search.phones.map(\.description).joined(separator: ", ")
        if !search.failures.isEmpty { sentence += "; not answering: " + search.failures.map(\.description).joined(separator: "; ") }
        return sentence
    }

    static func encode(_ entry: AlertHistoryEntry) -> DBusValue {
        var entries: [String: DBusValue] = [
            "alarmID": .string(entry.alarmID.lowercasedText()),
            "title": .string(entry.title),
            "scheduledAt": .double(entry.scheduledAt.timeIntervalSince1970),
            "count": .int32(Int32(clamping: entry.count)),
        ]
        if let alertedAt = entry.alertedAt { entries["alertedAt"] = .double(alertedAt.timeIntervalSince1970) }
        if let endedAt = entry.endedAt { entries["endedAt"] = .double(endedAt.timeIntervalSince1970) }
        if let outcome = entry.outcome { entries["outcome"] = .string(outcome.rawValue) }
        if let phones = entry.phonesRung { entries["phonesRung"] = .strings(phones) }
        return .dictionary(entries)
    }

    /// The interface every alarm object serves, the alarm being the one at the called path; every
    /// property answers only callers that may see it.
    static func alarmDescription(_ service: AlarmService?) -> DBusInterface {
        func property(_ name: String, _ signature: String) -> DBusProperty {
            DBusProperty(name: name, signature: signature, access: .read) { [weak service] call in
                let s = try required(service)
                guard let id = Self.id(ofPath: call.path) else {
                    throw DBusError(name: DBusError.unknownObject, message: "No alarm at \(call.path)")
                }
                let caller = try await s.watchingCaller(call.sender).caller
                do {
                    let record = try await s.engine.alarm(id: id, caller: caller)
                    return Self.property(name, of: record, at: s.clock.read())!
                } catch {
                    throw AgentError.dbusError(for: error)
                }
            }
        }
        return DBusInterface(
            name: Self.alarmInterface, methods: [],
            properties: zip(Self.propertyNames, ["s", "s", "s", "s", "s", "a{sv}", "a{sv}", "d", "d", "a{sv}"]).map(property),
            signals: [])
    }
}
