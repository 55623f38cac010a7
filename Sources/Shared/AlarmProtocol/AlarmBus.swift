import FoundationEssentials

/// Where the agent's D-Bus API lives: its well-known name, object paths and interfaces, written
/// once for the client and the agent.
package enum AlarmBus {
    /// The agent's well-known bus name.
    package static let name = "io.github.reveille.Alarms1"
    /// The manager object's path.
    package static let managerPath = "/io/github/reveille/Alarms1"
    /// The manager interface.
    package static let managerInterface = "io.github.reveille.Alarms1.Manager"
    /// The interface of each alarm object.
    package static let alarmInterface = "io.github.reveille.Alarms1.Alarm"

    /// The search provider's well-known name (`reveille-search`, D-Bus activated): GNOME Shell's
    /// overview and Plasma's KRunner ask it for results.
    package static let searchName = "io.github.reveille.Search"
    /// The object that speaks Plasma's `org.kde.krunner1`.
    package static let kRunnerPath = "/io/github/reveille/Search/KRunner"
    /// The object that speaks GNOME Shell's `org.gnome.Shell.SearchProvider2`.
    package static let gnomeSearchPath = "/io/github/reveille/Search/GNOME"
}

/// The named errors of the agent's D-Bus API: `io.github.reveille.Alarms1.Error.<Name>`.
package enum AlarmErrorName {
    /// The prefix of every error name.
    package static let prefix = "io.github.reveille.Alarms1.Error."

    /// No alarm has this id, or the caller may not see it.
    package static let notFound = prefix + "NotFound"
    /// The alarm's state does not allow the operation.
    package static let notAllowed = prefix + "NotAllowed"
    /// `Countdown` on an alarm with no post-alert duration.
    package static let noPostAlertDuration = prefix + "NoPostAlertDuration"
    /// A configuration field is not valid.
    package static let invalidConfiguration = prefix + "InvalidConfiguration"
    /// The alarm's sound file does not exist or does not decode, or the sound name is unknown.
    package static let invalidSound = prefix + "InvalidSound"
    /// An argument (such as an id) is not valid.
    package static let invalidArguments = prefix + "InvalidArguments"
    /// The caller has as many alarms as it may have.
    package static let maximumLimitReached = prefix + "MaximumLimitReached"
    /// The caller may not schedule alarms, or may not do this.
    package static let notAuthorized = prefix + "NotAuthorized"
    /// The change could not be stored; nothing changed, except that an alert a person ended is
    /// silent.
    package static let storageFailed = prefix + "StorageFailed"
}
