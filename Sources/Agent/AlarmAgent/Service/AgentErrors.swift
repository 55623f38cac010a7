import AlarmModel
import AlarmProtocol
import DBus
import FoundationEssentials

/// The named errors of the agent's D-Bus API (`AlarmErrorName`), and the error each failure becomes.
package enum AgentError {
    /// The prefix of every error name.
    package static let prefix = AlarmErrorName.prefix

    /// No alarm has this id, or the caller may not see it.
    package static let notFound = AlarmErrorName.notFound
    /// The alarm's state does not allow the operation.
    package static let notAllowed = AlarmErrorName.notAllowed
    /// `Countdown` on an alarm with no post-alert duration.
    package static let noPostAlertDuration = AlarmErrorName.noPostAlertDuration
    /// A configuration field is not valid.
    package static let invalidConfiguration = AlarmErrorName.invalidConfiguration
    /// The alarm's sound file does not exist or does not decode, or the sound name is unknown.
    package static let invalidSound = AlarmErrorName.invalidSound
    /// An argument (such as an id) is not valid.
    package static let invalidArguments = AlarmErrorName.invalidArguments
    /// The caller has as many alarms as it may have.
    package static let maximumLimitReached = AlarmErrorName.maximumLimitReached
    /// The caller may not schedule alarms, or may not do this.
    package static let notAuthorized = AlarmErrorName.notAuthorized
    /// The change could not be stored.
    package static let storageFailed = AlarmErrorName.storageFailed

    /// The D-Bus error for an error the engine or the agent threw.
    package static func dbusError(for error: any Error) -> DBusError {
        switch error {
        case let error as DBusError:
            return error
        case let error as AlarmRequestError:
            switch error {
            case .alarmNotFound: return DBusError(name: notFound, message: error.description)
            case .operationNotAllowed: return DBusError(name: notAllowed, message: error.description)
            case .invalidConfiguration: return DBusError(name: invalidConfiguration, message: error.description)
            case .noPostAlertDuration: return DBusError(name: noPostAlertDuration, message: error.description)
            }
        case let error as AlarmManager.AlarmError:
            return DBusError(name: maximumLimitReached, message: error.description)
        default:
            return DBusError(name: storageFailed, message: "the change could not be stored: \(error)")
        }
    }

    /// The error for an id argument that is not a UUID.
    static func badID(_ text: String) -> DBusError {
        DBusError(name: invalidArguments, message: "\(QuotedText.quote(text)) is not an alarm id (a UUID)")
    }
}
