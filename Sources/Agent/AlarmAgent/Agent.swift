import AlarmCore
import AlarmModel
import AlarmDesktop
import AlarmProtocol
import DBus
import FoundationEssentials
import LinuxSystem
import Localization
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The settings the agent runs with.
package struct AgentConfiguration: Sendable {
    /// The store's folder.
    package var storeDirectory: URL
    /// The engine's policy: grace window, ring time-out, alarms per owner.
    package var policy: AlarmPolicy
    /// The bus to serve on; `nil` is the session bus.
    package var busAddress: String?
    /// Executables whose processes act as the person (the `reveille` beside the agent).
    package var trustedExecutables: Set<String>
    /// The version `reveille status` shows.
    package var version: String
    /// How alerts are shown and heard; `nil` runs without a desktop (no notifications, no sound).
    package var desktop: DesktopOptions?
    /// The bus on which logind and timedate1 are watched; `nil` is the system bus
    /// (`DBUS_SYSTEM_BUS_ADDRESS`, or the standard socket).
    package var systemBusAddress: String?
    /// The file naming the system time zone, watched for changes: `/etc/localtime`.
    package var localTimePath: String
    /// Whether alarms wake the machine from suspend where they can (the agent holds
    /// `CAP_WAKE_ALARM`, or the systemd user manager or KDE's PowerDevil wakes it): `false` keeps
    /// to timers that wait for the machine to wake.
    package var wakeFromSuspend: Bool
    /// Where the kernel lists real-time clocks (`/sys/class/rtc`): one with a `wakealarm` can
    /// wake the machine.
    package var rtcClassDirectory: String
    /// How long (seconds) before each alarm the machine is woken from suspend; nil learns it from
    /// this machine's resumes (`reveilled --wake-ahead`).
    package var wakeAhead: TimeInterval?

    /// Creates a configuration.
    package init(
        storeDirectory: URL, policy: AlarmPolicy, busAddress: String?, trustedExecutables: Set<String>, version: String,
        desktop: DesktopOptions?, systemBusAddress: String? = nil, localTimePath: String = SystemClock.defaultLocalTimePath,
        wakeFromSuspend: Bool = true, rtcClassDirectory: String = "/sys/class/rtc", wakeAhead: TimeInterval? = nil
    ) {
        self.wakeAhead = wakeAhead
        self.wakeFromSuspend = wakeFromSuspend
        self.rtcClassDirectory = rtcClassDirectory
        self.storeDirectory = storeDirectory
        self.policy = policy
        self.busAddress = busAddress
        self.trustedExecutables = trustedExecutables
        self.version = version
        self.desktop = desktop
        self.systemBusAddress = systemBusAddress
        self.localTimePath = localTimePath
    }
}

/// How the agent alerts on the desktop.
package struct DesktopOptions: Sendable {
    /// Whether alerts and countdowns are posted as notifications (on the session bus).
    package var notifications: Bool
    /// How alert sounds play; `nil` alerts silently.
    package var sound: SoundPlayer.Configuration?
    /// Folders that may hold Reveille's own alarm sounds (`beeps.oga`, `chimes.oga`, `dawn.oga`, `bugle.oga`).
    package var soundFolders: [URL]
    /// Whether the desktop's do-not-disturb is watched and broken through (alarms with
    /// `breakthrough`), or respected (alarms without).
    package var doNotDisturb: Bool
    /// What an alarm without breakthrough does while do-not-disturb is on.
    package var heldSound: DoNotDisturbStatus.HeldSound
    /// Silent mode, opt-in: the level (percent) a muted or silent output is raised to while an
    /// alarm rings; `nil` leaves the mixer alone.
    package var unmuteTo: Int?
    /// The snooze lengths a ringing alarm's notification offers besides Snooze, where the server
    /// shows that many actions (`--snooze-choices`); none by default.
    package var snoozeChoices: SnoozeChoices
    /// The phone backup, opt-in: an alert still ringing this long after it began also rings the
    /// person's paired phones (KDE Connect, GSConnect); `nil` never does.
    package var phoneBackupAfter: Duration?
    /// Reveille's icon file, the art of the media player a ringing alarm shows (`InstalledFiles.appIcon`).
    package var appIcon: URL?

    /// Creates the options.
    package init(
        notifications: Bool = true, sound: SoundPlayer.Configuration? = .init(), soundFolders: [URL],
        doNotDisturb: Bool = true, heldSound: DoNotDisturbStatus.HeldSound = .quiet, unmuteTo: Int? = nil,
        snoozeChoices: SnoozeChoices = .none, phoneBackupAfter: Duration? = nil, appIcon: URL? = nil
    ) {
        self.appIcon = appIcon
        self.phoneBackupAfter = phoneBackupAfter
        self.unmuteTo = unmuteTo
        self.snoozeChoices = snoozeChoices
        self.notifications = notifications
        self.sound = sound
        self.soundFolders = soundFolders
        self.doNotDisturb = doNotDisturb
        self.heldSound = heldSound
    }
}

/// Why the agent could not start.
package enum AgentStartError: Error, CustomStringConvertible {
    /// Another agent already runs for this store or owns the bus name.
    case alreadyRunning(String)
    /// The store's folder cannot be written (a read-only mount, no permission): the folder and why.
    case storeUnusable(folder: String, reason: String)

    /// A sentence for the person.
    package var description: String {
        switch self {
        case .alreadyRunning(let detail): "another reveilled is already running (\(detail))"
        case .storeUnusable(let folder, let reason): "the alarm store's folder \(folder) cannot be used: \(reason)"
        }
    }
}

/// The agent: the store, the engine, the wake-ups and the D-Bus service, wired together.
///
/// Besides its kernel timers (which see clock sets), the agent re-checks every deadline when the
/// machine resumes from suspend (logind on the system bus) and computes clock-time alarms again
/// when the time zone changes (timedate1 on the system bus, and the `localtime` file). Without a
/// system bus it serves on, watching the file.
package final class AlarmAgent: Sendable {
    /// The engine, for the presenter and tests.
    package let engine: AlarmEngine
    /// The bus connection.
    package let connection: DBusConnection
    /// Notifications and sound, when the agent alerts on a desktop.
    package let desktop: DesktopPresenter?
    let service: AlarmService
    let wakeSources: WakeSources
    let lock: AgentLock
    let store: AlarmStore
    let checkpointer: StoreCheckpointer
    /// The phone backup (`--phone-after`), when it is on.
    let phoneBackup: PhoneBackup?
    /// The media player a ringing alarm shows, on a desktop.
    let mediaPlayer: MediaPlayer?
    /// The idle inhibitor that keeps the screen lit while alarms ring, on a desktop.
    let idleInhibitor: IdleInhibitor?
    /// Descriptors held so that an alarm rings when the agent has run out of them.
    let descriptorReserve: DescriptorReserve
    /// Opens each alert's sound a lead before it is due, when alerts have sound.
    let soundAhead: SoundAhead?
    let logger: Logger

    /// Starts the agent: takes the store's lock, opens the store, starts the engine, exports the
    /// service, and then takes the bus name, so a client that sees the name finds everything ready.
    package init(configuration: AgentConfiguration, logger: Logger) async throws {
        self.logger = logger
        // First, so that its descriptors are among the lowest numbers, under any limit lowered later.
        let descriptorReserve = DescriptorReserve(logger: logger)
        self.descriptorReserve = descriptorReserve
        let databaseURL = configuration.storeDirectory.appendingPathComponent(AlarmStore.fileName)
        lock = try AgentLock(
            directory: configuration.storeDirectory, readableStore: FileManager.default.fileExists(atPath: databaseURL.path))
        do {
            // The agent's lock keeps the store to this process: no other connection needs it. The
            // log is folded in once changes pause (`StoreCheckpointer`), not inside a call's commit.
            store = try AlarmStore(
                directory: configuration.storeDirectory, logger: logger, sharing: .exclusive, checkpoints: .deferred)
        } catch {
            throw AgentStartError.storeUnusable(folder: configuration.storeDirectory.path, reason: "\(error)")
        }
        if let reason = store.readOnlyReason {
            logger.error(
                "The alarm store is read-only: alarms are listed and ring, but no change can be stored until it is writable and the agent restarts",
                metadata: ["reason": "\(reason)"])
        }
        if let aside = store.recoveredFrom {
            logger.critical(
                "The alarm database was damaged and moved aside; starting with no alarms", metadata: ["movedTo": "\(aside.path)"])
        }
        let clock = SystemClock(
            localTimePath: configuration.localTimePath, wakeTimers: configuration.wakeFromSuspend,
            makeRoom: { [descriptorReserve] in descriptorReserve.ensureRoom(for: $0, needed: 2) })
        connection = try configuration.busAddress.map { try DBusConnection.connect(address: $0) } ?? DBusConnection.session()
        // Calls waiting for a person's authorization answer keep their messages alive: libdbus must
        // never stop reading the bus because of them, or the answer that releases them is not read.
        connection.maximumReceivedBytes = max(
            connection.maximumReceivedBytes, (AuthorizationCenter.waitingCallsInAll + 8) * Self.largestBusMessage)
        let responder = AlertResponder(logger: logger)
        // The desktop's sound theme (GNOME's or Plasma's choice), as the agent starts.
        let sounds = SoundResolver(themeName: DesktopSoundTheme.name(), ownSoundFolders: configuration.desktop?.soundFolders ?? [])
        desktop = configuration.desktop.map { options in
            let sounds = options.sound.map { AlertSounds(configuration: $0, resolver: sounds, logger: logger) }
            sounds?.prepare()
            let notifications =
                options.notifications
                ? NotificationPresenter(
                    clock: { clock.read() }, snoozeChoices: options.snoozeChoices, logger: logger,
                    room: { [descriptorReserve] in descriptorReserve.ensureRoom(for: "a notification", needed: 2) },
                    onAction: { responder.respond($0, $1) })
                : nil
            let doNotDisturb =
                options.doNotDisturb && options.notifications
                ? DoNotDisturbGuard(
                    configuration: .init(
                        journal: RestoreJournal(url: configuration.storeDirectory.appendingPathComponent(Self.doNotDisturbJournalName)),
                        busAddress: configuration.busAddress, configHome: Self.configHome(), heldSound: options.heldSound),
                    logger: logger)
                : nil
            let silentMode = options.sound.map { sound in
                SilentModeGuard(
                    mixer: OutputMixer(device: Self.mixerDevice(for: sound.device)), unmuteTo: options.unmuteTo,
                    journal: RestoreJournal(url: configuration.storeDirectory.appendingPathComponent(Self.volumeJournalName)),
                    logger: logger)
            }
            return DesktopPresenter(notifications: notifications, sounds: sounds, doNotDisturb: doNotDisturb, silentMode: silentMode)
        }
        let sleepInhibitor = SleepInhibitor(logger: logger)
        // The phone backup reads and writes the alert history through the engine, which is made
        // after the presenter the backup observes (an alert's wait ends after the engine started).
        let historyEngine = Mutex<AlarmEngine?>(nil)
        let phoneRinger = PhoneRinger(connection: connection)
        phoneBackup = configuration.desktop?.phoneBackupAfter.map { after in
            PhoneBackup(
                after: after, ringer: phoneRinger, logger: logger,
                alreadyRang: { [logger] id, startedAt in
                    guard let engine = historyEngine.withLock({ $0 }) else { return false }
                    do {
                        return try await engine.phonesRang(forAlarm: id, alertedAt: startedAt)
                    } catch {
                        logger.error(
                            "Could not read whether the phones rang for an alert; ringing them",
                            metadata: ["alarm": "\(id)", "error": "\(error)"])
                        return false
                    }
                }
            ) { [logger] id, phones in
                guard let engine = historyEngine.withLock({ $0 }) else { return }
                Task {
                    do {
                        try await engine.recordPhonesRung(phones, forAlarm: id)
                    } catch {
                        logger.error("Could not record the phones rung in the history", metadata: ["alarm": "\(id)", "error": "\(error)"])
                    }
                }
            }
        }
        let session = connection
        idleInhibitor = configuration.desktop.map { _ in IdleInhibitor(connection: session, logger: logger) }
        mediaPlayer = try configuration.desktop.map { options in
            try MediaPlayer(connection: session, art: options.appIcon, logger: logger) { responder.respond($0, $1) }
        }
        let desktopObservers: [any RingingObserver] = [
            idleInhibitor as (any RingingObserver)?, mediaPlayer as (any RingingObserver)?, phoneBackup as (any RingingObserver)?,
        ].compactMap { $0 }
        let agentPresenter = AgentPresenter(
            desktop: desktop, intents: IntentRunner(connection: connection, logger: logger),
            // At the instant: the reserve first, since the sound and the others may need
            // descriptors as the alarm starts; the sleep inhibitor, which the wake ahead holds
            // until the alarm rings, goes on being held without a gap.
            observers: [descriptorReserve, sleepInhibitor],
            // Once the alert is shown: bus calls and tasks that must not compete with its `Notify`.
            onceShown: [ScreenWaker(connection: connection, logger: logger)] + desktopObservers)
        // Without wake timers of its own, the agent has the machine woken another way.
        let router =
            configuration.wakeFromSuspend && !clock.wakeTimers
            ? WakeRouter(
                routes: [
                    UserManagerWakeTimer(connection: connection, logger: logger),
                    try PowerDevilWakeup(connection: connection, serviceName: AlarmService.busName, logger: logger),
                ],
                logger: logger)
            : nil
        // The machine is woken a margin before each deadline, and held awake until it has rung.
        let wakeAhead =
            configuration.wakeFromSuspend
            ? WakeAhead(
                clock: clock, margin: WakeAheadMargin(fixed: configuration.wakeAhead), router: router, inhibitor: sleepInhibitor,
                record: ResumeRecord(directory: configuration.storeDirectory, writable: store.readOnlyReason == nil), logger: logger)
            : nil
        // The alert's sound is opened a lead before it is due, on a clock that does not wake the machine.
        let dueEngine = Mutex<AlarmEngine?>(nil)
        let silentMode = desktop?.silentMode
        soundAhead = desktop?.sounds.map { sounds in
            SoundAhead(
                clock: SystemClock(localTimePath: configuration.localTimePath, wakeTimers: false),
                sounds: [sounds as any AlertSoundPreparing] + (silentMode.map { [$0] } ?? [])
            ) { instant in
                guard let engine = dueEngine.withLock({ $0 }) else { return [] }
                let reading = clock.read()
                return await engine.alarms(visibleTo: .user).filter { record in
                    record.fireDate(from: reading).map { abs($0.timeIntervalSince(instant)) < 0.001 } ?? false
                }
            }
        }
        let engineClock: any AlarmClock =
            wakeAhead != nil || soundAhead != nil
            ? WakingClock(base: clock, wakeAhead: wakeAhead, soundAhead: soundAhead) : clock
        engine = AlarmEngine(store: store, clock: engineClock, policy: configuration.policy, presenter: agentPresenter, logger: logger)
        dueEngine.withLock { [engine] in $0 = engine }
        checkpointer = StoreCheckpointer(store: store, engine: engine, logger: logger)
        responder.attach(engine: engine, presenter: agentPresenter)
        historyEngine.withLock { [engine] in $0 = engine }
        try await engine.start()
        let resolver = CallerResolver(connection: connection, trustedExecutables: configuration.trustedExecutables)
        let authorization = try AuthorizationCenter(store: store, connection: connection, logger: logger)
        wakeSources = WakeSources(
            engine: engine, clock: clock, router: router, wakeAhead: wakeAhead, systemBusAddress: configuration.systemBusAddress,
            wakeFromSuspend: configuration.wakeFromSuspend, graceWindow: configuration.policy.graceWindow,
            rtcClassDirectory: configuration.rtcClassDirectory, logger: logger)
        sleepInhibitor.setSystemBus { [wakeSources] in wakeSources.systemBus }
        service = AlarmService(
            connection: connection, engine: engine, clock: clock, resolver: resolver, authorization: authorization,
            status: .init(
                version: configuration.version, storePath: store.databaseURL.path, storeReadOnlyReason: store.readOnlyReason,
                wakeSources: wakeSources,
                phoneBackup: configuration.desktop?.phoneBackupAfter.map { (after: $0, ringer: phoneRinger) },
                snoozeChoices: configuration.desktop?.snoozeChoices.seconds ?? [], defaultSnooze: configuration.policy.defaultSnooze),
            desktop: desktop, sounds: sounds, logger: logger)
    }

    /// The largest message a default dbus-daemon passes (`max_message_size`, 32 MiB).
    static let largestBusMessage = 32 << 20

    /// The do-not-disturb journal's name in the store's folder.
    package static let doNotDisturbJournalName = "dnd-restore.json"

    /// The silent-mode journal's name in the store's folder.
    package static let volumeJournalName = "volume-restore.json"

    /// The control device whose mixer a PCM's sound goes through: `default` for `default` and
    /// `hw:N`/`plughw:N` for card N's.
    static func mixerDevice(for device: SoundDevice) -> String {
        guard case .system(let name) = device else { return "default" }
        for prefix in ["plughw:", "hw:"] where name.hasPrefix(prefix) {
            return "hw:" + name.dropFirst(prefix.count).prefix { $0 != "," }
        }
        return "default"
    }

    /// `XDG_CONFIG_HOME`, or `~/.config`.
    static func configHome() -> URL {
        if let path = ProcessInfo.processInfo.environment["XDG_CONFIG_HOME"], path.hasPrefix("/") { return URL(fileURLWithPath: path) }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".config")
    }

    /// Serves until the task is cancelled or the bus goes away.
    ///
    /// Returns normally when cancelled (SIGTERM); throws when the session bus was lost, so that
    /// systemd restarts the agent. Losing the system bus only stops the resume and timedate1 watch.
    package func run() async throws {
        // The time-zone file is watched before the name is taken; the system bus is joined meanwhile.
        wakeSources.start()
        try await service.export()
        let serving = Task { await service.run() }
        defer { serving.cancel() }
        switch try await connection.requestName(AlarmService.busName, flags: [.doNotQueue]) {
        case .primaryOwner, .alreadyOwner:
            logger.info("Serving", metadata: ["name": "\(AlarmService.busName)", "unique": "\(connection.uniqueName)"])
        case .exists, .inQueue:
            throw AgentStartError.alreadyRunning("\(AlarmService.busName) has an owner on this bus")
        }
        for await _ in connection.disconnected {
            throw DBusError(name: DBusError.failed, message: "the session bus went away")
        }
    }

    /// Stops waking up, silences the alerts and takes the notifications away (alerts still ringing
    /// ring again when the agent starts), and closes the bus connection; everything is already stored.
    package func shutdown() async {
        wakeSources.stop()
        checkpointer.stop()
        phoneBackup?.stop()
        await engine.shutdown()
        wakeSources.wakeAhead?.stop()
        soundAhead?.stop()
        // The wake-up armed through the user manager or PowerDevil is taken back.
        await wakeSources.router?.stop()
        await desktop?.shutDown()
        await mediaPlayer?.shutDown()
        await idleInhibitor?.shutDown()
        connection.close()
        store.close()
    }
}

/// An exclusive lock on the store's folder (`flock` on `agent.lock`), so two agents never share
/// one store, whatever bus they are on.
final class AgentLock: Sendable {
    /// The locked file's descriptor; nil when the store is read-only and has no lock file.
    private let descriptor: FileDescriptor?

    /// Takes the lock on `agent.lock` in `directory` (creating both). When the folder cannot be
    /// written but holds a database (`readableStore`), the lock file is locked read-only if it is
    /// there, and done without if not: a read-only store is served, and the bus name keeps a
    /// second agent out.
    init(directory: URL, readableStore: Bool) throws {
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw AgentStartError.storeUnusable(folder: directory.path, reason: "it cannot be created")
        }
        let path = directory.appendingPathComponent("agent.lock").path
        let descriptor: FileDescriptor?
        do {
            descriptor = try FileDescriptor.open(path, .readWrite, options: [.create, .closeOnExec], permissions: 0o600)
        } catch {
            guard readableStore, [.readOnlyFileSystem, .notPermitted, .permissionDenied].contains(error) else {
                throw AgentStartError.storeUnusable(folder: directory.path, reason: "agent.lock: \(error)")
            }
            descriptor = try? FileDescriptor.open(path, .readOnly)
        }
        self.descriptor = descriptor
        do {
            try descriptor?.lock(exclusive: true, waiting: false)
        } catch {
            try? descriptor?.close()
            throw AgentStartError.alreadyRunning("the store \(directory.path) is in use")
        }
    }

    deinit { try? descriptor?.close() }
}
