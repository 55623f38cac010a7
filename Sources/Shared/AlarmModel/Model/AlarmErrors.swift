import FoundationEssentials

extension AlarmManager {
    /// Errors AlarmKit's `AlarmManager` defines.
    public enum AlarmError: Error, Hashable, Sendable, CustomStringConvertible {
        /// The app has as many alarms as it may have.
        case maximumLimitReached

        /// A sentence for a person.
        public var description: String {
            switch self {
            case .maximumLimitReached: "this app has reached the maximum number of alarms"
            }
        }
    }
}

/// An operation a person or app asks of an alarm.
public enum AlarmOperation: String, Codable, Hashable, Sendable, CaseIterable {
    /// Schedule or replace it.
    case schedule
    /// Remove it, whatever its state.
    case cancel
    /// End its alert.
    case stop
    /// Pause its countdown.
    case pause
    /// Resume its paused countdown.
    case resume
    /// Snooze or repeat it: start the `postAlert` countdown from the alert.
    case countdown
    /// Skip the next alert of a repeating alarm (a Reveille extra).
    case skip
    /// Ring the skipped alert after all (a Reveille extra).
    case unskip
    /// Turn the alarm off, keeping it (a Reveille extra).
    case turnOff = "turn off"
    /// Turn the alarm on again (a Reveille extra).
    case turnOn = "turn on"
    /// Change some of its settings, keeping its id and history (a Reveille extra).
    case edit
}

/// Why the agent refused a request about an alarm.
public enum AlarmRequestError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No alarm has this identifier (or the caller may not see it).
    case alarmNotFound(UUID)
    /// The operation is not one the alarm's state allows.
    case operationNotAllowed(AlarmOperation, state: Alarm.State)
    /// A field of the configuration is not valid.
    case invalidConfiguration(field: String, reason: String)
    /// `countdown` (snooze, repeat) asked of an alarm with no `postAlert` duration.
    case noPostAlertDuration(UUID)

    /// A sentence for a person, naming the alarm, operation, state or field.
    public var description: String {
        switch self {
        case .alarmNotFound(let id):
            "no alarm with id \(id.lowercasedText())"
        case .operationNotAllowed(let operation, let state):
            "cannot \(operation.rawValue) an alarm that is \(state.rawValue)"
                + (AlarmRequestError.allowedStates[operation].map { " (only when \($0))" } ?? "")
        case .invalidConfiguration(let field, let reason):
            "invalid \(field): \(reason)"
        case .noPostAlertDuration(let id):
            "alarm \(id.lowercasedText()) has no postAlert duration to snooze or repeat with"
        }
    }

    private static let allowedStates: [AlarmOperation: String] = [
        .stop: "alerting", .pause: "counting down", .resume: "paused", .countdown: "alerting",
        .skip: "a repeating alarm is on and skips no alert yet", .unskip: "a repeating alarm that is on is scheduled",
        .turnOff: "an alarm with a schedule is scheduled or counting down to it", .turnOn: "scheduled",
    ]
}

/// A request that ended a ringing alert (Stop, Snooze, Cancel) was carried out, but the store
/// could not keep it: the alert is silent now, and is still stored as ringing.
public struct AlertEndedNotStored: Error, CustomStringConvertible {
    /// The alarm whose alert ended.
    public let id: UUID
    /// Why the store failed.
    public let underlying: any Error

    /// Wraps the store's error for the alarm `id`.
    public init(id: UUID, underlying: any Error) {
        self.id = id
        self.underlying = underlying
    }

    /// What the person is told: silenced, not stored, and what follows from that.
    public var description: String {
        "the alert was silenced, but its end could not be stored (\(underlying)): it rings again if the agent restarts within the grace window"
    }
}
