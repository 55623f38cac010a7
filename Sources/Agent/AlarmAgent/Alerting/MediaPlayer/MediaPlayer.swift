import AlarmDesktop
import AlarmRecords
import DBus
import FoundationEssentials
import Localization
import Logging
import Synchronization

/// A ringing alarm as an MPRIS media player (`org.mpris.MediaPlayer2.reveille`), so that whatever
/// controls media can stop it: the keyboard's Play/Pause key and a headset's button (the desktops
/// hand them to MPRIS players), a lock screen's media controls (KDE Plasma's), the phone (KDE
/// Connect's and GSConnect's media control), `playerctl`.
///
/// The name is owned only while at least one alert rings, so an idle desktop shows no player. The
/// newest ringing alert is the track, `Playing`, with the alarm's title, the time it rings for and
/// the app that set it (`MediaPlayerTrack`) and Reveille's icon as its art; when it ends, the one
/// before it is the track. `Pause`, `PlayPause` and `Stop` stop the track's alarm; `Next` snoozes
/// it where its notification offers Snooze or Repeat (`CanGoNext`); nothing else does anything
/// (`CanGoPrevious`, `CanSeek`, `CanRaise`, `CanQuit` are false). Answers reach `onAnswer` as the
/// notification's do (`stop`, `secondary`), and the engine's effects come back here.
///
/// Where another program has the name (a second agent on the same bus), the player takes
/// `org.mpris.MediaPlayer2.reveille.instance<pid>`, as the specification asks.
package final class MediaPlayer: Sendable {
    /// The bus name, while alarms ring.
    package static let busName = "org.mpris.MediaPlayer2.reveille"
    /// The object both interfaces are on.
    package static let objectPath = "/org/mpris/MediaPlayer2"
    /// The root interface.
    package static let rootInterface = "org.mpris.MediaPlayer2"
    /// The player interface.
    package static let playerInterface = "org.mpris.MediaPlayer2.Player"

    let connection: DBusConnection
    /// Reveille's icon, the tracks' art.
    let art: URL?
    let logger: Logger
    private let onAnswer: @Sendable (UUID, NotificationResponse) -> Void
    /// The ringing alerts, oldest first: the last is the track.
    private let tracks = Mutex<[MediaPlayerTrack]>([])
    /// The bus name, owned while alerts ring.
    private let name: RingingHold<String>

    /// Creates the player on the session bus connection and exports its object; the name is taken
    /// when an alert rings. `art` is Reveille's icon file; `onAnswer` gets the alarm and the
    /// person's answer.
    package init(
        connection: DBusConnection, art: URL?, logger: Logger, onAnswer: @escaping @Sendable (UUID, NotificationResponse) -> Void
    ) throws(DBusError) {
        self.connection = connection
        self.art = art
        self.logger = logger
        self.onAnswer = onAnswer
        name = RingingHold(
            take: { await Self.takeName(on: connection, logger: logger) },
            release: { name in
                do {
                    try await connection.releaseName(name)
                    logger.info("No alarm rings: the media player is gone", metadata: ["name": "\(name)"])
                } catch {
                    logger.notice("The media player's name could not be given back", metadata: ["name": "\(name)", "error": "\(error)"])
                }
            })
        try connection.export(path: Self.objectPath, interfaces: interfaces())
    }

    /// The track now: the newest ringing alert.
    var track: MediaPlayerTrack? { tracks.withLock { $0.last } }

    /// The bus name owned now, if any.
    package var ownedName: String? { name.held }

    /// An alarm started ringing: it becomes the track, and the player appears if it was not there.
    package func alertStarted(_ record: AlarmRecord) {
        let track = MediaPlayerTrack(record, timeStyle: DesktopTimeStyle.current())
        let changed = tracks.withLock { tracks in
            let before = tracks.last
            if let index = tracks.firstIndex(where: { $0.id == track.id }) {
                tracks[index] = track
            } else {
                tracks.append(track)
            }
            return tracks.last != before
        }
        name.setNeeded(true)
        if changed { announce() }
    }

    /// Part of `RingingObserver`: the player needs the alarm (`alertStarted(_ record:)`).
    package func alertStarted(_ id: UUID) {}

    /// An alert ended: the one before it is the track, or the player goes when none rings.
    package func alertEnded(_ id: UUID) {
        let (changed, empty) = tracks.withLock { tracks -> (Bool, Bool) in
            let before = tracks.last
            tracks.removeAll { $0.id == id }
            return (tracks.last != before, tracks.isEmpty)
        }
        if changed { announce() }
        if empty { name.setNeeded(false) }
    }

    /// Gives the name back (the agent stops), and returns once it is given back.
    package func shutDown() async {
        tracks.withLock { $0.removeAll() }
        await name.close()
    }

    /// Tells the player's watchers about the track now (`PropertiesChanged`).
    private func announce() {
        do {
            try connection.emitPropertiesChanged(path: Self.objectPath, interface: Self.playerInterface, changed: trackProperties(track))
        } catch {
            logger.notice("The media player's change could not be announced", metadata: ["error": "\(error)"])
        }
    }

    /// Carries out a method of the player's: `Pause`, `PlayPause` and `Stop` stop the track's
    /// alarm, `Next` snoozes it when it can; the rest does nothing.
    func answer(_ method: String) {
        guard let track else { return }
        let response: NotificationResponse
        switch method {
        case "Pause", "PlayPause", "Stop": response = .stop
        case "Next" where track.canSnooze: response = .secondary
        default: return
        }
        logger.info("Answered through the media player", metadata: ["alarm": "\(track.id)", "method": "\(method)"])
        onAnswer(track.id, response)
    }

    /// Takes the player's bus name, or the instance name when another program has it.
    private static func takeName(on connection: DBusConnection, logger: Logger) async -> String? {
        for name in [busName, busName + ".instance\(ProcessInfo.processInfo.processIdentifier)"] {
            do {
                switch try await connection.requestName(name, flags: [.doNotQueue]) {
                case .primaryOwner, .alreadyOwner:
                    logger.info("An alarm rings: showing it as a media player", metadata: ["name": "\(name)"])
                    return name
                case .exists, .inQueue:
                    continue
                }
            } catch {
                logger.notice("No media player: its name could not be taken", metadata: ["name": "\(name)", "error": "\(error)"])
                return nil
            }
        }
        return nil
    }
}
