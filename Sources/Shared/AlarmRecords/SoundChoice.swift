import FoundationEssentials

/// A sound a person may give an alarm by name (`--sound NAME`), as the agent lists it
/// (`ListSounds`, `AlarmWire.encode(_:)`): one of Reveille's own, or one of the desktop's sound theme.
package struct SoundChoice: Hashable, Sendable {
    /// Where a sound comes from.
    package enum Origin: String, Hashable, Sendable {
        /// Made by the project, installed with it.
        case reveille
        /// The desktop's sound theme.
        case theme
    }

    /// The name `--sound` takes.
    package var name: String
    /// Where it comes from.
    package var origin: Origin
    /// The theme it was found in (empty for Reveille's own).
    package var theme: String
    /// Its file.
    package var path: String
    /// How it sounds, in a few words (empty when not known).
    package var description: String
    /// Whether an alarm without a sound of its own plays it.
    package var isDefault: Bool

    /// Creates a choice.
    package init(name: String, origin: Origin, theme: String = "", path: String, description: String = "", isDefault: Bool = false) {
        self.name = name
        self.origin = origin
        self.theme = theme
        self.path = path
        self.description = description
        self.isDefault = isDefault
    }

}
