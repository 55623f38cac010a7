import Foundation

/// Where the agent's D-Bus API lives: its well-known name, object paths and interfaces, written
/// once for the client and the agent.
public enum AlarmBus {
    /// The agent's well-known bus name.
    public static let name = "io.github.reveille.Alarms1"
    /// The manager object's path.
    public static let managerPath = "/io/github/reveille/Alarms1"
    /// The manager interface.
    public static let managerInterface = "io.github.reveille.Alarms1.Manager"
    /// The interface of each alarm object.
    public static let alarmInterface = "io.github.reveille.Alarms1.Alarm"
}

/// The named errors of the agent's D-Bus API: `io.github.reveille.Alarms1.Error.<Name>`.
public enum AlarmErrorName {
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
}
