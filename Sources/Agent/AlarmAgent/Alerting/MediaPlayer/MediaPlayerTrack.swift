import AlarmDesktop
import AlarmModel
import AlarmProtocol
import AlarmRecords
import DBus
import FoundationEssentials

/// What the media player shows of one ringing alert, as MPRIS's track: pure data, no bus.
///
/// The desktops show a track as its title and its artists (GNOME Shell's media card, Plasma's lock
/// screen and applet), KDE Connect and GSConnect as title, artist and album on the phone, with the
/// art beside. So the title is the alarm's, the one artist is the time it rings for (KDE Connect
/// shows a list of artists only when it has exactly one), and the album is the app that set it.
package struct MediaPlayerTrack: Hashable, Sendable {
    /// The alarm.
    package var id: UUID
    /// Its title as the notification's summary shows it ("Wake up", or "Alarm" / "Timer").
    package var title: String
    /// The time it rings for, in the person's style (`07:30`, `7:30 AM`).
    package var time: String
    /// The app that set it, as a person knows it; `nil` for the person's own alarms.
    package var app: String?
    /// Whether `Next` snoozes it: its notification offers Snooze or Repeat (a secondary button
    /// that counts down).
    package var canSnooze: Bool
    /// When it began ringing, the origin of the player's `Position`.
    package var startedAt: Date?

    /// The track of the ringing alarm `record`, its time in `timeStyle`.
    package init(_ record: AlarmRecord, timeStyle: TimeStyle) {
        id = record.id
        title = NotificationContent.displayTitle(of: record.definition)
        time = NotificationContent.alertTimeText(record, style: timeStyle)
        app = AlarmOwner.displayName(of: record.owner)
        canSnooze = record.definition.presentation.alert.secondaryButtonBehavior == .countdown
        if case .alerting(let ringing) = record.phase { startedAt = ringing.startedAt }
    }

    /// `mpris:trackid`: the alarm's own object on Reveille's bus API.
    package var trackID: String { AlarmWire.alarmPath(of: id) }

    /// The track's `Metadata` entries; `art` is the `mpris:artUrl` (a `file://` URL), if any.
    package func metadata(art: URL?) -> [String: DBusValue] {
        var entries: [String: DBusValue] = [
            "mpris:trackid": .objectPath(trackID),
            "xesam:title": .string(title),
            "xesam:artist": .strings([time]),
        ]
        if let app { entries["xesam:album"] = .string(app) }
        if let art { entries["mpris:artUrl"] = .string(art.absoluteString) }
        return entries
    }

    /// `Position`: microseconds it has rung at `now`.
    package func position(at now: Date) -> Int64 {
        guard let startedAt else { return 0 }
        return Int64(max(0, now.timeIntervalSince(startedAt)) * 1_000_000)
    }
}
