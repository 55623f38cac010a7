import AlarmCore
import DBus
import Foundation

/// The named errors of the agent's D-Bus API: `io.github.reveille.Alarms1.Error.<Name>`.
public enum AgentError {
    /// The prefix of every error name.
    public static let prefix = "io.github.reveille.Alarms1.Error."

    /// No alarm has this id, or the caller may not see it.
    public static let notFound = prefix + "NotFound"
    /// The alarm's state does not allow the operation.
    public static let notAllowed = prefix + "NotAllowed"
    /// `Countdown` on an alarm with no post-alert duration.
    public static let noPostAlertDuration = prefix + "NoPostAlertDuration"
    /// A configuration field is not valid.
    public static let invalidConfiguration = prefix + "InvalidConfiguration"
    /// The alarm's sound file does not exist or does not decode, or the sound name is unknown.
    public static let invalidSound = prefix + "InvalidSound"
    /// An argument (such as an id) is not valid.
    public static let invalidArguments = prefix + "InvalidArguments"
    /// The caller has as many alarms as it may have.
    public static let maximumLimitReached = prefix + "MaximumLimitReached"
    /// The caller may not schedule alarms, or may not do this.
    public static let notAuthorized = prefix + "NotAuthorized"
    /// The change could not be stored; nothing changed, except that an alert a person ended is
    /// silent.
    public static let storageFailed = prefix + "StorageFailed"

    /// The D-Bus error for an error the engine or the agent threw.
    public static func dbusError(for error: any Error) -> DBusError {
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
