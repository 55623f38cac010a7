import AlarmRecords
import DBus
import FoundationEssentials

/// How a sound a person may choose travels (`ListSounds`): an `a{sv}` with `name` (`s`),
/// `origin` (`s`: `reveille` or `theme`), `theme` (`s`, the theme it was found in; empty for
/// Reveille's own), `path` (`s`), `description` (`s`, a few words about how it sounds, in the
/// agent's language; empty when there are none), `default` (`b`: what an alarm without a sound of
/// its own plays).
extension AlarmWire {
    /// The `a{sv}` form of a sound.
    package static func encode(_ sound: SoundChoice) -> DBusValue {
        .dictionary([
            "name": .string(sound.name), "origin": .string(sound.origin.rawValue), "theme": .string(sound.theme),
            "path": .string(sound.path), "description": .string(sound.description), "default": .boolean(sound.isDefault),
        ])
    }

    /// Reads a sound's `a{sv}` form; throws for one without a name or origin.
    package static func decodeSound(_ value: DBusValue) throws -> SoundChoice {
        guard let entries = value.dictionaryValue, let name = entries["name"]?.stringValue,
            let origin = entries["origin"]?.stringValue.flatMap(SoundChoice.Origin.init(rawValue:))
        else { throw AlarmWireError.malformed("a sound lacks its name or origin") }
        return SoundChoice(
            name: name, origin: origin, theme: entries["theme"]?.stringValue ?? "", path: entries["path"]?.stringValue ?? "",
            description: entries["description"]?.stringValue ?? "", isDefault: entries["default"]?.boolValue ?? false)
    }
}
