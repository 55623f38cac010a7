import AlarmModel
import AlarmRecords
import DBus
import FoundationEssentials

/// How a change to an alarm travels: the `a{sv}` the `Edit` call takes.
///
/// Keys (each optional; a change has at least one): `title` (`s`), `schedule` (`a{sv}`, as
/// `Schedule` takes it: the whole schedule), `time` (`a{sv}`: `hour`, `minute`; keeps the days,
/// or an instant's local day), `weekdays` (`as`, day names; empty: once; keeps the clock time),
/// `snooze` (`b`: true snoozes for the agent's length, false offers no Snooze; or `d`: seconds),
/// `preAlert` (`d`: seconds of countdown before the alert; 0 takes it away), `sound` (`s`;
/// `default`), `volume` (`i` or `d`: percent), `ramp` (`d`), `ringTimeout` (`d`),
/// `breakthrough` (`b`), `reset` (`as`: `volume`, `ramp`, `ringTimeout`, which go back to the
/// agent's own). An unknown key is refused, naming it.
extension AlarmWire {
    /// The `a{sv}` form of a change, as `Edit` takes it.
    package static func encode(_ change: AlarmEdit) -> DBusValue {
        var entries: [(key: String, value: DBusValue)] = []
        if let title = change.title { entries.append(("title", .string(title))) }
        if let schedule = change.schedule { entries.append(("schedule", encode(schedule))) }
        if let time = change.time {
            entries.append(("time", .dictionary(["hour": .int32(Int32(time.hour)), "minute": .int32(Int32(time.minute))])))
        }
        if let weekdays = change.weekdays { entries.append(("weekdays", .strings(weekdays.map(\.englishName)))) }
        switch change.snooze {
        case .off?: entries.append(("snooze", .boolean(false)))
        case .agentDefault?: entries.append(("snooze", .boolean(true)))
        case .seconds(let seconds)?: entries.append(("snooze", .double(seconds)))
        case nil: break
        }
        if let preAlert = change.preAlert { entries.append(("preAlert", .double(preAlert))) }
        if let sound = change.sound { entries.append(("sound", .string(soundName(sound)))) }
        if let volume = change.volume { entries.append(("volume", .int32(Int32(clamping: volume)))) }
        if let ramp = change.ramp { entries.append(("ramp", .double(ramp))) }
        if let ringTimeout = change.ringTimeout { entries.append(("ringTimeout", .double(ringTimeout))) }
        if let breakthrough = change.breakthrough { entries.append(("breakthrough", .boolean(breakthrough))) }
        if !change.reset.isEmpty { entries.append(("reset", .strings(change.reset.map(\.rawValue).sorted()))) }
        return dictionary(entries)
    }

    /// Reads the change sent to `Edit`; throws `invalidConfiguration` naming the bad key, and for
    /// a change that changes nothing.
    package static func decodeEdit(_ value: DBusValue) throws(AlarmRequestError) -> AlarmEdit {
        var reader = try DictionaryReader(value, field: "changes")
        var change = AlarmEdit()
        change.title = try reader.optional("title") { value, field throws(AlarmRequestError) in try string(value, field: field) }
        change.schedule = try reader.optional("schedule") { value, field throws(AlarmRequestError) in
            try decodeSchedule(value, field: field)
        }
        change.time = try reader.optional("time") { value, field throws(AlarmRequestError) in
            var time = try DictionaryReader(value, field: field)
            guard let hour = try time.optional("hour", { value, field throws(AlarmRequestError) in try integer(value, field: field) })
            else {
                throw .invalidConfiguration(field: field, reason: "needs an hour and a minute")
            }
            let minute = try time.optional("minute") { value, field throws(AlarmRequestError) in try integer(value, field: field) } ?? 0
            try time.finish()
            guard (0...23).contains(hour), (0...59).contains(minute) else {
                throw .invalidConfiguration(field: field, reason: "\(hour):\(minute) is not a clock time (0:00 to 23:59)")
            }
            return Alarm.Schedule.Relative.Time(hour: hour, minute: minute)
        }
        change.weekdays = try reader.optional("weekdays") { value, field throws(AlarmRequestError) in
            try decodeWeekdays(value, field: field)
        }
        change.snooze = try reader.optional("snooze") { value, field throws(AlarmRequestError) in
            if case .boolean(let on) = value.unwrapped { return on ? AlarmEdit.Snooze.agentDefault : .off }
            let seconds = try seconds(value, field: field)
            try AlarmDefinition.validate(duration: seconds, field: field)
            return .seconds(seconds)
        }
        change.preAlert = try reader.optional("preAlert") { value, field throws(AlarmRequestError) in
            let seconds = try seconds(value, field: field)
            if seconds != 0 { try AlarmDefinition.validate(duration: seconds, field: field) }
            return seconds
        }
        change.sound = try reader.optional("sound") { value, field throws(AlarmRequestError) in
            let name = try string(value, field: field)
            return name == "default" ? AlertConfiguration.AlertSound.default : .named(name)
        }
        change.volume = try reader.optional("volume") { value, field throws(AlarmRequestError) in try percent(value, field: field) }
        change.ramp = try reader.optional("ramp") { value, field throws(AlarmRequestError) in try seconds(value, field: field) }
        change.ringTimeout = try reader.optional("ringTimeout") { value, field throws(AlarmRequestError) in try seconds(value, field: field)
        }
        change.breakthrough = try reader.optional("breakthrough") { value, field throws(AlarmRequestError) in
            try boolean(value, field: field)
        }
        change.reset =
            try reader.optional("reset") { value, field throws(AlarmRequestError) in
                guard case .array("s", let names) = value.unwrapped else {
                    throw .invalidConfiguration(field: field, reason: "must be an array of setting names (as)")
                }
                var settings = Set<AlarmEdit.Setting>()
                for name in names {
                    let text = name.stringValue ?? ""
                    guard let setting = AlarmEdit.Setting(rawValue: text) else {
                        throw .invalidConfiguration(field: field, reason: "\(QuotedText.quote(text)) is not volume, ramp or ringTimeout")
                    }
                    settings.insert(setting)
                }
                return settings
            } ?? []
        try reader.finish()
        guard !change.isEmpty else { throw .invalidConfiguration(field: "changes", reason: "changes nothing: give at least one key") }
        return change
    }
}
