import AgentRuntime
import AlarmModel
import AlarmRecords
import FoundationEssentials
import Localization
import Logging
import Synchronization
import LinuxSystem
import Dispatch

/// The sounds of the alerts ringing now: one `SoundPlayer` per alarm, started when its alert
/// starts and stopped when it ends, so stopping one never silences another.
///
/// Sounds are resolved with a `SoundResolver` (the alarm's file or theme name, the theme's
/// `alarm-clock-elapsed`, Reveille's own sound, a synthesized tone) and kept decoded, keyed by the
/// file, so a second alert of the same sound starts without reading the file again. The default
/// sound is decoded when the agent starts, off the alert's path.
///
/// With no sound output the alert still shows: the first failure is logged once (and again only
/// after the output worked in between), and `outputStatus` tells `reveille status` why.
package final class AlertSounds: Sendable {
    /// How the players play: device, ramp, latency.
    package let configuration: SoundPlayer.Configuration
    /// Where sounds are found.
    package let resolver: SoundResolver
    private let logger: Logger
    private let state = Mutex(State())

    private struct State {
        /// The player of each ringing alarm.
        var players: [UUID: RingingSound] = [:]
        /// Decoded sounds, by the sound the alarm asked for, with the file's identity when read.
        var cache: [AlertConfiguration.AlertSound: (resolved: SoundResolver.Resolved, stamp: FileStamp?)] = [:]
        /// The sound a person is hearing to choose one (`preview`), while it plays.
        var preview: SoundPlayer?
    }

    /// Creates the sound side; `prepare()` decodes the default sound ahead of time.
    package init(configuration: SoundPlayer.Configuration, resolver: SoundResolver, logger: Logger) {
        self.configuration = configuration
        self.resolver = resolver
        self.logger = logger
    }

    /// Decodes the default sound now, so the first alert does not wait for it, and opens the
    /// device once, so a missing sound output is logged (once) and shown before any alert.
    package func prepare() {
        let resolved = sound(for: .default)
        do {
            try SoundPlayer(sound: resolved.sound, configuration: configuration).probe()
            logger.debug("Sound output found", metadata: ["device": "\(configuration.device)", "sound": "\(resolved.source)"])
        } catch {
            logger.warning("No sound output; alerts are shown without sound", metadata: ["reason": "\(error)"])
        }
    }

    /// Whether sound can be played, as the last alert found.
    package var outputStatus: SoundOutputStatus { SoundPlayer.outputStatus }

    /// Whether sound can be played now: while an alert rings, what its player found; otherwise
    /// the device is opened and closed again (`SoundPlayer.probe()`), on a thread of its own so
    /// that a sound server that does not answer holds no worker (`BlockingFileWork`), and `nil`
    /// when it has not answered within `timeout` (or too many earlier pieces are still blocked).
    /// What a status shows, not what the last alert found long ago.
    package func currentOutputStatus(timeout: Duration = .seconds(2)) async -> SoundOutputStatus? {
        if !ringing.isEmpty { return outputStatus }
        let player = SoundPlayer(sound: sound(for: .default).sound, configuration: configuration)
        return await BlockingFileWork.run(timeout: timeout) { () -> SoundOutputStatus in
            do throws(SoundPlayerError) {
                try player.probe()
                return .available
            } catch {
                if case .unavailable(_, let reason, _) = error { return .unavailable(reason) }
                return SoundPlayer.outputStatus
            }
        }
    }

    /// The alarms ringing now.
    package var ringing: Set<UUID> { state.withLock { Set($0.players.keys) } }

    /// The player of a ringing alarm (for measurements).
    package func player(of id: UUID) -> SoundPlayer? { state.withLock { $0.players[id] }?.player }

    /// Starts ringing `record`'s sound, unless it already rings. Returns at once: the sound is
    /// found off the caller's thread, and the player's own thread opens the device. A
    /// `maximumGain` below 1 rings it quietly (an alert that waits for do-not-disturb to end).
    package func start(_ record: AlarmRecord, maximumGain: Double = 1) {
        let alert = RingingSound()
        let isNew = state.withLock { state -> Bool in
            guard state.players[record.id] == nil else { return false }
            state.players[record.id] = alert
            return true
        }
        guard isNew else { return }
        let logger = self.logger
        Task.detached(priority: .userInitiated) { [self] in
            // Found on a file thread (one that stays, asleep, after the first alert): an alert never
            // waits for a file that does not answer.
            let resolved =
                await BlockingFileWork.run(timeout: Self.soundLookupLimit) { [self] in sound(for: record.definition.sound) }
                ?? fallback(for: record)
            // A device that fails (unplugged, its server gone) is tried again, less and less often,
            // for as long as the alert rings.
            for attempt in 0... {
                if attempt > 0 {
                    try? await Task.sleep(for: Self.retryDelay(attempt: attempt))
                    guard !alert.isStopped else { return }
                }
                var playing = configuration
                playing.maximumGain = min(playing.maximumGain, maximumGain, Self.gain(ofVolume: record.definition.volume))
                if let ramp = record.definition.soundRamp { playing.rampDuration = .seconds(ramp) }
                playing.identity.mediaName = record.definition.displayTitle
                let player = SoundPlayer(sound: resolved.sound, configuration: playing)
                guard alert.attach(player) else { return }
                do {
                    try await player.start()
                    logger.debug("Ringing", metadata: ["alarm": "\(record.id)", "sound": "\(resolved.source)", "attempt": "\(attempt)"])
                    await player.waitUntilFinished()
                    Self.logEnd(of: player, record: record, logger: logger)
                    guard let failure = player.failure else { return }
                    logger.warning(
                        "The alarm sound stopped; trying the device again", metadata: ["alarm": "\(record.id)", "reason": "\(failure)"])
                } catch SoundPlayerError.unavailable(let device, let reason, let firstReport) {
                    let message: Logger.Message = "No sound output; alerts are shown without sound"
                    let metadata: Logger.Metadata = ["device": "\(device)", "reason": "\(reason)"]
                    if firstReport { logger.warning(message, metadata: metadata) } else { logger.debug(message, metadata: metadata) }
                } catch {
                    logger.error("The alarm sound did not start", metadata: ["alarm": "\(record.id)", "error": "\(error)"])
                    return
                }
            }
        }
    }

    /// The gain of an alarm's own volume: its percentage of full scale, as a factor on the samples
    /// (60 % rings at 0.6 of the file's amplitude); 1 for an alarm without one.
    static func gain(ofVolume volume: Int?) -> Double {
        guard let volume else { return 1 }
        return Double(min(max(volume, 0), 100)) / 100
    }

    /// How long an alert waits for its sound file before ringing the built-in tone instead: far
    /// above a decode's few milliseconds (two hundred alarms at once on a loaded machine), and
    /// short for a file system that does not answer. The notification does not wait for it.
    static let soundLookupLimit: Duration = .seconds(3)

    /// The built-in tone, for an alert whose sound file did not answer in time (logged).
    private func fallback(for record: AlarmRecord) -> SoundResolver.Resolved {
        logger.warning(
            "An alarm's sound could not be read in time; ringing the built-in tone",
            metadata: ["alarm": "\(record.id)", "sound": "\(record.definition.sound)"])
        return SoundResolver.Resolved(source: .tone, sound: .tone, skipped: [])
    }

    /// How long to wait before trying the device again: 0.5 s, 1 s, 2 s, … up to 30 s.
    static func retryDelay(attempt: Int) -> Duration {
        .milliseconds(min(30_000, 500 << min(attempt - 1, 6)))
    }

    /// Logs (debug) how an alert's sound went: its first frame's lateness from the alert's
    /// scheduled instant and when it fell silent, as wall-clock seconds that other processes (the
    /// benchmark) can compare with their own readings.
    private static func logEnd(of player: SoundPlayer, record: AlarmRecord, logger: Logger) {
        var metadata: Logger.Metadata = ["alarm": "\(record.id)"]
        if let failure = player.failure { metadata["failure"] = "\(failure)" }
        if let first = player.firstFrameDate {
            metadata["firstFrame"] = "\(first.timeIntervalSince1970)"
            if case .alerting(let ringing) = record.phase {
                metadata["firstFrameLateness"] = "\(first.timeIntervalSince(ringing.scheduledAt))"
            }
        }
        if let requested = player.stopRequestedDate { metadata["stopRequested"] = "\(requested.timeIntervalSince1970)" }
        if let dropped = player.dropCalledDate { metadata["dropCalled"] = "\(dropped.timeIntervalSince1970)" }
        if let silenced = player.silencedDate { metadata["silenced"] = "\(silenced.timeIntervalSince1970)" }
        logger.debug("Alert sound ended", metadata: metadata)
    }

    /// Stops `id`'s sound at once (the player drops what the device holds).
    package func stop(_ id: UUID) {
        state.withLock { $0.players.removeValue(forKey: id) }?.stop()
    }

    /// Stops every sound and waits until every device is closed.
    package func stopAll() async {
        let (alerts, preview) = state.withLock { state -> ([RingingSound], SoundPlayer?) in
            defer { (state.players, state.preview) = ([:], nil) }
            return (Array(state.players.values), state.preview)
        }
        preview?.stop()
        for alert in alerts { alert.stop() }
        for alert in alerts { await alert.player?.waitUntilFinished() }
        await preview?.waitUntilFinished()
    }

    /// A sound's name or path, for a message.
    private static func name(of sound: AlertConfiguration.AlertSound) -> String {
        if case .named(let name) = sound { return name }
        return "default"
    }

    /// The longest a person may hear a sound to choose it.
    package static let maximumPreview: Duration = .seconds(30)

    /// Plays `sound` for `length` (at most `maximumPreview`) so a person can hear it before
    /// choosing it (`reveille sounds play`): on the alerts' device, as an alert's stream, but at
    /// its full level from the first instant (no crescendo) and at `volume` percent when given.
    /// Returns once it plays, with where it was found; a preview already playing stops first.
    /// Alerts' sounds are never touched.
    ///
    /// - Throws: `SoundError` for a sound that cannot be found or read (in time), and
    ///   `SoundPlayerError` when the device does not open.
    package func preview(
        _ sound: AlertConfiguration.AlertSound, for length: Duration, volume: Int? = nil
    ) async throws -> SoundResolver.Source {
        let checked = await BlockingFileWork.run(timeout: Self.soundLookupLimit) { [resolver] in
            Result { () throws(SoundError) in try resolver.validate(sound) }
        }
        switch checked {
        case .failure(let error)?: throw error
        case nil: throw SoundError.tooSlow(name: Self.name(of: sound), limit: Self.soundLookupLimit)
        case .success?: break
        }
        guard let resolved = await BlockingFileWork.run(timeout: Self.soundLookupLimit, { [self] in self.sound(for: sound) }) else {
            throw SoundError.tooSlow(name: Self.name(of: sound), limit: Self.soundLookupLimit)
        }
        var playing = configuration
        playing.rampDuration = .zero
        playing.maximumGain = min(playing.maximumGain, Self.gain(ofVolume: volume))
        playing.identity.mediaName = Translation.text("Sound preview")
        let player = SoundPlayer(sound: resolved.sound, configuration: playing)
        state.withLock { state -> SoundPlayer? in
            defer { state.preview = player }
            return state.preview
        }?.stop()
        try await player.start()
        let seconds = min(length, Self.maximumPreview)
        Task.detached { [self] in
            try? await Task.sleep(for: seconds)
            player.stop()
            self.state.withLock { state in
                if state.preview === player { state.preview = nil }
            }
        }
        return resolved.source
    }

    /// The decoded sound for `sound`, from the cache or resolved now (and cached). A cached file is
    /// used again only while its size and modification time are unchanged; a named file that stopped
    /// decoding since it was scheduled falls back, and the fallback is logged.
    func sound(for sound: AlertConfiguration.AlertSound) -> SoundResolver.Resolved {
        if let cached = state.withLock({ $0.cache[sound] }), cached.stamp == FileStamp(cached.resolved.source.url) {
            return cached.resolved
        }
        let resolved = resolver.resolve(sound)
        for skipped in resolved.skipped {
            logger.warning("An alarm sound could not be used; trying the next", metadata: ["reason": "\(skipped)"])
        }
        if case .named(let name) = sound, SoundResolver.isFilePath(name), resolved.source.url?.path != name {
            logger.warning("An alarm's sound is missing; ringing another", metadata: ["sound": "\(name)", "playing": "\(resolved.source)"])
            return resolved  // not kept: the file may come back
        }
        let stamp = FileStamp(resolved.source.url)
        state.withLock { $0.cache[sound] = (resolved, stamp) }
        return resolved
    }
}

/// One ringing alert's sound: its player once the sound is found, or the Stop that came first.
final class RingingSound: Sendable {
    private let state = Mutex<(stopped: Bool, player: SoundPlayer?)>((false, nil))

    /// The player, once attached (the latest, after a retry).
    var player: SoundPlayer? { state.withLock { $0.player } }

    /// Whether Stop came.
    var isStopped: Bool { state.withLock { $0.stopped } }

    /// Attaches the player; false (and the player is not to start) when Stop came first.
    func attach(_ player: SoundPlayer) -> Bool {
        state.withLock { state in
            guard !state.stopped else { return false }
            state.player = player
            return true
        }
    }

    /// Stops the player, or keeps it from starting.
    func stop() {
        state.withLock { state -> SoundPlayer? in
            state.stopped = true
            return state.player
        }?.stop()
    }
}

/// A file's size and modification time (`stat`), to notice a sound file replaced on disk.
struct FileStamp: Equatable, Sendable {
    let size: Int
    let modified: Date

    /// The stamp of the file at `url`; `nil` for no URL or no file.
    init?(_ url: URL?) {
        guard let url, let attributes = try? FileManager.default.attributesOfItem(atPath: url.path),
            let size = attributes.fileSize, let modified = attributes[.modificationDate] as? Date
        else { return nil }
        self.size = size
        self.modified = modified
    }
}
