import AlarmDesktop
import DBus
import FoundationEssentials

/// The media player's two MPRIS interfaces, as the specification (2.2) describes them: what it
/// says, what it can do, and the methods that answer the ringing alarm.
extension MediaPlayer {
    /// The application's name players are listed by.
    package static let identity = NotificationContent.appName
    /// `Metadata`, `PlaybackStatus` and the abilities that change with the track: what
    /// `PropertiesChanged` carries when the track changes.
    func trackProperties(_ track: MediaPlayerTrack?) -> [String: DBusValue] {
        [
            "PlaybackStatus": .string(track == nil ? "Stopped" : "Playing"),
            "Metadata": .dictionary(track?.metadata(art: art) ?? [:]),
            "CanGoNext": .boolean(track?.canSnooze ?? false),
            "CanPlay": .boolean(track != nil),
            "CanPause": .boolean(track != nil),
        ]
    }

    /// The root interface and the player interface.
    func interfaces() -> [DBusInterface] {
        [rootInterfaceDescription(), playerInterfaceDescription()]
    }

    /// `org.mpris.MediaPlayer2`: Reveille by name and desktop entry; it neither raises a window
    /// nor quits, and plays no track list, URI or file.
    private func rootInterfaceDescription() -> DBusInterface {
        DBusInterface(
            name: Self.rootInterface,
            methods: [
                // "If CanRaise is false, this method does nothing"; the same for Quit and CanQuit.
                DBusMethod(name: "Raise") { _ in [] },
                DBusMethod(name: "Quit") { _ in [] },
            ],
            properties: [
                Self.constant("CanQuit", .boolean(false)),
                Self.constant("CanRaise", .boolean(false)),
                Self.constant("HasTrackList", .boolean(false)),
                Self.constant("Identity", .string(Self.identity)),
                Self.constant("DesktopEntry", .string(NotificationContent.desktopEntry)),
                Self.constant("SupportedUriSchemes", .strings([])),
                Self.constant("SupportedMimeTypes", .strings([])),
            ])
    }

    /// `org.mpris.MediaPlayer2.Player`: the track, and the methods that stop or snooze it.
    private func playerInterfaceDescription() -> DBusInterface {
        let answering = ["Next", "Previous", "Pause", "PlayPause", "Stop", "Play"].map { method in
            DBusMethod(name: method) { [weak self] _ in
                self?.answer(method)
                return []
            }
        }
        let position = DBusArgument(name: "Position", signature: "x")
        return DBusInterface(
            name: Self.playerInterface,
            methods: answering + [
                DBusMethod(name: "Seek", inArguments: [DBusArgument(name: "Offset", signature: "x")]) { _ in [] },
                DBusMethod(
                    name: "SetPosition", inArguments: [DBusArgument(name: "TrackId", signature: "o"), position]
                ) { _ in [] },
                DBusMethod(name: "OpenUri", inArguments: [DBusArgument(name: "Uri", signature: "s")]) { _ in
                    throw DBusError(name: "org.freedesktop.DBus.Error.NotSupported", message: "Reveille plays alarms only: it opens no URI")
                },
            ],
            properties: [
                trackProperty("PlaybackStatus", "s"),
                trackProperty("Metadata", "a{sv}"),
                trackProperty("CanGoNext", "b"),
                trackProperty("CanPlay", "b"),
                trackProperty("CanPause", "b"),
                DBusProperty(name: "Position", signature: "x") { [weak self] _ in
                    .int64(self?.track?.position(at: Date()) ?? 0)
                },
                // The alarm's own volume and pace are not the remote's to change: read only.
                Self.constant("Rate", .double(1)),
                Self.constant("MinimumRate", .double(1)),
                Self.constant("MaximumRate", .double(1)),
                Self.constant("Volume", .double(1)),
                Self.constant("CanGoPrevious", .boolean(false)),
                Self.constant("CanSeek", .boolean(false)),
                Self.constant("CanControl", .boolean(true)),
            ],
            signals: [DBusSignal(name: "Seeked", arguments: [position])])
    }

    /// A property of the track now (see `trackProperties`).
    private func trackProperty(_ name: String, _ signature: String) -> DBusProperty {
        DBusProperty(name: name, signature: signature) { [weak self] _ in
            guard let self, let value = trackProperties(track)[name] else {
                throw DBusError(name: DBusError.failed, message: "The player is gone")
            }
            return value
        }
    }

    /// A read-only property that never changes.
    private static func constant(_ name: String, _ value: DBusValue) -> DBusProperty {
        DBusProperty(name: name, signature: value.signature) { _ in value }
    }
}
