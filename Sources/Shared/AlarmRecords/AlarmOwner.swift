import FoundationEssentials

/// Who owns an alarm, as its record says (`AlarmRecord.owner`): the person, or an app by its id
/// or executable's path.
package enum AlarmOwner {
    /// The owner of the person's own alarms (scheduled with the `reveille` command).
    package static let user = "user"

    /// The name a person recognises for the app that owns alarms as `owner`: an app id as it is,
    /// an executable's file name for an executable's path; `nil` for the person's own alarms.
    package static func displayName(of owner: String) -> String? {
        if owner == user { return nil }
        return owner.hasPrefix("/") ? URL(fileURLWithPath: owner).lastPathComponent : owner
    }
}
