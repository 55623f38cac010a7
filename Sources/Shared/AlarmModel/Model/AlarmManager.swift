import FoundationEssentials

/// The entry point apps use to schedule and control alarms, as AlarmKit's `AlarmManager`.
///
/// `AlarmModel` declares the type and the values it carries; the `AlarmKit` library adds the
/// client that talks to the agent.
public final class AlarmManager: Sendable {
    /// Creates a manager; apps use the shared instance from `AlarmKit`.
    package init() {}
}

extension AlarmManager {
    /// Everything needed to schedule an alarm, as AlarmKit's `AlarmManager.AlarmConfiguration`.
    public struct AlarmConfiguration<Metadata: AlarmMetadata>: Sendable {
        /// The countdown before the alert and after it.
        public var countdownDuration: Alarm.CountdownDuration?
        /// When the alarm alerts; `nil` for a timer.
        public var schedule: Alarm.Schedule?
        /// Presentation, metadata and tint.
        public var attributes: AlarmAttributes<Metadata>
        /// The sound the alert plays.
        public var sound: AlertConfiguration.AlertSound
        /// The app's action run when the alert is stopped.
        public var stopIntent: (any LiveActivityIntent)?
        /// The app's action run by a `.custom` secondary button.
        public var secondaryIntent: (any LiveActivityIntent)?

        /// Creates a configuration from its parts.
        public init(
            countdownDuration: Alarm.CountdownDuration? = nil,
            schedule: Alarm.Schedule? = nil,
            attributes: AlarmAttributes<Metadata>,
            stopIntent: (any LiveActivityIntent)? = nil,
            secondaryIntent: (any LiveActivityIntent)? = nil,
            sound: AlertConfiguration.AlertSound = .default
        ) {
            self.countdownDuration = countdownDuration
            self.schedule = schedule
            self.attributes = attributes
            self.stopIntent = stopIntent
            self.secondaryIntent = secondaryIntent
            self.sound = sound
        }

        /// A configuration for an alarm that alerts on a schedule.
        public static func alarm(
            schedule: Alarm.Schedule? = nil,
            attributes: AlarmAttributes<Metadata>,
            stopIntent: (any LiveActivityIntent)? = nil,
            secondaryIntent: (any LiveActivityIntent)? = nil,
            sound: AlertConfiguration.AlertSound = .default
        ) -> Self {
            Self(
                countdownDuration: nil, schedule: schedule, attributes: attributes, stopIntent: stopIntent,
                secondaryIntent: secondaryIntent, sound: sound)
        }

        /// A configuration for a timer that alerts after `duration` seconds.
        public static func timer(
            duration: TimeInterval,
            attributes: AlarmAttributes<Metadata>,
            stopIntent: (any LiveActivityIntent)? = nil,
            secondaryIntent: (any LiveActivityIntent)? = nil,
            sound: AlertConfiguration.AlertSound = .default
        ) -> Self {
            Self(
                countdownDuration: .init(preAlert: duration, postAlert: nil), schedule: nil, attributes: attributes,
                stopIntent: stopIntent, secondaryIntent: secondaryIntent, sound: sound)
        }
    }
}

/// The sound settings of an alert, standing in for ActivityKit's `AlertConfiguration`.
public enum AlertConfiguration {
    /// The sound an alert plays.
    public enum AlertSound: Hashable, Sendable, Codable {
        /// The sound theme's `alarm-clock-elapsed`, or Reveille's own alarm sound.
        case `default`
        /// A sound file's path, or a freedesktop sound-theme name.
        case named(String)

        /// Extensions that make a name without `/` a file name rather than a sound-theme name.
        public static let fileExtensions: Set<String> = ["oga", "ogg", "opus", "wav", "flac", "mp3", "aif", "aiff"]

        /// Whether `name` names a file (it has a `/`, starts with `~`, or ends in an audio
        /// extension) rather than a sound-theme name such as `alarm-clock-elapsed`.
        public static func isFilePath(_ name: String) -> Bool {
            name.contains("/") || name.hasPrefix("~") || fileExtensions.contains(fileExtension(of: name).lowercased())
        }

        /// The text after the last `.` of a file name that has no `/` (`ogg` for `bell.ogg`);
        /// empty when the dot is the name's first character (`.ogg` is a hidden file's whole name)
        /// or its last.
        static func fileExtension(of name: String) -> Substring {
            guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
            return name[name.index(after: dot)...]
        }

        /// A file path with a leading `~` or `~user` replaced by that home folder (`~/bell.ogg`),
        /// as a shell does; unchanged when it names no known user.
        package static func expandingTilde(_ path: String) -> String {
            guard path.hasPrefix("~") else { return path }
            let user = path.dropFirst().prefix { $0 != "/" }
            let rest = path.dropFirst(1 + user.count)
            let home =
                user.isEmpty
                ? FileManager.default.homeDirectoryForCurrentUser.path : FileManager.default.homeDirectory(forUser: String(user))?.path
            guard let home else { return path }
            return home + rest
        }
    }
}
