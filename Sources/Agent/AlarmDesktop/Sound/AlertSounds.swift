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
        /// Players opened ahead for alerts about to be due (`prepareAhead(_:due:)`), by alarm.
        var prepared: [UUID: PreparedSound] = [:]
        /// How many times what was opened ahead was let go, and the last `notDueBy` then: an
        /// opening that was under way meanwhile is not kept when its alert is due later.
        var releases = (count: 0, notDueBy: Date.distantFuture)
    }

    /// A player opened ahead for one alert: what it was made for, to be sure it still fits.
    private struct PreparedSound: Sendable {
        let player: SoundPlayer
        let resolved: SoundResolver.Resolved
        let sound: AlertConfiguration.AlertSound
        /// The file's identity when it was decoded (nil for a sound that is no file).
        let stamp: FileStamp?
        let due: Date
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
        // Opened ahead for this alert, and still what it would play now: only the writes remain.
        let prepared = takePrepared(for: record, configuration: playingConfiguration(for: record, maximumGain: maximumGain))
        Task.detached(priority: .userInitiated) { [self] in
            if let prepared {
                // Unless its file changed or went away since it was decoded (checked off the
                // caller's thread, as the file is read; a file gone as it was opened ahead has no
                // stamp, and is read again).
                let unchanged = await BlockingFileWork.run(timeout: Self.soundLookupLimit) {
                    guard let url = prepared.resolved.source.url else { return true }
                    return prepared.stamp != nil && FileStamp(url) == prepared.stamp
                }
                if unchanged == true {
                    return await ring(
                        record, alert: alert, prepared: prepared.player, resolved: prepared.resolved, maximumGain: maximumGain,
                        logger: logger)
                }
                prepared.player.stop()
            }
            // Found on a file thread (one that stays, asleep, after the first alert): an alert never
            // waits for a file that does not answer.
            let resolved =
                await BlockingFileWork.run(timeout: Self.soundLookupLimit) { [self] in sound(for: record.definition.sound) }
                ?? fallback(for: record)
            await ring(record, alert: alert, prepared: nil, resolved: resolved, maximumGain: maximumGain, logger: logger)
        }
    }

    /// Plays an alert's sound until it is stopped: the player opened ahead first, when there is
    /// one, then new players of `resolved` as a device that fails (unplugged, its server gone) is
    /// tried again, less and less often, for as long as the alert rings.
    private func ring(
        _ record: AlarmRecord, alert: RingingSound, prepared: SoundPlayer?, resolved: SoundResolver.Resolved, maximumGain: Double,
        logger: Logger
    ) async {
        for attempt in 0... {
            if attempt > 0 {
                try? await Task.sleep(for: Self.retryDelay(attempt: attempt))
                guard !alert.isStopped else { return }
            }
            let player =
                (attempt == 0 ? prepared : nil)
                ?? SoundPlayer(sound: resolved.sound, configuration: playingConfiguration(for: record, maximumGain: maximumGain))
            guard alert.attach(player) else { return }
            do {
                let openedAhead = player.isPrepared
                try await player.start()
                var metadata: Logger.Metadata = [
                    "alarm": "\(record.id)", "sound": "\(resolved.source)", "attempt": "\(attempt)", "openedAhead": "\(openedAhead)",
                ]
                if let times = player.openTimes { metadata.merge(Self.metadata(of: times)) { $1 } }
                logger.info("Ringing", metadata: metadata)
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

    /// How `record`'s alert plays: the configuration, with its volume, ramp and title, at most
    /// `maximumGain`.
    private func playingConfiguration(for record: AlarmRecord, maximumGain: Double) -> SoundPlayer.Configuration {
        var playing = configuration
        playing.maximumGain = min(playing.maximumGain, maximumGain, Self.gain(ofVolume: record.definition.volume))
        if let ramp = record.definition.soundRamp { playing.rampDuration = .seconds(ramp) }
        playing.identity.mediaName = record.definition.displayTitle
        return playing
    }

    // MARK: Opened ahead

    /// Opens the sound device ahead for alerts about to be due at `due` (`SoundAhead`, a lead
    /// before the instant): each alarm's sound decoded (or taken from the cache), alsa-lib loaded,
    /// its configuration read, the PCM opened and set up (on PipeWire, the stream connected and
    /// linked, not started), so that at the instant only the writes remain. An alarm already
    /// opened ahead, or ringing, is left as it is. Returns at once; the work is on other threads.
    package func prepareAhead(_ records: [AlarmRecord], due: Date) {
        let releases = state.withLock { $0.releases.count }
        for record in records {
            let wanted = state.withLock { state -> Bool in
                state.players[record.id] == nil && state.prepared[record.id] == nil
            }
            guard wanted else { continue }
            Task.detached(priority: .userInitiated) { [self] in
                guard
                    let (resolved, stamp) = await BlockingFileWork.run(
                        timeout: Self.soundLookupLimit,
                        { [self] in
                            stampedSound(for: record.definition.sound)
                        })
                else { return }
                let player = SoundPlayer(sound: resolved.sound, configuration: playingConfiguration(for: record, maximumGain: 1))
                let prepared = PreparedSound(player: player, resolved: resolved, sound: record.definition.sound, stamp: stamp, due: due)
                let kept = state.withLock { state -> Bool in
                    guard state.players[record.id] == nil, state.prepared[record.id] == nil else { return false }
                    guard state.releases.count == releases || due <= state.releases.notDueBy else { return false }
                    state.prepared[record.id] = prepared
                    return true
                }
                guard kept else { return }
                player.prepare()
                logger.debug("Opening the sound device ahead of an alert", metadata: ["alarm": "\(record.id)", "due": "\(due)"])
            }
        }
    }

    /// Closes the devices opened ahead for alerts not due by `date` (their alarm was cancelled or
    /// moved: the next deadline is another), and those opened for an instant more than
    /// `keptAfterDue` before `now` that no alert took (it rang silently, or not at all).
    package func releaseAhead(notDueBy date: Date, now: Date) {
        let released = state.withLock { state -> [SoundPlayer] in
            state.releases = (state.releases.count + 1, date)
            let gone = state.prepared.filter { $0.value.due > date || now.timeIntervalSince($0.value.due) > Self.keptAfterDue }
            for id in gone.keys { state.prepared[id] = nil }
            return gone.values.map(\.player)
        }
        for player in released { player.stop() }
    }

    /// How long a device opened ahead is kept after its alert's instant for the alert to take it.
    static let keptAfterDue: TimeInterval = 60

    /// The alarms whose devices are open ahead now, or opening (for tests).
    package var preparedAhead: Set<UUID> { state.withLock { Set($0.prepared.keys) } }

    /// The player opened ahead for `record`'s alert, taken, when it plays what the alert plays now
    /// (the same sound, volume, ramp and title; its file is checked by the caller); one that no
    /// longer fits is closed.
    private func takePrepared(
        for record: AlarmRecord, configuration playing: SoundPlayer.Configuration
    ) -> PreparedSound? {
        guard let prepared = state.withLock({ $0.prepared.removeValue(forKey: record.id) }) else { return nil }
        guard prepared.sound == record.definition.sound, prepared.player.configuration == playing else {
            prepared.player.stop()
            return nil
        }
        return prepared
    }

    /// The opening's times as log metadata, in milliseconds from the call on the audio thread.
    private static func metadata(of times: SoundPlayer.OpenTimes) -> Logger.Metadata {
        func milliseconds(_ duration: Duration) -> Logger.MetadataValue { "\(Int((duration.timeInterval * 1000).rounded()))" }
        return [
            "libraryLoadedMs": milliseconds(times.library), "pcmOpenedMs": milliseconds(times.opened),
            "streamReadyMs": milliseconds(times.ready),
        ]
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
        let (ringing, prepared) = state.withLock { ($0.players.removeValue(forKey: id), $0.prepared.removeValue(forKey: id)) }
        ringing?.stop()
        prepared?.player.stop()
    }

    /// Stops every sound and waits until every device is closed.
    package func stopAll() async {
        let (alerts, preview, prepared) = state.withLock { state -> ([RingingSound], SoundPlayer?, [SoundPlayer]) in
            defer { (state.players, state.preview, state.prepared) = ([:], nil, [:]) }
            return (Array(state.players.values), state.preview, state.prepared.values.map(\.player))
        }
        for player in prepared { player.stop() }
        for player in prepared { await player.waitUntilFinished() }
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
        stampedSound(for: sound).resolved
    }

    /// `sound(for:)`, with the stamp of the file the decoded sound came from: taken before it was
    /// read when the alarm names the file by its path, so that a file replaced while it was read is
    /// seen as changed afterwards, never the other way round; nil for a sound that is no file, or a
    /// file that went away as it was read (such a sound is not cached).
    func stampedSound(for sound: AlertConfiguration.AlertSound) -> (resolved: SoundResolver.Resolved, stamp: FileStamp?) {
        if let cached = state.withLock({ $0.cache[sound] }), cached.stamp == FileStamp(cached.resolved.source.url) {
            return cached
        }
        var path: String?
        if case .named(let name) = sound, SoundResolver.isFilePath(name) { path = name }
        let before = path.flatMap { FileStamp(URL(fileURLWithPath: $0)) }
        let resolved = resolver.resolve(sound)
        for skipped in resolved.skipped {
            logger.warning("An alarm sound could not be used; trying the next", metadata: ["reason": "\(skipped)"])
        }
        if let path, resolved.source.url?.path != path {
            logger.warning("An alarm's sound is missing; ringing another", metadata: ["sound": "\(path)", "playing": "\(resolved.source)"])
            return (resolved, FileStamp(resolved.source.url))  // not kept: the file may come back
        }
        let stamp = path != nil ? before : FileStamp(resolved.source.url)
        // A file that went away as it was read has no stamp to tell its return by: not kept.
        if resolved.source.url != nil, stamp == nil { return (resolved, nil) }
        state.withLock { $0.cache[sound] = (resolved, stamp) }
        return (resolved, stamp)
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
///
/// Taken at each alert, so it costs one `stat(2)`: Foundation's file attributes also look up the
/// owner's and group's names, which read `/etc/passwd` and `/etc/group` at the alert's instant.
struct FileStamp: Equatable, Sendable {
    let stamp: FileSystem.Stamp

    /// The stamp of the file at `url`; `nil` for no URL or no file.
    init?(_ url: URL?) {
        guard let url, let stamp = try? FileSystem.stamp(url.path) else { return nil }
        self.stamp = stamp
    }
}
