/// How an alarm's sound stream introduces itself to the sound server: the application, its icon,
/// the alarm's title as the stream's name, and a role of its own, so that a volume mixer lists it
/// as "Reveille: Tea" and a session manager's policy can route or favour alarms.
///
/// On PipeWire these are node properties (`application.name`, `application.id`,
/// `application.icon-name`, `media.name`, `media.role`), handed to pipewire-alsa as the
/// `PIPEWIRE_ALSA` properties when the PCM opens (`PipeWireALSAProperties`). Where ALSA `default`
/// is not PipeWire nothing reads them and nothing changes.
package struct SoundStreamIdentity: Sendable, Equatable {
    /// The application's name, as mixers show it.
    package var applicationName: String
    /// The application's id (its desktop entry's name).
    package var applicationID: String
    /// The application's icon, by its name in the icon theme.
    package var iconName: String
    /// What the stream plays: the alarm's title.
    package var mediaName: String
    /// The stream's role. Not `Notification` nor Pulse's `event`, which people mute and some
    /// policies duck: alarms have a role of their own.
    package var role: String

    /// The role Reveille's alarm streams carry.
    package static let alarmRole = "Alarm"

    /// An alarm's stream, named after its title.
    package init(
        mediaName: String, applicationName: String = "Reveille", applicationID: String = "io.github.reveille.Reveille",
        iconName: String = "io.github.reveille.Reveille", role: String = alarmRole
    ) {
        self.applicationName = applicationName
        self.applicationID = applicationID
        self.iconName = iconName
        self.mediaName = mediaName
        self.role = role
    }

    /// The properties in PipeWire's SPA-JSON object notation, as `pw_properties_update_string`
    /// reads them: every value quoted, `"` and `\` escaped, control characters made spaces.
    package var pipeWireProperties: String {
        let pairs = [
            ("application.name", applicationName), ("application.id", applicationID),
            ("application.icon-name", iconName), ("media.name", mediaName), ("media.role", role),
        ]
        return "{ " + pairs.map { "\($0.0) = \(Self.quoted($0.1))" }.joined(separator: " ") + " }"
    }

    /// `text` as an SPA-JSON string.
    static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"", "\\": result += "\\\(scalar)"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: result += " "
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
