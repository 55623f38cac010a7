import CALSA
import FoundationEssentials
import LinuxSystem
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The ALSA PCM a `SoundPlayer` plays to.
package enum SoundDevice: Sendable, Equatable, CustomStringConvertible {
    /// A PCM from the system's ALSA configuration (`snd_pcm_open`): `default` on a desktop, where
    /// PipeWire or PulseAudio sit behind it.
    case system(name: String = "default")
    /// A PCM from a configuration file of its own (`snd_config_load` then `snd_pcm_open_lconf`),
    /// not the system's: for tests, whose `ALSA_CONFIG_PATH` cannot change once alsa-lib has read it.
    case configuration(file: URL, name: String = "default")

    /// ALSA `default`.
    package static let `default` = SoundDevice.system()

    package var description: String {
        switch self {
        case .system(let name): "ALSA \"\(name)\""
        case .configuration(let file, let name): "ALSA \"\(name)\" from \(file.path)"
        }
    }
}

/// Why a player does not play.
package enum SoundPlayerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No sound device (no sound card or server, or the PCM refused the sound's format).
    /// `firstReport` is true only the first time the output is found unavailable since it last
    /// worked, so a caller can log it once and show it in its status.
    case unavailable(device: String, reason: String, firstReport: Bool)
    /// `start()` was called on a player that had already started.
    case alreadyStarted

    package var description: String {
        switch self {
        case .unavailable(let device, let reason, _): "no sound output (\(device)): \(reason)"
        case .alreadyStarted: "the sound player was already started"
        }
    }
}

/// Whether sound can be played, as last found by a player; for the agent's status.
package enum SoundOutputStatus: Sendable, Equatable {
    /// No player has started yet.
    case unknown
    /// The last player opened its device.
    case available
    /// The last player could not open its device, for this reason.
    case unavailable(String)
}

/// Plays one alert's sound: looping seamlessly, ramping from quiet to full, until `stop()`.
///
/// Each alert has its own player and its own PCM stream, so stopping one never silences another.
/// A dedicated thread owns the PCM: it opens it non-blocking (`snd_pcm_open` or
/// `snd_pcm_open_lconf`, `SND_PCM_NONBLOCK`), sets `S16_LE`, interleaved, the sound's rate and
/// channels and about 100 ms of latency (`snd_pcm_set_params`), and writes one period at a time
/// (`snd_pcm_writei`). When the device is full it sleeps in `poll()` on the PCM's descriptors
/// (`snd_pcm_poll_descriptors`, read by `snd_pcm_poll_descriptors_revents`) and an eventfd; after a failed write it calls `snd_pcm_recover`
/// (underruns, suspends). `stop()` writes the eventfd; the thread wakes, calls `snd_pcm_drop` (the
/// device discards what it holds: silence at once) and `snd_pcm_close`.
///
/// The ramp scales samples (never the user's mixer): the gain rises exponentially (linearly in
/// decibels) from `Configuration.startGain` to 1 over `rampDuration` of sound played.
package final class SoundPlayer: Sendable {
    /// How a player plays.
    package struct Configuration: Sendable, Equatable {
        /// The device.
        package var device: SoundDevice
        /// How long the volume takes to rise from quiet to full; zero plays at full volume at once.
        package var rampDuration: Duration
        /// The gain of the first frame (0.05 is about -26 dB).
        package var startGain: Double
        /// The latency asked of `snd_pcm_set_params`.
        package var latency: Duration
        /// The highest gain, applied on top of the ramp: 1 plays at full volume; less rings quietly
        /// (an alarm that respects do-not-disturb). Samples are scaled, never the mixer.
        package var maximumGain: Double
        /// How the stream introduces itself to the sound server (on PipeWire: the application,
        /// its icon, the alarm's title, the alarm role).
        package var identity: SoundStreamIdentity

        /// Creates a configuration.
        package init(
            device: SoundDevice = .default, rampDuration: Duration = .seconds(30), startGain: Double = 0.05,
            latency: Duration = .milliseconds(100), maximumGain: Double = 1,
            identity: SoundStreamIdentity = SoundStreamIdentity(mediaName: "Reveille")
        ) {
            self.device = device
            self.rampDuration = rampDuration
            self.startGain = min(max(startGain, 0.0001), 1)
            self.latency = latency
            self.maximumGain = min(max(maximumGain, 0), 1)
            self.identity = identity
        }
    }

    /// The sound played.
    package let sound: DecodedSound
    /// How it is played.
    package let configuration: Configuration

    private let wakeDescriptor: FileDescriptor
    private let state = Mutex(State())

    private struct State {
        var started = false
        var stopRequested = false
        var running = false
        var finished = false
        var startWaiter: CheckedContinuation<Void, any Error>?
        var finishWaiters: [CheckedContinuation<Void, Never>] = []
        var firstFrameInstant: ContinuousClock.Instant?
        var firstFrameDate: Date?
        var framesWritten = 0
        var periodFrames = 0
        var stopRequestedInstant: ContinuousClock.Instant?
        var dropCalledInstant: ContinuousClock.Instant?
        var droppedInstant: ContinuousClock.Instant?
        var droppedDate: Date?
        var dropCalledDate: Date?
        var stopRequestedDate: Date?
        var failure: String?
    }

    /// A player for `sound`; nothing happens until `start()`.
    package init(sound: DecodedSound, configuration: Configuration = Configuration()) {
        self.sound = sound
        self.configuration = configuration
        // Without one (-1), stop() is seen only when the device has room (poll ignores -1).
        wakeDescriptor = (try? FileDescriptor.eventCounter()) ?? FileDescriptor(rawValue: -1)
    }

    deinit {
        if wakeDescriptor.rawValue >= 0 { try? wakeDescriptor.close() }
    }

    // MARK: What the caller sees

    /// The last output status any player found.
    package static var outputStatus: SoundOutputStatus { output.withLock { $0 } }
    private static let output = Mutex(SoundOutputStatus.unknown)

    /// When the first frame was handed to ALSA (`snd_pcm_writei` returned), on the continuous
    /// clock; nil until then. For measuring lateness from an alert to its first sound.
    package var firstFrameInstant: ContinuousClock.Instant? { state.withLock { $0.firstFrameInstant } }
    /// The same instant on the wall clock.
    package var firstFrameDate: Date? { state.withLock { $0.firstFrameDate } }
    /// Frames handed to ALSA so far.
    package var framesWritten: Int { state.withLock { $0.framesWritten } }
    /// The PCM's period, in frames (0 before the device is open).
    package var periodFrames: Int { state.withLock { $0.periodFrames } }
    /// From `stop()` to `snd_pcm_drop` returning, once both happened: Stop to silence.
    package var stopToSilence: Duration? {
        state.withLock { state in
            guard let requested = state.stopRequestedInstant, let dropped = state.droppedInstant else { return nil }
            return dropped - requested
        }
    }
    /// From `stop()` to the audio thread calling `snd_pcm_drop`: how long the wake-up took. (A
    /// `file` PCM piped to a pacer, as in tests, spends a while inside the drop writing out its
    /// buffer; a sound card or server is silent as the call starts.)
    package var stopToDrop: Duration? {
        state.withLock { state in
            guard let requested = state.stopRequestedInstant, let called = state.dropCalledInstant else { return nil }
            return called - requested
        }
    }
    /// When `stop()` was called, on the wall clock.
    package var stopRequestedDate: Date? { state.withLock { $0.stopRequestedDate } }
    /// When the audio thread called `snd_pcm_drop` after `stop()`, on the wall clock: where a sound
    /// card or server falls silent.
    package var dropCalledDate: Date? { state.withLock { $0.dropCalledDate } }
    /// When `snd_pcm_drop` returned after `stop()`, on the wall clock: the moment of silence, for
    /// comparing with another process's clock readings.
    package var silencedDate: Date? { state.withLock { $0.droppedDate } }
    /// Whether the thread is playing (opened and not yet stopped or failed).
    package var isPlaying: Bool { state.withLock { $0.running } }
    /// Why playback ended early (a write ALSA could not recover from), if it did.
    package var failure: String? { state.withLock { $0.failure } }

    // MARK: Starting and stopping

    /// Starts the audio thread and returns once the device is open and set up (or could not be).
    ///
    /// - Throws: `SoundPlayerError.unavailable` when the device cannot be opened or set to the
    ///   sound's format (nothing is printed: alsa-lib's error messages are silenced);
    ///   `SoundPlayerError.alreadyStarted` on a second call.
    package func start() async throws {
        let first = state.withLock { state -> Bool in
            if state.started { return false }
            state.started = true
            return true
        }
        guard first else { throw SoundPlayerError.alreadyStarted }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            state.withLock { $0.startWaiter = continuation }
            Threads.start(named: "reveille-sound") { [self] in run() }
        }
    }

    /// Stops the sound at once: wakes the audio thread (eventfd), which drops what the device holds
    /// (`snd_pcm_drop`) and closes it. Returns without waiting; `waitUntilFinished()` waits. Safe to
    /// call more than once, before `start()`, or from any thread.
    package func stop() {
        let signal = state.withLock { state -> Bool in
            guard !state.stopRequested else { return false }
            state.stopRequested = true
            state.stopRequestedInstant = .now
            state.stopRequestedDate = Date()
            return true
        }
        guard signal else { return }
        try? wakeDescriptor.signalEvent()
    }

    /// Returns once the audio thread has closed the device (or at once if it never started or has
    /// ended).
    package func waitUntilFinished() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state -> Bool in
                if state.finished || !state.started { return true }
                state.finishWaiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    /// Opens the device and closes it again, without playing, to learn whether sound can be played
    /// (for the agent's status at start-up); updates `outputStatus` as a player would.
    ///
    /// - Throws: `SoundPlayerError.unavailable`, as `start()` does.
    package func probe() throws(SoundPlayerError) {
        close(try openDevice())
        Self.output.withLock { $0 = .available }
    }

    /// An open PCM, the configuration it was opened from (a file of its own), and the alsa-lib
    /// it was opened with.
    private struct OpenDevice {
        let pcm: OpaquePointer
        let config: OpaquePointer?
        let alsa: ALSALibrary
    }

    /// Closes a device that `openDevice()` opened and its own configuration, and releases
    /// alsa-lib (after the last device, it is unloaded: `ALSALibrary.release()`).
    private func close(_ device: OpenDevice) {
        _ = device.alsa.snd_pcm_close(device.pcm)
        if let config = device.config { _ = device.alsa.snd_config_delete(config) }
        ALSALibrary.release()
    }

    // MARK: The audio thread

    /// The thread's body: owns the PCM from open to close.
    private func run() {
        defer { finish() }
        let device: OpenDevice
        do {
            device = try openDevice()
        } catch {
            reportStart(.failure(error))
            return
        }
        defer { close(device) }
        reportStart(.success(()))
        play(device)
    }

    /// Opens and sets up the device: `snd_pcm_open` (or `snd_config_top`, `snd_input_stdio_open`,
    /// `snd_config_load`, `snd_pcm_open_lconf`), with the stream's identity in `PIPEWIRE_ALSA`,
    /// then `snd_pcm_set_params`, `snd_pcm_get_params`.
    /// alsa-lib is acquired first (`ALSALibrary.acquire()`); a device opened is closed with
    /// `close(_:)`, which releases it, and one that fails to open releases it here.
    private func openDevice() throws(SoundPlayerError) -> OpenDevice {
        let alsa: ALSALibrary
        do {
            alsa = try ALSALibrary.acquire()
        } catch {
            throw unavailable(error.description)
        }
        do {
            let (pcm, config) = try openDevice(with: alsa)
            return OpenDevice(pcm: pcm, config: config, alsa: alsa)
        } catch {
            ALSALibrary.release()
            throw error
        }
    }

    /// `openDevice()`'s work, with alsa-lib loaded.
    private func openDevice(with alsa: ALSALibrary) throws(SoundPlayerError) -> (OpaquePointer, OpaquePointer?) {
        var pcm: OpaquePointer?
        var config: OpaquePointer?
        let mode = Int32(SND_PCM_NONBLOCK)
        var result: Int32
        switch configuration.device {
        case .system(let name):
            result = PipeWireALSAProperties.opening(as: configuration.identity) {
                alsa.snd_pcm_open(&pcm, name, SND_PCM_STREAM_PLAYBACK, mode)
            }
        case .configuration(let file, let name):
            result = alsa.snd_config_top(&config)
            if result >= 0 {
                var input: OpaquePointer?
                result = alsa.snd_input_stdio_open(&input, file.path, "r")
                if result >= 0, let input {
                    result = alsa.snd_config_load(config, input)
                    _ = alsa.snd_input_close(input)
                }
            }
            if result >= 0 {
                result = PipeWireALSAProperties.opening(as: configuration.identity) {
                    alsa.snd_pcm_open_lconf(&pcm, name, SND_PCM_STREAM_PLAYBACK, mode, config)
                }
            }
        }
        guard result >= 0, let pcm else {
            if let config { _ = alsa.snd_config_delete(config) }
            throw unavailable("cannot open the device: \(alsa.message(result))")
        }
        let latency = UInt32(
            clamping: configuration.latency.components.seconds * 1_000_000
                + configuration.latency.components.attoseconds / 1_000_000_000_000)
        result = alsa.snd_pcm_set_params(
            pcm, reveille_alsa_format_s16_le(), SND_PCM_ACCESS_RW_INTERLEAVED, UInt32(sound.channels),
            UInt32(sound.sampleRate), 1, latency)
        var bufferSize: snd_pcm_uframes_t = 0
        var periodSize: snd_pcm_uframes_t = 0
        if result >= 0 { result = alsa.snd_pcm_get_params(pcm, &bufferSize, &periodSize) }
        guard result >= 0 else {
            _ = alsa.snd_pcm_close(pcm)
            if let config { _ = alsa.snd_config_delete(config) }
            throw unavailable(
                "the device refused \(sound.channels) channels at \(sound.sampleRate) Hz: \(alsa.message(result))")
        }
        state.withLock { $0.periodFrames = Int(max(periodSize, 64)) }
        return (pcm, config)
    }

    private func unavailable(_ reason: String) -> SoundPlayerError {
        let first = Self.output.withLock { status -> Bool in
            let first = status != .unavailable(reason) && !Self.isUnavailable(status)
            status = .unavailable(reason)
            return first
        }
        return .unavailable(device: configuration.device.description, reason: reason, firstReport: first)
    }

    private static func isUnavailable(_ status: SoundOutputStatus) -> Bool {
        if case .unavailable = status { return true }
        return false
    }

    private func reportStart(_ result: Result<Void, SoundPlayerError>) {
        if case .success = result { Self.output.withLock { $0 = .available } }
        let waiter = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            if case .success = result { state.running = true }
            defer { state.startWaiter = nil }
            return state.startWaiter
        }
        waiter?.resume(with: result.mapError { $0 as any Error })
    }

    private func finish() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.running = false
            state.finished = true
            defer { state.finishWaiters = [] }
            return state.finishWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Writes the looping, ramping sound until stopped; then `snd_pcm_drop`.
    private func play(_ device: OpenDevice) {
        let (pcm, alsa) = (device.pcm, device.alsa)
        let channels = sound.channels
        let period = state.withLock { $0.periodFrames }
        let rampFrames = Int(configuration.rampDuration / .seconds(1) * Double(sound.sampleRate))
        let startGain = configuration.startGain

        var chunk = [Int16](repeating: 0, count: period * channels)
        var position = 0  // next frame of the sound to copy
        var filled = 0  // frames prepared so far (drives the ramp)
        var pending = 0  // frames of `chunk` not yet written
        var offset = 0  // first unwritten frame of `chunk`
        var written = 0

        while !state.withLock({ $0.stopRequested }) {
            if pending == 0 {
                fill(&chunk, frames: period, from: &position, ramp: (filled, rampFrames, startGain))
                filled += period
                pending = period
                offset = 0
            }
            let result = chunk.withUnsafeBufferPointer { buffer in
                alsa.snd_pcm_writei(pcm, buffer.baseAddress! + offset * channels, snd_pcm_uframes_t(pending))
            }
            if result > 0 {
                let count = Int(result)
                pending -= count
                offset += count
                written += count
                let isFirst = written == count
                let now = ContinuousClock.now
                let date = isFirst ? Date() : nil
                state.withLock { state in
                    state.framesWritten = written
                    if isFirst {
                        state.firstFrameInstant = now
                        state.firstFrameDate = date
                    }
                }
            } else if result == -Int(EAGAIN) || result == 0 {
                // The device is full: sleep until it has room or stop() writes the eventfd.
                guard waitForRoom(device) else { break }
            } else {
                // Underrun (-EPIPE), suspend (-ESTRPIPE), interrupted: recover silently and go on.
                let recovered = alsa.snd_pcm_recover(pcm, Int32(result), 1)
                if recovered < 0 {
                    let reason = "playback failed: \(alsa.message(recovered))"
                    state.withLock { $0.failure = reason }
                    break
                }
            }
        }
        let dropCalled = ContinuousClock.now
        let dropCalledDate = Date()
        state.withLock { state in
            state.dropCalledInstant = dropCalled
            state.dropCalledDate = dropCalledDate
        }
        _ = alsa.snd_pcm_drop(pcm)
        let dropped = ContinuousClock.now
        let droppedDate = Date()
        state.withLock { state in
            state.droppedInstant = dropped
            state.droppedDate = droppedDate
        }
        _ = try? wakeDescriptor.takeEvents()
    }

    /// Sleeps until the PCM can take more frames, or `stop()` writes the eventfd; false when
    /// `poll()` fails for good.
    ///
    /// The PCM's descriptors are read afresh for every wait (`snd_pcm_poll_descriptors`), and what
    /// `poll()` saw is translated by the plugin (`snd_pcm_poll_descriptors_revents`) before it counts
    /// as room: PipeWire's ALSA plugin polls on an eventfd that stays readable until its own
    /// `revents` reads it, so taking `poll()`'s word alone would spin, waking thousands of times a
    /// second for as long as the alarm rings.
    private func waitForRoom(_ device: OpenDevice) -> Bool {
        let (pcm, alsa) = (device.pcm, device.alsa)
        let count = Int(max(alsa.snd_pcm_poll_descriptors_count(pcm), 0))
        var descriptors = [PollDescriptor](repeating: PollDescriptor(), count: 1 + count)
        while !state.withLock({ $0.stopRequested }) {
            // The eventfd first, then the PCM's descriptors.
            descriptors[0] = PollDescriptor(wakeDescriptor, events: .readable)
            let filled = descriptors.withUnsafeCPollDescriptors { buffer in
                count > 0 ? Int(alsa.snd_pcm_poll_descriptors(pcm, buffer.baseAddress! + 1, UInt32(count))) : 0
            }
            do {
                try FileDescriptor.poll(&descriptors, count: 1 + max(filled, 0), timeoutMilliseconds: -1)
            } catch {
                return false
            }
            if !descriptors[0].returnedEvents.isEmpty || filled <= 0 { return true }
            var events: UInt16 = 0
            let translated = descriptors.withUnsafeCPollDescriptors { buffer in
                alsa.snd_pcm_poll_descriptors_revents(pcm, buffer.baseAddress! + 1, UInt32(filled), &events)
            }
            // Room, or an error or hang-up that the next write reports and recovers from.
            let room: PollEvents = [.writable, .error, .hangUp, .invalid]
            if translated < 0 || !room.isDisjoint(with: PollEvents(rawValue: Int16(bitPattern: events))) { return true }
        }
        return true
    }

    /// Copies `frames` frames of the sound from `position` (wrapping to the start: seamless loops)
    /// into `chunk`, scaled by the ramp's gain for frames `ramp.done ..< ramp.done + frames`.
    private func fill(
        _ chunk: inout [Int16], frames: Int, from position: inout Int, ramp: (done: Int, length: Int, startGain: Double)
    ) {
        let channels = sound.channels
        let kept = sound.keptChannels
        // Where channel c's sample is in a kept frame: its own, or the one kept for all.
        let step = kept == 1 ? 0 : 1
        let total = sound.frameCount
        let limit = configuration.maximumGain
        sound.withKeptSamples { source in
            chunk.withUnsafeMutableBufferPointer { target in
                for frame in 0..<frames {
                    let done = ramp.done + frame
                    let base = position * kept
                    if done >= ramp.length && limit >= 1 {
                        for channel in 0..<channels { target[frame * channels + channel] = source[base + channel * step] }
                    } else {
                        let ramped = done >= ramp.length ? 1 : pow(ramp.startGain, 1 - Double(done) / Double(ramp.length))
                        let gain = ramped * limit
                        for channel in 0..<channels {
                            target[frame * channels + channel] = Int16((Double(source[base + channel * step]) * gain).rounded())
                        }
                    }
                    position += 1
                    if position == total { position = 0 }
                }
            }
        }
    }
}
