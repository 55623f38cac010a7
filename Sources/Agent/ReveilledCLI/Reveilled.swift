import AgentRuntime
import AlarmAgent
import AlarmCore
import AlarmModel
import AlarmDesktop
import AlarmProtocol
import ArgumentParser
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import Logging
import LinuxSystem

/// The `reveilled` command, for the programs that are it: `reveilled`, and the installed program
/// when it is started by that name.
package enum ReveilledCommand {
    /// Parses the command line and runs the agent until SIGTERM or SIGINT; a failure ends the
    /// process with its status. Install the agent's executors (`AgentExecutors.install()`) first.
    package static func main() async {
        await Reveilled.main()
    }

    /// Runs the agent as its process's `main`, from the main thread, before any other thread has
    /// started; ends the process when the agent ends.
    ///
    /// - SIGTERM and SIGINT are blocked first, so that every thread inherits the mask and only the
    ///   agent's signal descriptor (`SignalWatcher`) takes them.
    /// - Every task runs on the agent's own worker pool, installed before the first task exists:
    ///   libdispatch's workers would wake the idle agent every second (see `AgentExecutors`).
    /// - The main thread then serves the agent's event loop (kernel timers, inotify, signals),
    ///   where it would otherwise only wait.
    package static func runAsProcessMain() -> Never {
        SignalWatcher.blockTerminationSignals()
        AgentExecutors.install()
        EventLoop.shared.runOnCurrentThread {
            Task.detached {
                await main()
                exit(0)
            }
        }
    }
}

/// `reveilled`: the Reveille agent. Runs until SIGTERM or SIGINT.
struct Reveilled: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reveilled",
        abstract: "The Reveille alarm agent: rings alarms and timers on time.",
        discussion: """
            Serves io.github.reveille.Alarms1 on the session bus. Normally started by D-Bus activation, \
            systemd (reveilled.service) or by the reveille command; run it by hand to watch its log.

            It checks every deadline again when the machine resumes from suspend (logind's PrepareForSleep \
            on the system bus) and computes clock-time alarms again when the time zone changes (timedate1 \
            on the system bus, and the localtime file). Without a system bus it serves on, watching the file.
            """,
        version: ReveilleVersion.current)

    @Option(help: ArgumentHelp("The folder of the alarm database.", valueName: "folder"))
    var store: String?

    @Option(help: ArgumentHelp("How late (seconds) a missed alert may still ring.", valueName: "seconds"))
    var grace: Double = 600

    @Option(
        name: .customLong("ring-timeout"),
        help: ArgumentHelp("How long (seconds) an unanswered alert rings; 0 rings until answered.", valueName: "seconds"))
    var ringTimeout: Double = 600

    @Option(name: .customLong("max-alarms"), help: ArgumentHelp("The most alarms one app may have.", valueName: "count"))
    var maxAlarms: Int = 1_000

    @Option(
        name: .customLong("default-snooze"),
        help: ArgumentHelp(
            "How long (seconds) Snooze lasts for an alarm whose snooze button has no duration of its own.", valueName: "seconds"))
    var defaultSnooze: Double = AlarmPolicy.nineMinutes

    @Option(help: ArgumentHelp("A D-Bus address to serve on instead of the session bus.", valueName: "address"))
    var bus: String?

    @Option(
        help: ArgumentHelp(
            "How long (seconds) an alert's sound takes to rise from quiet to full volume; 0 starts at full.", valueName: "seconds"))
    var ramp: Double = 30

    @Option(name: .customLong("sound-device"), help: ArgumentHelp("The ALSA device alert sounds play on.", valueName: "pcm"))
    var soundDevice: String = "default"

    @Flag(help: "Alert without sound (notifications only).")
    var silent = false

    @Flag(name: .customLong("no-notifications"), help: "Alert without notifications (sound only; stop alerts with reveille stop).")
    var noNotifications = false

    @Option(
        name: .customLong("dnd-sound"),
        help: ArgumentHelp(
            "How an alarm without breakthrough rings while do-not-disturb is on (its notification waits): quiet or silent.",
            valueName: "quiet|silent"))
    var dndSound: DoNotDisturbStatus.HeldSound = .quiet

    @Option(
        name: .customLong("unmute-to"),
        help: ArgumentHelp(
            "Silent mode, opt-in: while an alarm rings, turn a muted or silent output up to this volume (1-100 percent), and back after.",
            valueName: "percent"))
    var unmuteTo: Int?

    @Option(
        name: .customLong("phone-after"),
        help: ArgumentHelp(
            "Phone backup, opt-in: an alert still ringing after this many seconds also rings every reachable phone paired with KDE Connect or GSConnect.",
            valueName: "seconds"))
    var phoneAfter: Double?

    @Option(
        name: .customLong("snooze-choices"),
        help: ArgumentHelp(
            "Snooze lengths a ringing alarm's notification offers besides Snooze, where the notification server shows that many actions (not GNOME Shell): up to 5, each at most 12 hours, such as 5m,10m,15m.",
            valueName: "durations"))
    var snoozeChoices: String?

    @Flag(
        name: .customLong("no-wake"), help: "Never wake the machine from suspend for an alarm, even where the agent may (CAP_WAKE_ALARM).")
    var noWake = false

    @Option(
        name: .customLong("rtc-class"),
        help: ArgumentHelp("Where the kernel lists real-time clocks (for tests).", valueName: "folder", visibility: .hidden))
    var rtcClass: String = "/sys/class/rtc"

    @Flag(name: .customLong("ignore-dnd"), help: "Do not look at the desktop's do-not-disturb: never lift it, never hold alerts back.")
    var ignoreDoNotDisturb = false

    @Option(
        name: .customLong("system-bus"),
        help: ArgumentHelp(
            "A D-Bus address to watch logind (resume from suspend) and timedate1 (time zone) on instead of the system bus.",
            valueName: "address"))
    var systemBus: String?

    @Option(
        name: .customLong("localtime"),
        help: ArgumentHelp("The file naming the system time zone, watched for changes.", valueName: "path"))
    var localTime: String = SystemClock.defaultLocalTimePath

    @Option(
        name: .customLong("print-introspection"),
        help: ArgumentHelp("Print the introspection XML of the manager or an alarm object, and exit.", valueName: "manager|alarm"))
    var printIntrospection: IntrospectedObject?

    @Flag(help: "Log debug messages.")
    var verbose = false

    func validate() throws {
        guard grace >= 0, grace.isFinite else { throw ValidationError("--grace must be zero or more seconds") }
        guard ringTimeout >= 0, ringTimeout.isFinite else { throw ValidationError("--ring-timeout must be zero or more seconds") }
        guard maxAlarms > 0 else { throw ValidationError("--max-alarms must be at least 1") }
        guard defaultSnooze > 0, defaultSnooze <= AlarmDefinition.maximumDuration else {
            throw ValidationError("--default-snooze must be more than 0 and at most 366 days (in seconds)")
        }
        guard ramp >= 0, ramp <= 3_600, ramp.isFinite else { throw ValidationError("--ramp must be between 0 and 3600 seconds") }
        guard !soundDevice.isEmpty else { throw ValidationError("--sound-device must name an ALSA PCM") }
        if let unmuteTo, !(1...100).contains(unmuteTo) { throw ValidationError("--unmute-to must be between 1 and 100 (percent)") }
        if let phoneAfter, !(phoneAfter.isFinite && phoneAfter >= 1 && phoneAfter <= 86_400) {
            throw ValidationError("--phone-after must be between 1 and 86400 seconds")
        }
        _ = try parsedSnoozeChoices()
    }

    /// `--snooze-choices` read (`SnoozeChoices(parsing:)`); none when not given. A bad list is a
    /// usage error (exit 64) naming the bad item.
    func parsedSnoozeChoices() throws -> SnoozeChoices {
        guard let snoozeChoices else { return .none }
        do {
            return try SnoozeChoices(parsing: snoozeChoices)
        } catch {
            throw ValidationError("--snooze-choices: \(error)")
        }
    }

    func run() async throws {
        switch printIntrospection {
        case .manager?:
            print(AgentIntrospection.managerXML, terminator: "")
            return
        case .alarm?:
            print(AgentIntrospection.alarmXML, terminator: "")
            return
        case nil:
            break
        }
        // A reader that went away (a closed log pipe, a sound server's pipe) must fail the write,
        // not end the agent.
        signal(SIGPIPE, SIG_IGN)
        // Before the agent's threads read the environment: later sound opens only replace it.
        PipeWireALSAProperties.prepare()
        // A file-size limit reached (RLIMIT_FSIZE) must fail the write (the store reports a full
        // disk), not end the agent.
        signal(SIGXFSZ, SIG_IGN)
        let level: Logger.Level = verbose ? .debug : .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "reveilled")
        let directory = store.map { URL(fileURLWithPath: $0) } ?? AlarmStore.defaultDirectory()
        let here = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        let ownExecutable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")).map(URL.init(fileURLWithPath:))
        let binaries = ownExecutable?.deletingLastPathComponent() ?? here
        if let bus {
            // libnotify talks to the session bus it finds in the environment: make it this one.
            setenv("DBUS_SESSION_BUS_ADDRESS", bus, 1)
        }
        let desktop = DesktopOptions(
            notifications: !noNotifications,
            sound: silent
                ? nil : SoundPlayer.Configuration(device: .system(name: soundDevice), rampDuration: .milliseconds(Int64(ramp * 1000))),
            soundFolders: SoundResolver.installedSoundFolders(executable: binaries.appendingPathComponent("reveilled")),
            doNotDisturb: !ignoreDoNotDisturb, heldSound: dndSound, unmuteTo: unmuteTo,
            snoozeChoices: try parsedSnoozeChoices(),
            phoneBackupAfter: phoneAfter.map { .milliseconds(Int64($0 * 1000)) },
            appIcon: InstalledFiles.appIcon(
                executable: binaries.appendingPathComponent("reveilled"), environment: ProcessInfo.processInfo.environment))
        let configuration = AgentConfiguration(
            storeDirectory: directory,
            policy: AlarmPolicy(
                graceWindow: grace, ringTimeout: ringTimeout == 0 ? nil : ringTimeout, maximumAlarmsPerOwner: maxAlarms,
                defaultSnooze: defaultSnooze),
            busAddress: bus,
            trustedExecutables: [
                binaries.appendingPathComponent("reveille").path, binaries.appendingPathComponent("reveille-search").path,
            ],
            version: ReveilleVersion.current,
            desktop: desktop,
            systemBusAddress: systemBus,
            localTimePath: localTime,
            wakeFromSuspend: !noWake,
            rtcClassDirectory: rtcClass)
        let agent: AlarmAgent
        do {
            agent = try await AlarmAgent(configuration: configuration, logger: logger)
        } catch let error as AgentStartError {
            FileDescriptor.standardError.write("reveilled: \(error)\n")
            throw ExitCode(1)
        }
        let serving = Task { try await agent.run() }
        let stop = SignalWatcher.onTermination { serving.cancel() }
        defer { withExtendedLifetime(stop) {} }
        do {
            try await serving.value
        } catch is CancellationError {
        } catch let error as AgentStartError {
            await agent.shutdown()
            FileDescriptor.standardError.write("reveilled: \(error)\n")
            throw ExitCode(1)
        } catch {
            logger.critical("Stopping", metadata: ["error": "\(error)"])
            await agent.shutdown()
            throw ExitCode(1)
        }
        logger.info("Stopped; everything is stored")
        await agent.shutdown()
    }
}

/// The objects whose introspection XML `--print-introspection` prints.
enum IntrospectedObject: String, ExpressibleByArgument, CaseIterable {
    case manager
    case alarm
}

extension DoNotDisturbStatus.HeldSound: ExpressibleByArgument {}
