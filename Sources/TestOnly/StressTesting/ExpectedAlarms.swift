import AlarmKit
import AlarmProtocol
import AlarmRecords
import CommandLineText
import DBus
import Foundation

/// The fuzzer's model of the agent's store: which alarms must exist, and which must not, after
/// the calls the agent answered. A call whose outcome is unknown (no answer) makes its alarm
/// unknown. Every answer is also checked against the model (a `NotFound` for an alarm that must
/// exist is a problem), and every accepted configuration against the agent's own rules, run here.
package struct ExpectedAlarms: Sendable {
    /// What is known about one alarm.
    package struct Expectation: Sendable, Hashable {
        /// Whether it exists; nil when a call about it went unanswered.
        package var exists: Bool?
        /// Whether it repeats (so `Stop` keeps it).
        package var repeats = false
        /// Its title as last scheduled.
        package var title = ""
    }

    /// Every alarm a call named; an id never named does not exist.
    package private(set) var alarms: [UUID: Expectation] = [:]

    /// Creates an empty model (an empty store).
    package init() {}

    /// The ids that must exist.
    package var mustExist: Set<UUID> { Set(alarms.filter { $0.value.exists == true }.keys) }

    /// The ids that may exist (must, or unknown).
    package var mayExist: Set<UUID> { Set(alarms.filter { $0.value.exists != false }.keys) }

    /// Takes in one answered call; returns a problem when the answer contradicts the model or the
    /// configuration rules.
    ///
    /// Call it only for calls the agent answered (a return or an agent error): decoding a
    /// configuration here runs the agent's own decoding code, which the answer shows is safe.
    package mutating func record(_ effect: FuzzCall.Effect, verdict: ReplyVerdict, errorMessage: String, at now: Date) -> String? {
        switch effect {
        case .none:
            return nil
        case .schedule(let id, let configuration):
            // Only for answered calls: the agent has decoded this configuration and lived.
            func local() -> Result<AlarmDefinition, any Error> {
                Result {
                    let definition = try AlarmWire.decodeConfiguration(configuration)
                    try definition.validate(now: now)
                    return definition
                }
            }
            switch verdict {
            case .returned:
                guard let id else { return "Schedule accepted an id that is no UUID" }
                let definition: AlarmDefinition
                switch local() {
                case .success(let decoded): definition = decoded
                case .failure(let error): return "Schedule accepted a configuration its own rules refuse: \(error)"
                }
                alarms[id] = Expectation(exists: true, repeats: definition.repeats, title: definition.title)
                return nil
            case .namedError(let name):
                if name.hasSuffix(".InvalidConfiguration"), case .success = local() {
                    return "Schedule refused a configuration its own rules accept: \(errorMessage.prefix(300))"
                }
                if let id, alarms[id] == nil { alarms[id] = Expectation(exists: false) }
                return nil
            case .problem:
                if let id { alarms[id, default: Expectation()].exists = nil }
                return nil
            }
        case .edit(let id, let changes):
            let local = Result { () throws(AlarmRequestError) in try AlarmWire.decodeEdit(changes) }
            switch verdict {
            case .returned:
                guard let id else { return "Edit accepted an id that is no UUID" }
                guard case .success(let change) = local else { return "Edit accepted changes its own rules refuse" }
                if alarms[id]?.exists == false || alarms[id] == nil { return "Edit succeeded for \(id), which does not exist" }
                if let weekdays = change.weekdays { alarms[id]?.repeats = !weekdays.isEmpty }
                if let schedule = change.schedule {
                    if case .relative(let relative) = schedule, case .weekly(let days) = relative.repeats {
                        alarms[id]?.repeats = !days.isEmpty
                    } else {
                        alarms[id]?.repeats = false
                    }
                }
                if let title = change.title { alarms[id]?.title = title }
                return nil
            case .namedError(let name):
                if name.hasSuffix(".NotFound"), let id, alarms[id]?.exists == true, case .success = local {
                    return "Edit said NotFound for \(id), which exists"
                }
                return nil
            case .problem:
                if let id { alarms[id, default: Expectation()].exists = nil }
                return nil
            }
        case .control(let method, let id):
            guard let id else {
                if case .returned = verdict { return "\(method) accepted an id that is no UUID" }
                return nil
            }
            // What the model says: it exists, it does not, or unknown. An id never named does not.
            let modelled: Bool? = if let known = alarms[id] { known.exists } else { false }
            switch verdict {
            case .returned:
                if modelled == false { return "\(method) succeeded for \(id), which does not exist" }
                switch method {
                case "Cancel": alarms[id, default: Expectation()].exists = false
                case "Stop": alarms[id, default: Expectation()].exists = alarms[id]?.repeats ?? false  // A repeating alarm stays.
                default: break
                }
                return nil
            case .namedError(let name):
                if name.hasSuffix(".NotFound"), modelled == true { return "\(method) said NotFound for \(id), which exists" }
                // Snooze checks its seconds before it looks for the alarm.
                let argumentsFirst = method == "Snooze" && name.hasSuffix(".InvalidArguments")
                if !name.hasSuffix(".NotFound"), !argumentsFirst, name.hasPrefix("io.github.reveille"), modelled == false {
                    return "\(method) answered \(name) for \(id), which does not exist"
                }
                return nil
            case .problem:
                alarms[id, default: Expectation()].exists = nil
                return nil
            }
        }
    }
}
