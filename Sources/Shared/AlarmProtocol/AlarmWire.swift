import AlarmModel
import AlarmRecords
import DBus
import FoundationEssentials

/// How alarms and their configurations travel over D-Bus: `a{sv}` dictionaries with the keys the
/// interface XML documents.
///
/// Configuration keys: `schedule` (`a{sv}`: `fixed` seconds since 1970 as `d`, or `hour`, `minute`
/// integers and `weekdays` `as`), `countdown` (`a{sv}`: `preAlert`, `postAlert` seconds), `title`,
/// `presentation` (`a{sv}`: `alert`, `countdown`, `paused`, each an `a{sv}` with `title` and
/// buttons; a button is `a{sv}` with `text`, `textColor` `#rrggbb`, `systemImageName`),
/// `tintColor`, `metadata` (`ay`), `sound` (`default`, a path or a theme name), `stopIntent` and
/// `secondaryIntent` (the names of the app's own actions), `applicationID` (the desktop app id whose
/// actions those are, for an app the agent knows by its executable), `breakthrough` (`b`: whether
/// the alert breaks through do-not-disturb; true when left out, and left out when true), `volume`
/// (the alert sound's volume in percent, 0–100, an integer or `d`), `ramp` (`d`: seconds the sound
/// takes to rise to it; 0 starts there), `ringTimeout` (`d`: seconds an unanswered alert rings; 0
/// until answered), each the agent's setting when left out, and `enabled` (`b`: false turns the
/// alarm off; true when left out, and left out when true). Without `presentation`, the alert
/// shows `title` with Stop, and Snooze (Repeat for a timer) when there is a `postAlert` duration.
package enum AlarmWire {
    // MARK: - Alarm objects

    /// The object path of an alarm: the manager's path, `/alarm/`, and its UUID in lower case
    /// with `-` escaped to `_`.
    package static func alarmPath(of id: UUID) -> String {
        AlarmBus.managerPath + "/alarm/" + id.lowercasedText(separator: "_")
    }

    /// The alarm id in an alarm object's path, or `nil` for any other path.
    package static func alarmID(ofPath path: String) -> UUID? {
        let prefix = AlarmBus.managerPath + "/alarm/"
        guard path.hasPrefix(prefix) else { return nil }
        return UUID(text: path.dropFirst(prefix.count), separator: "_")
    }

    // MARK: - Configurations

    /// The `a{sv}` form of a definition, as `Schedule` takes it.
    ///
    /// Keys whose value is what the agent assumes without them are left out: `presentation` when it
    /// is the default presentation for the title (then `title` stands for it), `tintColor` when it
    /// is the accent colour, `sound` when it is the default. Lists of many alarms stay small.
    package static func encode(_ definition: AlarmDefinition) -> DBusValue {
        var entries = entries(of: definition)
        // Without a presentation of its own, the title stands for the default one.
        if !entries.contains(where: { $0.key == "presentation" }) { entries.append(("title", .string(definition.title))) }
        return dictionary(entries)
    }

    /// An `a{sv}` dictionary of `entries`, whose keys are all different, sorted by key: what
    /// `DBusValue.dictionary(_:)` makes of the same entries, without hashing them into a
    /// `Dictionary` first. The agent encodes every alarm it replies with or announces, a dozen
    /// entries each, and the hashing, merging and re-sorting of those dictionaries was a
    /// measurable part of its engine thread's work per `Schedule` under load (issue 26).
    static func dictionary(_ entries: [(key: String, value: DBusValue)]) -> DBusValue {
        .array(elementSignature: "{sv}", entries.sorted { $0.key < $1.key }.map { .dictEntry(.string($0.key), .variant($0.value)) })
    }

    /// The presentation a definition without one gets (`entries(of:)` leaves it out then).
    private static func defaultPresentation(for definition: AlarmDefinition) -> AlarmPresentation {
        defaultPresentation(title: definition.title, isTimer: definition.isTimer, snoozes: definition.countdownDuration?.postAlert != nil)
    }

    /// The entries of a definition's `a{sv}` form; a `summary` leaves out the presentation, tint
    /// and metadata.
    ///
    /// The `title` is not among them: `encode(_:)` adds it when the presentation is the default
    /// one for it, an alarm's encoding always. The keys are all different, in no order
    /// (`dictionary(_:)` sorts them).
    static func entries(of definition: AlarmDefinition, summary: Bool = false) -> [(key: String, value: DBusValue)] {
        var entries: [(key: String, value: DBusValue)] = []
        entries.reserveCapacity(24)
        if !summary {
            if definition.presentation != defaultPresentation(for: definition) {
                entries.append(("presentation", encode(definition.presentation)))
            }
            if let metadata = definition.metadata {
                entries.append(("metadata", .array(elementSignature: "y", metadata.map(DBusValue.byte))))
            }
        }
        // The tint goes with the summary too (a few bytes, only when not the accent colour): the
        // list and the live view colour each alarm's id with it.
        if definition.tintColor != .accentColor { entries.append(("tintColor", .string(definition.tintColor.description))) }
        if definition.sound != .default { entries.append(("sound", .string(soundName(definition.sound)))) }
        if let schedule = definition.schedule { entries.append(("schedule", encode(schedule))) }
        if let countdown = definition.countdownDuration { entries.append(("countdown", encode(countdown))) }
        if let stop = definition.stopIntent { entries.append(("stopIntent", .string(stop))) }
        if let secondary = definition.secondaryIntent { entries.append(("secondaryIntent", .string(secondary))) }
        if let application = definition.applicationID { entries.append(("applicationID", .string(application))) }
        if !definition.breakthrough { entries.append(("breakthrough", .boolean(false))) }
        if let volume = definition.volume { entries.append(("volume", .int32(Int32(volume)))) }
        if let ramp = definition.soundRamp { entries.append(("ramp", .double(ramp))) }
        if let ringTimeout = definition.ringTimeout { entries.append(("ringTimeout", .double(ringTimeout))) }
        if !definition.isEnabled { entries.append(("enabled", .boolean(false))) }
        return entries
    }

    /// Reads a configuration sent to `Schedule`; throws `invalidConfiguration` naming the bad key.
    package static func decodeConfiguration(_ value: DBusValue) throws(AlarmRequestError) -> AlarmDefinition {
        try decodeConfiguration(DictionaryReader(value, field: "configuration"))
    }

    static func decodeConfiguration(_ reader: DictionaryReader) throws(AlarmRequestError) -> AlarmDefinition {
        var reader = reader
        let schedule = try reader.optional("schedule") { value, field throws(AlarmRequestError) in try decodeSchedule(value, field: field) }
        let countdown = try reader.optional("countdown") { value, field throws(AlarmRequestError) in
            try decodeCountdown(value, field: field)
        }
        let title = try reader.optional("title") { value, field throws(AlarmRequestError) in try string(value, field: field) }
        var presentation = try reader.optional("presentation") { value, field throws(AlarmRequestError) in
            try decodePresentation(value, field: field)
        }
        if presentation == nil {
            presentation = defaultPresentation(
                title: title ?? (schedule == nil ? "Timer" : "Alarm"), isTimer: schedule == nil,
                snoozes: countdown?.postAlert != nil)
        } else if let title {
            presentation?.alert.title = LocalizedStringResource(title)
        }
        let tint = try reader.optional("tintColor") { value, field throws(AlarmRequestError) in try color(value, field: field) }
        let metadata = try reader.optional("metadata") { value, field throws(AlarmRequestError) in try bytes(value, field: field) }
        let sound = try reader.optional("sound") { value, field throws(AlarmRequestError) in
            let name = try string(value, field: field)
            return name == "default" ? AlertConfiguration.AlertSound.default : .named(name)
        }
        let stopIntent = try reader.optional("stopIntent") { value, field throws(AlarmRequestError) in try string(value, field: field) }
        let secondaryIntent = try reader.optional("secondaryIntent") { value, field throws(AlarmRequestError) in
            try string(value, field: field)
        }
        let applicationID = try reader.optional("applicationID") { value, field throws(AlarmRequestError) in
            try string(value, field: field)
        }
        let breakthrough = try reader.optional("breakthrough") { value, field throws(AlarmRequestError) in
            try boolean(value, field: field)
        }
        let volume = try reader.optional("volume") { value, field throws(AlarmRequestError) in try percent(value, field: field) }
        let ramp = try reader.optional("ramp") { value, field throws(AlarmRequestError) in try seconds(value, field: field) }
        let ringTimeout = try reader.optional("ringTimeout") { value, field throws(AlarmRequestError) in
            try seconds(value, field: field)
        }
        let enabled = try reader.optional("enabled") { value, field throws(AlarmRequestError) in try boolean(value, field: field) }
        try reader.finish()
        var definition = AlarmDefinition(
            schedule: schedule, countdownDuration: countdown, presentation: presentation!,
            tintColor: tint ?? .accentColor, metadata: metadata, sound: sound ?? .default)
        definition.stopIntent = stopIntent
        definition.secondaryIntent = secondaryIntent
        definition.applicationID = applicationID
        definition.breakthrough = breakthrough ?? true
        definition.volume = volume
        definition.soundRamp = ramp
        definition.ringTimeout = ringTimeout
        definition.isEnabled = enabled ?? true
        return definition
    }

    /// The presentation an alarm gets when the configuration gives only a title.
    package static func defaultPresentation(title: String, isTimer: Bool, snoozes: Bool) -> AlarmPresentation {
        let alert =
            snoozes
            ? AlarmPresentation.Alert(
                title: LocalizedStringResource(title), stopButton: .stopButton,
                secondaryButton: isTimer ? .repeatButton : .snoozeButton, secondaryButtonBehavior: .countdown)
            : AlarmPresentation.Alert(title: LocalizedStringResource(title), stopButton: .stopButton)
        return AlarmPresentation(
            alert: alert, countdown: .init(title: LocalizedStringResource(title), pauseButton: .pauseButton),
            paused: .init(title: LocalizedStringResource(title), resumeButton: .resumeButton))
    }

    // MARK: - Alarms

    /// The `a{sv}` form of an alarm as the agent sends it: its configuration, plus `id`, `state`,
    /// `kind`, `title`, `owner`, and `fireDate` and `remaining` when known; `skipped` (`d`, seconds
    /// since 1970) while a repeating alarm skips an alert still ahead.
    ///
    /// A `summary` (what `List` sends) leaves out the presentation and metadata: a list of a
    /// thousand alarms stays quick to send and read, and `Get` gives the whole alarm. It keeps a
    /// tint other than the accent colour, which the list and the live view show.
    package static func encode(_ record: AlarmRecord, at reading: ClockReading, summary: Bool = false) -> DBusValue {
        var extra = entries(of: record.definition, summary: summary)
        extra.append(("id", .string(record.id.lowercasedText())))
        extra.append(("state", .string(record.state.rawValue)))
        extra.append(("kind", .string(record.definition.isTimer ? "timer" : "alarm")))
        extra.append(("title", .string(record.definition.title)))
        extra.append(("owner", .string(record.owner)))
        if let fireDate = record.fireDate(from: reading) { extra.append(("fireDate", .double(fireDate.timeIntervalSince1970))) }
        if let remaining = record.remaining(from: reading) { extra.append(("remaining", .double(remaining))) }
        if let skipped = record.pendingSkip(at: reading.now) { extra.append(("skipped", .double(skipped.timeIntervalSince1970))) }
        switch record.phase {
        case .alerting(let ringing):
            extra.append(("alertScheduledAt", .double(ringing.scheduledAt.timeIntervalSince1970)))
            extra.append(("alertStartedAt", .double(ringing.startedAt.timeIntervalSince1970)))
        case .countdown(let countdown):
            extra.append(("countdownTotal", .double(countdown.duration)))
        case .paused(let paused):
            extra.append(("countdownTotal", .double(paused.duration)))
        case .scheduled:
            break
        }
        return dictionary(extra)
    }

    /// An alarm as the agent described it.
    ///
    /// Its fields live in one box the copies share (`CopyOnWrite`), so a copy costs one
    /// reference: a client hands out its whole list of (possibly thousands of) alarms after every
    /// change. The id is kept beside the box as well: lists are searched and compared by id, and
    /// reading it from the array itself spares a trip to each alarm's box (a cache miss apiece
    /// over a list of thousands).
    package struct RemoteAlarm: Hashable, Identifiable, Sendable {
        /// The fields, compared and hashed together.
        private struct Fields: Hashable, Sendable {
            var alarm: Alarm
            var definition: AlarmDefinition
            var owner: String
            var fireDate: Date?
            var remaining: TimeInterval?
            var countdownEnd: ElapsedDeadline?
            var countdownTotal: TimeInterval?
            var alertScheduledAt: Date?
            var alertStartedAt: Date?
            var skippedAlert: Date?
        }

        /// The box the copies share.
        private var storage: CopyOnWrite<Fields>

        /// The alarm's id (`alarm.id`).
        package private(set) var id: UUID

        /// Describes an alarm. A running countdown's end is `countdownEnd` when given; otherwise it
        /// is read as `remaining` seconds after whatever reading `record(at:)` is given.
        package init(
            alarm: Alarm, definition: AlarmDefinition, owner: String, fireDate: Date? = nil, remaining: TimeInterval? = nil,
            countdownTotal: TimeInterval? = nil, alertScheduledAt: Date? = nil, alertStartedAt: Date? = nil,
            countdownEnd: ElapsedDeadline? = nil, skippedAlert: Date? = nil
        ) {
            id = alarm.id
            storage = CopyOnWrite(
                Fields(
                    alarm: alarm, definition: definition, owner: owner, fireDate: fireDate, remaining: remaining,
                    countdownEnd: countdownEnd, countdownTotal: countdownTotal, alertScheduledAt: alertScheduledAt,
                    alertStartedAt: alertStartedAt, skippedAlert: skippedAlert))
        }

        /// The alarm as AlarmKit shows it.
        package var alarm: Alarm {
            get { storage.fields.alarm }
            set {
                storage.fields.alarm = newValue
                id = newValue.id
            }
        }
        /// Its configuration.
        package var definition: AlarmDefinition {
            get { storage.fields.definition }
            set { storage.fields.definition = newValue }
        }
        /// Its owner.
        package var owner: String {
            get { storage.fields.owner }
            set { storage.fields.owner = newValue }
        }
        /// Its next alert instant, when known.
        package var fireDate: Date? {
            get { storage.fields.fireDate }
            set { storage.fields.fireDate = newValue }
        }
        /// Seconds left of a running or paused countdown.
        package var remaining: TimeInterval? {
            get { storage.fields.remaining }
            set { storage.fields.remaining = newValue }
        }
        /// The whole length of a running or paused countdown.
        package var countdownTotal: TimeInterval? {
            get { storage.fields.countdownTotal }
            set { storage.fields.countdownTotal = newValue }
        }
        /// When a running countdown ends, on the boot clock of the reading it was received at:
        /// `remaining` seconds after that moment, fixed then (a list that is shown again later, or
        /// after another alarm changed, does not move it).
        package var countdownEnd: ElapsedDeadline? {
            get { storage.fields.countdownEnd }
            set { storage.fields.countdownEnd = newValue }
        }
        /// When a ringing alert was due.
        package var alertScheduledAt: Date? {
            get { storage.fields.alertScheduledAt }
            set { storage.fields.alertScheduledAt = newValue }
        }
        /// When a ringing alert began.
        package var alertStartedAt: Date? {
            get { storage.fields.alertStartedAt }
            set { storage.fields.alertStartedAt = newValue }
        }

        /// The alert a repeating alarm skips, while it is ahead.
        package var skippedAlert: Date? {
            get { storage.fields.skippedAlert }
            set { storage.fields.skippedAlert = newValue }
        }

        /// The alarm as a record, its instants read against `reading` (a running countdown ends at
        /// `countdownEnd`, or, without one, `remaining` seconds after `reading`).
        package func record(at reading: ClockReading) -> AlarmRecord {
            let phase: AlarmRecord.Phase
            switch alarm.state {
            case .scheduled:
                phase = .scheduled(alertAt: fireDate ?? reading.now)
            case .countdown:
                phase = .countdown(
                    .init(
                        kind: definition.isTimer ? .preAlert : .postAlert,
                        endsAt: countdownEnd ?? reading.elapsedDeadline(after: remaining ?? 0),
                        duration: countdownTotal ?? remaining ?? 0))
            case .paused:
                phase = .paused(
                    .init(
                        kind: definition.isTimer ? .preAlert : .postAlert, remaining: remaining ?? 0,
                        duration: countdownTotal ?? remaining ?? 0))
            case .alerting:
                phase = .alerting(
                    .init(
                        scheduledAt: alertScheduledAt ?? reading.now, startedAt: alertStartedAt ?? reading.now, timesOutAt: nil))
            }
            return AlarmRecord(
                id: alarm.id, owner: owner, definition: definition, phase: phase, anchor: reading.now, skippedAlert: skippedAlert)
        }
    }

    /// Reads an alarm sent by the agent, received now (see `decodeAlarm(_:receivedAt:)`).
    package static func decodeAlarm(_ value: DBusValue) throws -> RemoteAlarm {
        try decodeAlarm(value, receivedAt: .local())
    }

    /// Reads alarms the agent sent in one message, received now: every running countdown's end is
    /// fixed against the same reading.
    package static func decodeAlarms(_ values: [DBusValue]) throws -> [RemoteAlarm] {
        let reading = ClockReading.local()
        return try values.map { try decodeAlarm($0, receivedAt: reading) }
    }

    /// Reads an alarm sent by the agent, received at `receivedAt`: a running countdown's end is
    /// fixed then, `remaining` seconds later (``RemoteAlarm/countdownEnd``).
    package static func decodeAlarm(_ value: DBusValue, receivedAt reading: ClockReading) throws -> RemoteAlarm {
        guard var entries = try? DictionaryReader(value, field: "alarm") else { throw AlarmWireError.malformed("an alarm is not an a{sv}") }
        guard let idText = entries.take("id")?.stringValue, let id = UUID(text: idText) else {
            throw AlarmWireError.malformed("an alarm has no id")
        }
        guard let stateText = entries.take("state")?.stringValue, let state = Alarm.State(rawValue: stateText) else {
            throw AlarmWireError.malformed("alarm \(idText) has no state")
        }
        let owner = entries.take("owner")?.stringValue ?? ""
        let fireDate = entries.take("fireDate")?.doubleValue.map(Date.init(timeIntervalSince1970:))
        let remaining = entries.take("remaining")?.doubleValue
        let total = entries.take("countdownTotal")?.doubleValue
        let scheduledAt = entries.take("alertScheduledAt")?.doubleValue.map(Date.init(timeIntervalSince1970:))
        let startedAt = entries.take("alertStartedAt")?.doubleValue.map(Date.init(timeIntervalSince1970:))
        let skipped = entries.take("skipped")?.doubleValue.map(Date.init(timeIntervalSince1970:))
        _ = entries.take("kind")
        // The rest is the configuration. The title also stands inside a full presentation.
        if entries.contains("presentation") { _ = entries.take("title") }
        let definition: AlarmDefinition
        do {
            definition = try decodeConfiguration(entries.reading(as: "configuration"))
        } catch {
            throw AlarmWireError.malformed("alarm \(idText): \(error)")
        }
        let alarm = Alarm(id: id, schedule: definition.schedule, countdownDuration: definition.countdownDuration, state: state)
        return RemoteAlarm(
            alarm: alarm, definition: definition, owner: owner, fireDate: fireDate, remaining: remaining,
            countdownTotal: total, alertScheduledAt: scheduledAt, alertStartedAt: startedAt,
            countdownEnd: state == .countdown ? remaining.map(reading.elapsedDeadline(after:)) : nil, skippedAlert: skipped)
    }

    // MARK: - Parts

    /// The `a{sv}` form of a schedule.
    package static func encode(_ schedule: Alarm.Schedule) -> DBusValue {
        switch schedule {
        case .fixed(let date):
            return .dictionary(["fixed": .double(date.timeIntervalSince1970)])
        case .relative(let relative):
            var entries: [String: DBusValue] = [
                "hour": .int32(Int32(relative.time.hour)), "minute": .int32(Int32(relative.time.minute)),
            ]
            if case .weekly(let days) = relative.repeats {
                entries["weekdays"] = .strings(days.map(\.englishName))
            }
            return .dictionary(entries)
        }
    }

    static func decodeSchedule(_ value: DBusValue, field: String) throws(AlarmRequestError) -> Alarm.Schedule {
        var reader = try DictionaryReader(value, field: field)
        if let fixed = try reader.optional("fixed", { value, field throws(AlarmRequestError) in try seconds(value, field: field) }) {
            try reader.finish()
            return .fixed(Date(timeIntervalSince1970: fixed))
        }
        guard let hour = try reader.optional("hour", { value, field throws(AlarmRequestError) in try integer(value, field: field) }) else {
            throw .invalidConfiguration(field: field, reason: "needs either fixed, or hour and minute")
        }
        let minute = try reader.optional("minute") { value, field throws(AlarmRequestError) in try integer(value, field: field) } ?? 0
        let weekdays = try reader.optional("weekdays") { value, field throws(AlarmRequestError) in try decodeWeekdays(value, field: field) }
        try reader.finish()
        return .relative(.init(time: .init(hour: hour, minute: minute), repeats: weekdays.map { .weekly($0) } ?? .never))
    }

    static func decodeWeekdays(_ value: DBusValue, field: String) throws(AlarmRequestError) -> [Locale.Weekday] {
        guard case .array("s", let names) = value.unwrapped else {
            throw .invalidConfiguration(field: field, reason: "must be an array of day names (as)")
        }
        var days: [Locale.Weekday] = []
        for name in names {
            let text = name.stringValue ?? ""
            guard
                let day = Locale.Weekday.sundayFirst.first(where: {
                    $0.englishName == text.lowercased() || $0.rawValue == text.lowercased()
                })
            else { throw .invalidConfiguration(field: field, reason: "\(QuotedText.quote(text)) is not a day (monday … sunday)") }
            if !days.contains(day) { days.append(day) }
        }
        return days
    }

    /// The `a{sv}` form of countdown durations.
    package static func encode(_ countdown: Alarm.CountdownDuration) -> DBusValue {
        var entries: [String: DBusValue] = [:]
        if let preAlert = countdown.preAlert { entries["preAlert"] = .double(preAlert) }
        if let postAlert = countdown.postAlert { entries["postAlert"] = .double(postAlert) }
        return .dictionary(entries)
    }

    static func decodeCountdown(_ value: DBusValue, field: String) throws(AlarmRequestError) -> Alarm.CountdownDuration {
        var reader = try DictionaryReader(value, field: field)
        let preAlert = try reader.optional("preAlert") { value, field throws(AlarmRequestError) in try seconds(value, field: field) }
        let postAlert = try reader.optional("postAlert") { value, field throws(AlarmRequestError) in try seconds(value, field: field) }
        try reader.finish()
        return Alarm.CountdownDuration(preAlert: preAlert, postAlert: postAlert)
    }

    static func encode(_ presentation: AlarmPresentation) -> DBusValue {
        var alert: [String: DBusValue] = [
            "title": .string(presentation.alert.title.key), "stopButton": encode(presentation.alert.stopButton),
        ]
        if let secondary = presentation.alert.secondaryButton { alert["secondaryButton"] = encode(secondary) }
        if let behavior = presentation.alert.secondaryButtonBehavior { alert["secondaryButtonBehavior"] = .string(behavior.rawValue) }
        var entries: [String: DBusValue] = ["alert": .dictionary(alert)]
        if let countdown = presentation.countdown {
            var view: [String: DBusValue] = ["title": .string(countdown.title.key)]
            if let pause = countdown.pauseButton { view["pauseButton"] = encode(pause) }
            entries["countdown"] = .dictionary(view)
        }
        if let paused = presentation.paused {
            entries["paused"] = .dictionary(["title": .string(paused.title.key), "resumeButton": encode(paused.resumeButton)])
        }
        return .dictionary(entries)
    }

    static func decodePresentation(_ value: DBusValue, field: String) throws(AlarmRequestError) -> AlarmPresentation {
        var reader = try DictionaryReader(value, field: field)
        guard
            let alert = try reader.optional(
                "alert",
                { value, field throws(AlarmRequestError) -> AlarmPresentation.Alert in
                    var alert = try DictionaryReader(value, field: field)
                    let title =
                        try alert.optional("title") { value, field throws(AlarmRequestError) in try string(value, field: field) } ?? ""
                    let stop = try alert.optional("stopButton") { value, field throws(AlarmRequestError) in try button(value, field: field)
                    }
                    let secondary = try alert.optional("secondaryButton") { value, field throws(AlarmRequestError) in
                        try button(value, field: field)
                    }
                    let behavior = try alert.optional("secondaryButtonBehavior") { value, field throws(AlarmRequestError) in
                        let text = try string(value, field: field)
                        guard let behavior = AlarmPresentation.Alert.SecondaryButtonBehavior(rawValue: text) else {
                            throw .invalidConfiguration(field: field, reason: "\(QuotedText.quote(text)) is neither countdown nor custom")
                        }
                        return behavior
                    }
                    try alert.finish()
                    return .init(
                        title: LocalizedStringResource(title), stopButton: stop ?? .stopButton, secondaryButton: secondary,
                        secondaryButtonBehavior: behavior)
                })
        else { throw .invalidConfiguration(field: field + ".alert", reason: "is required") }
        let countdown = try reader.optional("countdown") { value, field throws(AlarmRequestError) -> AlarmPresentation.Countdown in
            var view = try DictionaryReader(value, field: field)
            let title = try view.optional("title") { value, field throws(AlarmRequestError) in try string(value, field: field) } ?? ""
            let pause = try view.optional("pauseButton") { value, field throws(AlarmRequestError) in try button(value, field: field) }
            try view.finish()
            return .init(title: LocalizedStringResource(title), pauseButton: pause)
        }
        let paused = try reader.optional("paused") { value, field throws(AlarmRequestError) -> AlarmPresentation.Paused in
            var view = try DictionaryReader(value, field: field)
            let title = try view.optional("title") { value, field throws(AlarmRequestError) in try string(value, field: field) } ?? ""
            let resume = try view.optional("resumeButton") { value, field throws(AlarmRequestError) in try button(value, field: field) }
            try view.finish()
            return .init(title: LocalizedStringResource(title), resumeButton: resume ?? .resumeButton)
        }
        try reader.finish()
        return AlarmPresentation(alert: alert, countdown: countdown, paused: paused)
    }

    static func encode(_ button: AlarmButton) -> DBusValue {
        .dictionary([
            "text": .string(button.text.key), "textColor": .string(button.textColor.description),
            "systemImageName": .string(button.systemImageName),
        ])
    }

    static func button(_ value: DBusValue, field: String) throws(AlarmRequestError) -> AlarmButton {
        var reader = try DictionaryReader(value, field: field)
        let text = try reader.optional("text") { value, field throws(AlarmRequestError) in try string(value, field: field) }
        let textColor = try reader.optional("textColor") { value, field throws(AlarmRequestError) in try color(value, field: field) }
        let image = try reader.optional("systemImageName") { value, field throws(AlarmRequestError) in try string(value, field: field) }
        try reader.finish()
        guard let text else { throw .invalidConfiguration(field: field + ".text", reason: "is required") }
        return AlarmButton(text: LocalizedStringResource(text), textColor: textColor ?? .white, systemImageName: image ?? "")
    }

    static func soundName(_ sound: AlertConfiguration.AlertSound) -> String {
        switch sound {
        case .default: "default"
        case .named(let name): name
        }
    }

    // MARK: - Scalars

    static func string(_ value: DBusValue, field: String) throws(AlarmRequestError) -> String {
        guard case .string(let text) = value.unwrapped else {
            throw .invalidConfiguration(field: field, reason: "must be a string (s), not \(value.unwrapped.signature)")
        }
        return text
    }

    static func boolean(_ value: DBusValue, field: String) throws(AlarmRequestError) -> Bool {
        guard case .boolean(let flag) = value.unwrapped else {
            throw .invalidConfiguration(field: field, reason: "must be a boolean (b), not \(value.unwrapped.signature)")
        }
        return flag
    }

    static func integer(_ value: DBusValue, field: String) throws(AlarmRequestError) -> Int {
        guard let number = value.integerValue, let small = Int(exactly: number) else {
            throw .invalidConfiguration(field: field, reason: "must be an integer, not \(value.unwrapped.signature)")
        }
        return small
    }

    static func seconds(_ value: DBusValue, field: String) throws(AlarmRequestError) -> Double {
        if let number = value.doubleValue { return number }
        if let number = value.integerValue { return Double(number) }
        throw .invalidConfiguration(field: field, reason: "must be a number of seconds (d), not \(value.unwrapped.signature)")
    }

    /// A percentage: an integer, or a `d` with no fraction; its range is the model's to check.
    static func percent(_ value: DBusValue, field: String) throws(AlarmRequestError) -> Int {
        if let number = value.doubleValue {
            guard number.isFinite, number.rounded() == number, let whole = Int(exactly: number) else {
                throw .invalidConfiguration(field: field, reason: "\(number) is not a whole percentage")
            }
            return whole
        }
        guard let number = value.integerValue, let small = Int(exactly: number) else {
            throw .invalidConfiguration(field: field, reason: "must be a percentage (i or d), not \(value.unwrapped.signature)")
        }
        return small
    }

    static func bytes(_ value: DBusValue, field: String) throws(AlarmRequestError) -> Data {
        guard case .array("y", let elements) = value.unwrapped else {
            throw .invalidConfiguration(field: field, reason: "must be bytes (ay), not \(value.unwrapped.signature)")
        }
        return Data(elements.compactMap { if case .byte(let byte) = $0 { byte } else { nil } })
    }

    static func color(_ value: DBusValue, field: String) throws(AlarmRequestError) -> Color {
        let text = try string(value, field: field)
        guard let color = Color(hex: text) else {
            throw .invalidConfiguration(field: field, reason: "\(QuotedText.quote(text)) is not a colour (#rrggbb or #rrggbbaa)")
        }
        return color
    }
}

/// Why an answer from the agent could not be read.
package enum AlarmWireError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The answer does not have the documented shape.
    case malformed(String)

    /// A sentence for a person.
    package var description: String {
        switch self {
        case .malformed(let reason): "the agent sent something unexpected: \(reason)"
        }
    }
}

/// Reads the entries of an `a{sv}`, each at most once, and refuses keys nobody read.
///
/// The entries stay a list, searched by key: a configuration has a dozen keys at most, and a scan
/// of a dozen short strings costs less than hashing each into a dictionary (this runs for every
/// `Schedule` call and every alarm a client reads).
struct DictionaryReader {
    /// The entries not read yet, in the order they came.
    private var entries: [(key: String, value: DBusValue)]
    private let field: String

    /// Reads a dictionary; throws for anything else, and for a key that comes twice.
    init(_ value: DBusValue, field: String) throws(AlarmRequestError) {
        // The error is made only when thrown: its text is a heap string, and every alarm a client
        // reads (a reply, each alarm of each `AlarmsChanged`) goes through here a few times.
        func notDictionary() -> AlarmRequestError {
            .invalidConfiguration(field: field, reason: "must be a dictionary (a{sv}), not \(value.unwrapped.signature)")
        }
        guard case .array(let signature, let elements) = value.unwrapped, signature.hasPrefix("{s") else { throw notDictionary() }
        var entries: [(key: String, value: DBusValue)] = []
        entries.reserveCapacity(elements.count)
        for element in elements {
            guard case .dictEntry(let key, let value) = element, let name = key.stringValue else { throw notDictionary() }
            entries.append((name, value))
        }
        if let repeated = Self.repeatedKey(in: entries) {
            throw .invalidConfiguration(field: field, reason: "has the key \(QuotedText.quote(repeated)) more than once")
        }
        self.entries = entries
        self.field = field
    }

    /// A key that comes more than once; compared pairwise for the dozen keys of a configuration,
    /// hashed for more.
    private static func repeatedKey(in entries: [(key: String, value: DBusValue)]) -> String? {
        if entries.count <= 16 {
            for index in entries.indices where entries[..<index].contains(where: { $0.key == entries[index].key }) {
                return entries[index].key
            }
        } else {
            var seen = Set<String>(minimumCapacity: entries.count)
            for entry in entries where !seen.insert(entry.key).inserted { return entry.key }
        }
        return nil
    }

    /// The entries not read yet, read on as the named field.
    func reading(as field: String) -> DictionaryReader {
        DictionaryReader(entries: entries, field: field)
    }

    private init(entries: [(key: String, value: DBusValue)], field: String) {
        self.entries = entries
        self.field = field
    }

    /// Whether the key is there and not read yet.
    func contains(_ key: String) -> Bool { entries.contains { $0.key == key } }

    /// Takes an entry's value out, unchecked; `nil` when absent.
    mutating func take(_ key: String) -> DBusValue? {
        guard let index = entries.firstIndex(where: { $0.key == key }) else { return nil }
        return entries.remove(at: index).value
    }

    mutating func optional<Value>(
        _ key: String, _ read: (DBusValue, String) throws(AlarmRequestError) -> Value
    ) throws(AlarmRequestError) -> Value? {
        guard let value = take(key) else { return nil }
        return try read(value, field == "configuration" ? key : "\(field).\(key)")
    }

    func finish() throws(AlarmRequestError) {
        if let unknown = entries.lazy.map(\.key).min() {
            // A key is the caller's text: quoted, so that a mebibyte key is not sent back whole.
            let key = QuotedText.quote(unknown)
            throw .invalidConfiguration(field: field == "configuration" ? key : "\(field).\(key)", reason: "is not a known key")
        }
    }
}
