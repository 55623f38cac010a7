// AlarmKit code written the way Apple's own documentation and sample code write it, compiled against
// this package: the file is checked by compiling it (source compatibility). Building this test target
// fails if any call below stops compiling; nothing here needs to run for that check. The parts that
// need no agent are also run, with their values checked, by SeedShapedCodeTests.swift; the parts that
// talk to the agent (`ViewModel`, `AgentCalls`, the intents' `perform()`) are only type-checked.
//
// Where each shape comes from:
// - the sample project "Scheduling an alarm with AlarmKit" (AlarmKit-ScheduleAndAlert, WWDC25 session
//   230): `CookingData.swift` (the metadata), `AppIntents.swift` (Pause/Stop/Repeat/Resume/
//   OpenAlarmApp intents), `AlarmForm.swift` (`schedule`, `countdownDuration`, the secondary button),
//   `ViewModel.swift` (`scheduleAlarm`, `alarmPresentation(with:)`, `secondaryIntent(alarmID:userInput:)`,
//   `fetchAlarms`, `observeAlarms`, `unscheduleAlarm`, `requestAuthorization`, the alert-only,
//   countdown and custom-button examples, and its own `AlarmButton`, `Alarm` and `Alarm.Schedule`
//   extensions);
// - WWDC25 session 230, "Wake up to the AlarmKit API": the alert, countdown and paused presentations,
//   the fixed keynote date, the weekly 7:00 schedule, Snooze, Repeat and Open buttons, a timer with
//   `Alarm.CountdownDuration(preAlert:postAlert:)`, a custom sound, `OpenInApp` as secondary intent;
// - developer.apple.com/documentation/alarmkit: `AlarmManager` (the `Task { let _ = try? await ... }`
//   example, `authorizationUpdates`, `alarms`, the control calls), `Alarm` (the 10-second timer and
//   the 9-minute snooze examples), `AlarmPresentation` and `AlarmButton` (the "Eggs are ready!"
//   alert, iOS 26.1's `Alert(title:secondaryButton:secondaryButtonBehavior:)`), `AlarmAttributes`,
//   `AlarmManager.AlarmConfiguration.alarm(...)` and `.timer(...)`, `AlarmManager.AlarmError`.
//
// Written as for Apple's AlarmKit, with these changes only: `import SwiftUI` (for `Color`) and
// `import AppIntents` (for `LiveActivityIntent`) are gone, both come from AlarmKit here; the intents'
// `static var` is `static let` and the view model is `@MainActor`, as Swift 6 language mode requires
// on any platform; the SwiftUI form is a plain struct. Calls that do not compile against this package
// are left out, marked `// MISSING:` with the compiler's error.

import AlarmKit
import Foundation

// MARK: - The sample's CookingData.swift

/// The sample's metadata: when the alarm was made and how the food cooks.
struct CookingData: AlarmMetadata {
    let createdAt: Date
    let method: Method?

    init(method: Method? = nil) {
        self.createdAt = Date.now
        self.method = method
    }

    /// How the food cooks, with the icon the sample's widget shows for it.
    enum Method: String, Codable {
        case stove
        case grill
        case oven
        case fry
        case chill

        var icon: String {
            switch self {
            case .stove: "stove"
            case .grill: "fire"
            case .oven: "oven"
            case .fry: "frying.pan"
            case .chill: "snowflake"
            }
        }
    }
}

// MARK: - The sample's AppIntents.swift

// The sample's intents conform to AppIntents' `LiveActivityIntent`; here the protocol is AlarmKit's own
// and asks only for the name of the app's action (the type's name by default), which the agent runs
// through `org.freedesktop.Application`. AppIntents' parts of the sample's intents do not compile:
// MISSING: `func perform() throws -> some IntentResult { ...; return .result() }`: "cannot find type
//   'IntentResult' in scope" ("'some' types are only permitted in properties, subscripts, and functions").
// MISSING: `static var description = IntentDescription("Pause a countdown")`: "cannot find
//   'IntentDescription' in scope".
// MISSING: `@Parameter(title: "alarmID") var alarmID: String`: "unknown attribute 'Parameter'".
// (`static var title: LocalizedStringResource = "Pause"` is refused by Swift 6 itself, not by this package:
// "static property 'title' is not concurrency-safe because it is nonisolated global shared mutable state".)

/// The sample's error for an intent whose alarm ID is not a UUID.
enum AlarmIntentError: Error {
    case invalidAlarmID
}

/// The sample's `PauseIntent`: pauses the countdown of the alarm it names.
struct PauseIntent: LiveActivityIntent {
    // MISSING: `-> some IntentResult` and `return .result()` (AppIntents' result type).
    func perform() throws {
        guard let uuid = UUID(uuidString: alarmID) else {
            throw AlarmIntentError.invalidAlarmID
        }
        try AlarmManager.shared.pause(id: uuid)
    }

    static let title: LocalizedStringResource = "Pause"
    // MISSING: static let description = IntentDescription("Pause a countdown")

    // MISSING: @Parameter(title: "alarmID")
    var alarmID: String

    init(alarmID: String) {
        self.alarmID = alarmID
    }

    init() {
        self.alarmID = ""
    }
}

/// The sample's `StopIntent`: stops the alarm it names; the sample's every alarm has it as `stopIntent`.
struct StopIntent: LiveActivityIntent {
    // MISSING: `-> some IntentResult` and `return .result()` (AppIntents' result type).
    func perform() throws {
        guard let uuid = UUID(uuidString: alarmID) else {
            throw AlarmIntentError.invalidAlarmID
        }
        try AlarmManager.shared.stop(id: uuid)
    }

    static let title: LocalizedStringResource = "Stop"
    // MISSING: static let description = IntentDescription("Stop an alert")

    // MISSING: @Parameter(title: "alarmID")
    var alarmID: String

    init(alarmID: String) {
        self.alarmID = alarmID
    }

    init() {
        self.alarmID = ""
    }
}

/// The sample's `RepeatIntent`: repeats the countdown of the alarm it names (`countdown(id:)`).
struct RepeatIntent: LiveActivityIntent {
    // MISSING: `-> some IntentResult` and `return .result()` (AppIntents' result type).
    func perform() throws {
        guard let uuid = UUID(uuidString: alarmID) else {
            throw AlarmIntentError.invalidAlarmID
        }
        try AlarmManager.shared.countdown(id: uuid)
    }

    static let title: LocalizedStringResource = "Repeat"
    // MISSING: static let description = IntentDescription("Repeat a countdown")

    // MISSING: @Parameter(title: "alarmID")
    var alarmID: String

    init(alarmID: String) {
        self.alarmID = alarmID
    }

    init() {
        self.alarmID = ""
    }
}

/// The sample's `ResumeIntent`: resumes the paused countdown of the alarm it names.
struct ResumeIntent: LiveActivityIntent {
    // MISSING: `-> some IntentResult` and `return .result()` (AppIntents' result type).
    func perform() throws {
        guard let uuid = UUID(uuidString: alarmID) else {
            throw AlarmIntentError.invalidAlarmID
        }
        try AlarmManager.shared.resume(id: uuid)
    }

    static let title: LocalizedStringResource = "Resume"
    // MISSING: static let description = IntentDescription("Resume a countdown")

    // MISSING: @Parameter(title: "alarmID")
    var alarmID: String

    init(alarmID: String) {
        self.alarmID = alarmID
    }

    init() {
        self.alarmID = ""
    }
}

/// The sample's `OpenAlarmAppIntent`: the `.custom` secondary button's intent, which opens the app.
struct OpenAlarmAppIntent: LiveActivityIntent {
    // MISSING: `-> some IntentResult` and `return .result()` (AppIntents' result type).
    func perform() throws {
        guard let uuid = UUID(uuidString: alarmID) else {
            throw AlarmIntentError.invalidAlarmID
        }
        try AlarmManager.shared.stop(id: uuid)
    }

    static let title: LocalizedStringResource = "Open App"
    // MISSING: static let description = IntentDescription("Opens the Sample app")
    static let openAppWhenRun = true

    // MISSING: @Parameter(title: "alarmID")
    var alarmID: String

    init(alarmID: String) {
        self.alarmID = alarmID
    }

    init() {
        self.alarmID = ""
    }
}

// MARK: - The sample's AlarmForm.swift

/// The sample's form: what a person picked, turned into a schedule, countdown and secondary button.
///
/// The sample's is an `@Observable` class bound to SwiftUI controls; the AlarmKit calls are these.
struct AlarmForm {
    var label = ""
    var selectedDate = Date.now
    var selectedDays = Set<Locale.Weekday>()
    var preAlertEnabled = false
    var scheduleEnabled = false
    var selectedPreAlert: TimeInterval = 0
    var selectedPostAlert: TimeInterval = 0
    var selectedSecondaryButton: SecondaryButtonOption = .none

    /// The secondary button a person can pick.
    enum SecondaryButtonOption: String, CaseIterable {
        case none = "None"
        case countdown = "Countdown"
        case openApp = "Open App"
    }

    var isValidAlarm: Bool {
        (preAlertEnabled && selectedPreAlert > 0) || scheduleEnabled
    }

    var localizedLabel: LocalizedStringResource {
        label.isEmpty ? LocalizedStringResource("Alarm") : LocalizedStringResource(stringLiteral: label)
    }

    var secondaryButtonBehavior: AlarmPresentation.Alert.SecondaryButtonBehavior? {
        switch selectedSecondaryButton {
        case .none: nil
        case .countdown: .countdown
        case .openApp: .custom
        }
    }

    var countdownDuration: Alarm.CountdownDuration? {
        let preAlertCountdown: TimeInterval? =
            if preAlertEnabled {
                selectedPreAlert
            } else { nil }

        let postAlertCountdown: TimeInterval? =
            if secondaryButtonBehavior == .countdown {
                selectedPostAlert
            } else { nil }

        guard preAlertCountdown != nil || postAlertCountdown != nil else { return nil }

        return .init(preAlert: preAlertCountdown, postAlert: postAlertCountdown)
    }

    var schedule: Alarm.Schedule? {
        guard scheduleEnabled else { return nil }

        let dateComponents = Calendar.current.dateComponents([.hour, .minute], from: selectedDate)

        guard let hour = dateComponents.hour, let minute = dateComponents.minute else { return nil }

        let time = Alarm.Schedule.Relative.Time(hour: hour, minute: minute)
        return .relative(
            .init(
                time: time,
                repeats: selectedDays.isEmpty ? .never : .weekly(Array(selectedDays))
            ))
    }
}

// MARK: - The sample's ViewModel.swift: building configurations

/// The configurations the sample and the documentation build, each as they write it; no agent needed.
enum SeedConfigurations {
    typealias AlarmConfiguration = AlarmManager.AlarmConfiguration<CookingData>

    /// The sample's `scheduleAlarm(with:)`, up to the configuration it schedules.
    static func configuration(id: UUID, with userInput: AlarmForm) -> AlarmConfiguration {
        let attributes = AlarmAttributes(
            presentation: alarmPresentation(with: userInput),
            metadata: CookingData(),
            tintColor: Color.blue)

        let alarmConfiguration = AlarmConfiguration(
            countdownDuration: userInput.countdownDuration,
            schedule: userInput.schedule,
            attributes: attributes,
            stopIntent: StopIntent(alarmID: id.uuidString),
            secondaryIntent: secondaryIntent(alarmID: id, userInput: userInput))
        return alarmConfiguration
    }

    /// The sample's alert-only example.
    static func alertOnlyExample() -> AlarmConfiguration {
        let alertContent = AlarmPresentation.Alert(title: "Reminder", stopButton: .stopButton)

        let attributes = AlarmAttributes<CookingData>(
            presentation: AlarmPresentation(alert: alertContent),
            tintColor: Color.accentColor)

        let alarmConfiguration = AlarmConfiguration(schedule: .twoMinsFromNow, attributes: attributes)
        return alarmConfiguration
    }

    /// The sample's example with a countdown and a Repeat button.
    static func countdownAlertExample(id: UUID) -> AlarmConfiguration {
        let alertContent = AlarmPresentation.Alert(
            title: "Time's Up!",
            stopButton: .stopButton,
            secondaryButton: .repeatButton,
            secondaryButtonBehavior: .countdown)

        let countdownContent = AlarmPresentation.Countdown(title: "Countdown", pauseButton: .pauseButton)

        let pausedContent = AlarmPresentation.Paused(title: "Paused", resumeButton: .resumeButton)

        let attributes = AlarmAttributes(
            presentation: AlarmPresentation(alert: alertContent, countdown: countdownContent, paused: pausedContent),
            metadata: CookingData(method: .oven),
            tintColor: Color.accentColor)

        let alarmConfiguration = AlarmConfiguration(
            countdownDuration: .init(preAlert: 15 * 60, postAlert: 15 * 60),
            attributes: attributes,
            secondaryIntent: RepeatIntent(alarmID: id.uuidString))
        return alarmConfiguration
    }

    /// The sample's example with a custom button that opens the app.
    static func customButtonAlertExample(id: UUID) -> AlarmConfiguration {
        let alertContent = AlarmPresentation.Alert(
            title: "Important Reminder",
            stopButton: .stopButton,
            secondaryButton: .openAppButton,
            secondaryButtonBehavior: .custom)

        let attributes = AlarmAttributes<CookingData>(
            presentation: AlarmPresentation(alert: alertContent),
            tintColor: Color.accentColor)

        let alarmConfiguration = AlarmConfiguration(
            schedule: .twoMinsFromNow,
            attributes: attributes,
            stopIntent: StopIntent(alarmID: id.uuidString),
            secondaryIntent: OpenAlarmAppIntent(alarmID: id.uuidString))
        return alarmConfiguration
    }

    /// The sample's `alarmPresentation(with:)`.
    static func alarmPresentation(with userInput: AlarmForm) -> AlarmPresentation {
        let secondaryButtonBehavior = userInput.secondaryButtonBehavior
        let secondaryButton: AlarmButton? =
            switch secondaryButtonBehavior {
            case .countdown: .repeatButton
            case .custom: .openAppButton
            default: nil
            }

        let alertContent = AlarmPresentation.Alert(
            title: userInput.localizedLabel,
            stopButton: .stopButton,
            secondaryButton: secondaryButton,
            secondaryButtonBehavior: secondaryButtonBehavior)

        guard userInput.countdownDuration != nil else {
            // An alarm without a countdown only specifies an alert state.
            return AlarmPresentation(alert: alertContent)
        }

        // With countdown enabled, a presentation appears for both a countdown and paused state.
        let countdownContent = AlarmPresentation.Countdown(
            title: userInput.localizedLabel,
            pauseButton: .pauseButton)

        let pausedContent = AlarmPresentation.Paused(
            title: "Paused",
            resumeButton: .resumeButton)

        return AlarmPresentation(alert: alertContent, countdown: countdownContent, paused: pausedContent)
    }

    /// The sample's `secondaryIntent(alarmID:userInput:)`.
    static func secondaryIntent(alarmID: UUID, userInput: AlarmForm) -> (any LiveActivityIntent)? {
        guard let behavior = userInput.secondaryButtonBehavior else { return nil }

        switch behavior {
        case .countdown:
            return RepeatIntent(alarmID: alarmID.uuidString)
        case .custom:
            return OpenAlarmAppIntent(alarmID: alarmID.uuidString)
        @unknown default:
            return nil
        }
    }
}

// MARK: - WWDC25 session 230, "Wake up to the AlarmKit API"

/// The session's snippets, in the order it builds them up.
enum SessionSnippets {
    typealias AlarmConfiguration = AlarmManager.AlarmConfiguration<CookingData>

    /// The alert with only a stop button.
    static func alertPresentation() -> AlarmPresentation.Alert {
        let stopButton = AlarmButton(text: "Dismiss", textColor: .white, systemImageName: "stop.circle")

        let alertPresentation = AlarmPresentation.Alert(title: "Food Ready!", stopButton: stopButton)
        return alertPresentation
    }

    /// The attributes with the alert alone.
    static func alertAttributes() -> AlarmAttributes<CookingData> {
        let attributes = AlarmAttributes<CookingData>(
            presentation: AlarmPresentation(alert: alertPresentation()),
            tintColor: Color.green)
        return attributes
    }

    /// The timer: ten minutes of countdown, five of repeat, with Pause, Resume and Repeat.
    static func timer() -> AlarmConfiguration {
        let stopButton = AlarmButton(text: "Dismiss", textColor: .white, systemImageName: "stop.circle")
        let repeatButton = AlarmButton(text: "Repeat", textColor: .white, systemImageName: "repeat.circle")
        let alertPresentation = AlarmPresentation.Alert(
            title: "Food Ready!",
            stopButton: stopButton,
            secondaryButton: repeatButton,
            secondaryButtonBehavior: .countdown)

        let pauseButton = AlarmButton(text: "Pause", textColor: .green, systemImageName: "pause")
        let countdownPresentation = AlarmPresentation.Countdown(title: "Cooking", pauseButton: pauseButton)

        let resumeButton = AlarmButton(text: "Resume", textColor: .green, systemImageName: "play")
        let pausedPresentation = AlarmPresentation.Paused(title: "Paused", resumeButton: resumeButton)

        let attributes = AlarmAttributes<CookingData>(
            presentation: AlarmPresentation(alert: alertPresentation, countdown: countdownPresentation, paused: pausedPresentation),
            metadata: CookingData(method: .fry),
            tintColor: Color.green)

        let duration = Alarm.CountdownDuration(preAlert: (10 * 60), postAlert: (5 * 60))

        let alarmConfiguration = AlarmConfiguration(countdownDuration: duration, attributes: attributes)
        return alarmConfiguration
    }

    /// The keynote's instant, as a fixed schedule.
    static func keynoteSchedule() -> Alarm.Schedule {
        let keynoteDateComponents = DateComponents(
            calendar: .current,
            year: 2025,
            month: 6,
            day: 9,
            hour: 9,
            minute: 41)
        let keynoteDate = Calendar.current.date(from: keynoteDateComponents)!

        let scheduleFixed = Alarm.Schedule.fixed(keynoteDate)
        return scheduleFixed
    }

    /// Seven o'clock on Monday, Wednesday and Friday.
    static func weeklySchedule() -> Alarm.Schedule.Relative {
        let time = Alarm.Schedule.Relative.Time(hour: 7, minute: 0)
        let recurrence = Alarm.Schedule.Relative.Recurrence.weekly([
            .monday,
            .wednesday,
            .friday,
        ])

        let schedule = Alarm.Schedule.Relative(time: time, repeats: recurrence)
        return schedule
    }

    /// The wake-up alarm with Snooze, scheduled with `.alarm(schedule:...)`: no countdown duration at all.
    static func wakeUpAlarm() -> AlarmConfiguration {
        let stopButton = AlarmButton(text: "Dismiss", textColor: .white, systemImageName: "stop.circle")
        let snoozeButton = AlarmButton(text: "Snooze", textColor: .white, systemImageName: "zzz")
        let alertPresentation = AlarmPresentation.Alert(
            title: "Wake Up",
            stopButton: stopButton,
            secondaryButton: snoozeButton,
            secondaryButtonBehavior: .countdown)

        let attributes = AlarmAttributes<CookingData>(
            presentation: AlarmPresentation(alert: alertPresentation),
            tintColor: Color.blue)

        let alarmConfiguration = AlarmConfiguration.alarm(
            schedule: .relative(weeklySchedule()),
            attributes: attributes)
        return alarmConfiguration
    }

    /// The timer whose secondary button opens the app through `OpenInApp`, with a custom sound.
    static func timerOpeningTheApp(id: UUID) -> AlarmConfiguration {
        let stopButton = AlarmButton(text: "Dismiss", textColor: .white, systemImageName: "stop.circle")
        let openButton = AlarmButton(text: "Open", textColor: .white, systemImageName: "arrow.right.circle.fill")
        let alertPresentation = AlarmPresentation.Alert(
            title: "Food Ready",
            stopButton: stopButton,
            secondaryButton: openButton,
            secondaryButtonBehavior: .custom)

        let attributes = AlarmAttributes<CookingData>(
            presentation: AlarmPresentation(alert: alertPresentation),
            metadata: CookingData(method: .stove),
            tintColor: Color.orange)

        let duration = Alarm.CountdownDuration(preAlert: (10 * 60), postAlert: nil)
        let alarmConfiguration = AlarmConfiguration(
            countdownDuration: duration,
            attributes: attributes,
            secondaryIntent: OpenInApp(alarmID: id.uuidString),
            sound: .named("Chime"))
        return alarmConfiguration
    }
}

/// The session's `OpenInApp` intent.
public struct OpenInApp: LiveActivityIntent {
    // MISSING: `public func perform() async throws -> some IntentResult { .result() }` (AppIntents).
    public func perform() async throws {}

    public static let title: LocalizedStringResource = "Open App"
    // MISSING: public static let description = IntentDescription("Opens the Sample app")
    public static let openAppWhenRun = true

    // MISSING: @Parameter(title: "alarmID")
    public var alarmID: String

    public init(alarmID: String) {
        self.alarmID = alarmID
    }

    public init() {
        self.alarmID = ""
    }
}

// MARK: - developer.apple.com/documentation/alarmkit

/// The reference documentation's examples.
enum DocumentationExamples {
    /// `Alarm`: "a 10 second timer".
    static func tenSecondTimer(
        attributes: AlarmAttributes<CookingData>, repeatIntent: RepeatIntent
    ) -> AlarmManager.AlarmConfiguration<CookingData> {
        let configuration = AlarmManager.AlarmConfiguration(
            countdownDuration: Alarm.CountdownDuration(preAlert: 10, postAlert: 10),
            schedule: nil,
            attributes: attributes,
            secondaryIntent: repeatIntent,
            sound: .default)
        return configuration
    }

    /// `Alarm`: "an alarm that includes a 9 minute snooze option and plays the default sound".
    static func nineMinuteSnooze(
        schedule: Alarm.Schedule.Relative, attributes: AlarmAttributes<CookingData>, snoozeIntent: RepeatIntent
    ) -> AlarmManager.AlarmConfiguration<CookingData> {
        let configuration = AlarmManager.AlarmConfiguration(
            countdownDuration: Alarm.CountdownDuration(preAlert: nil, postAlert: 9 * 60),
            schedule: .relative(schedule),
            attributes: attributes,
            secondaryIntent: snoozeIntent,
            sound: .default)
        return configuration
    }

    /// `AlarmPresentation`: the eggs timer's three presentations, with iOS 26.1's alert (the system's
    /// own stop button).
    static func eggsPresentation() -> AlarmPresentation {
        let alert = AlarmPresentation.Alert(
            title: "Eggs are ready!",
            secondaryButton: AlarmButton(text: "Repeat", textColor: .blue, systemImageName: "repeat"),
            secondaryButtonBehavior: .countdown)

        let countdown = AlarmPresentation.Countdown(title: "Eggs are cooking")

        let paused = AlarmPresentation.Paused(
            title: "Timer paused",
            resumeButton: AlarmButton(text: "Resume", textColor: .blue, systemImageName: "play.circle"))

        let presentation = AlarmPresentation(alert: alert, countdown: countdown, paused: paused)
        return presentation
    }

    /// `AlarmPresentation.Alert.init(title:secondaryButton:secondaryButtonBehavior:)` with its defaults:
    /// an alert with only the system's stop button.
    static func titleOnlyAlert() -> AlarmPresentation.Alert {
        AlarmPresentation.Alert(title: "Reminder")
    }

    /// `AlarmPresentation.init(alert:countdown:paused:)` with `paused` left to its default: a countdown
    /// with no pause button, so nothing to show while paused.
    static func countdownOnlyPresentation() -> AlarmPresentation {
        AlarmPresentation(alert: titleOnlyAlert(), countdown: AlarmPresentation.Countdown(title: "Eggs are cooking"))
    }

    /// `AlarmPresentation.init(alert:countdown:paused:)` with `countdown` left to its default: an
    /// alarm shown paused but never counting down on screen.
    static func pausedOnlyPresentation() -> AlarmPresentation {
        let paused = AlarmPresentation.Paused(title: "Paused", resumeButton: .resumeButton)
        return AlarmPresentation(alert: titleOnlyAlert(), paused: paused)
    }

    /// `AlarmAttributes`: presentation, metadata and tint.
    static func attributes(presentation: AlarmPresentation, metadata: CookingData) -> AlarmAttributes<CookingData> {
        let attributes = AlarmAttributes(
            presentation: presentation,
            metadata: metadata,
            tintColor: Color.white)
        return attributes
    }

    /// `AlarmManager.AlarmConfiguration.alarm(schedule:attributes:stopIntent:secondaryIntent:sound:)`,
    /// every argument given.
    static func alarm(at date: Date, id: UUID, attributes: AlarmAttributes<CookingData>) -> AlarmManager.AlarmConfiguration<CookingData> {
        AlarmManager.AlarmConfiguration.alarm(
            schedule: .fixed(date),
            attributes: attributes,
            stopIntent: StopIntent(alarmID: id.uuidString),
            secondaryIntent: OpenAlarmAppIntent(alarmID: id.uuidString),
            sound: AlertConfiguration.AlertSound.named("danger_zone.caf"))
    }

    /// `AlarmManager.AlarmConfiguration.timer(duration:attributes:stopIntent:secondaryIntent:sound:)`,
    /// every argument given.
    static func timer(
        seconds: TimeInterval, id: UUID, attributes: AlarmAttributes<CookingData>
    ) -> AlarmManager.AlarmConfiguration<CookingData> {
        AlarmManager.AlarmConfiguration.timer(
            duration: seconds,
            attributes: attributes,
            stopIntent: StopIntent(alarmID: id.uuidString),
            secondaryIntent: RepeatIntent(alarmID: id.uuidString),
            sound: .default)
    }
}

// MARK: - The sample's ViewModel.swift: talking to the agent (type-checked only)

/// The sample's view model, main-actor isolated as Swift 6 wants it: it asks for authorization,
/// schedules, lists, follows and cancels alarms. Never created by the tests: it needs the agent.
@MainActor
final class ViewModel {
    typealias AlarmConfiguration = AlarmManager.AlarmConfiguration<CookingData>
    typealias AlarmsMap = [UUID: (Alarm, LocalizedStringResource)]

    var alarmsMap = AlarmsMap()
    private let alarmManager = AlarmManager.shared

    var hasUpcomingAlerts: Bool {
        !alarmsMap.isEmpty
    }

    init() {
        observeAlarms()
    }

    func fetchAlarms() {
        do {
            let remoteAlarms = try alarmManager.alarms
            updateAlarmState(with: remoteAlarms)
        } catch {
            print("Error fetching alarms: \(error)")
        }
    }

    func scheduleAlarm(with userInput: AlarmForm) {
        let id = UUID()
        let alarmConfiguration = SeedConfigurations.configuration(id: id, with: userInput)
        scheduleAlarm(id: id, label: userInput.localizedLabel, alarmConfiguration: alarmConfiguration)
    }

    func scheduleAlarm(id: UUID, label: LocalizedStringResource, alarmConfiguration: AlarmConfiguration) {
        Task {
            do {
                guard await requestAuthorization() else {
                    print("Not authorized to schedule alarms.")
                    return
                }
                let alarm = try await alarmManager.schedule(id: id, configuration: alarmConfiguration)
                alarmsMap[id] = (alarm, label)
            } catch {
                print("Error encountered when scheduling alarm: \(error)")
            }
        }
    }

    func unscheduleAlarm(with alarmID: UUID) {
        try? alarmManager.cancel(id: alarmID)
        alarmsMap[alarmID] = nil
    }

    private func observeAlarms() {
        Task {
            for await incomingAlarms in alarmManager.alarmUpdates {
                updateAlarmState(with: incomingAlarms)
            }
        }
    }

    private func updateAlarmState(with remoteAlarms: [Alarm]) {
        // Update existing alarm states.
        remoteAlarms.forEach { updated in
            alarmsMap[updated.id, default: (updated, "Alarm (Old Session)")].0 = updated
        }

        let knownAlarmIDs = Set(alarmsMap.keys)
        let incomingAlarmIDs = Set(remoteAlarms.map(\.id))

        // Clean-up removed alarms.
        let removedAlarmIDs = Set(knownAlarmIDs.subtracting(incomingAlarmIDs))
        removedAlarmIDs.forEach {
            alarmsMap[$0] = nil
        }
    }

    private func requestAuthorization() async -> Bool {
        switch alarmManager.authorizationState {
        case .notDetermined:
            do {
                let state = try await alarmManager.requestAuthorization()
                return state == .authorized
            } catch {
                print("Error occurred while requesting authorization: \(error)")
                return false
            }
        case .denied: return false
        case .authorized: return true
        @unknown default: return false
        }
    }
}

/// The rest of `AlarmManager`, called as the documentation calls it (type-checked only: it needs the agent).
enum AgentCalls {
    /// `AlarmManager`'s overview example.
    static func scheduleFromTheOverview(id: UUID, configuration: AlarmManager.AlarmConfiguration<CookingData>) {
        Task {
            let _ = try? await AlarmManager.shared.schedule(id: id, configuration: configuration)
        }
    }

    /// The session's `try await AlarmManager.shared.schedule(...)`, with the limit's error caught.
    static func scheduleTimer(id: UUID) async throws -> Alarm? {
        do {
            let alarm = try await AlarmManager.shared.schedule(id: id, configuration: SessionSnippets.timer())
            return alarm
        } catch AlarmManager.AlarmError.maximumLimitReached {
            return nil
        }
    }

    /// Every control call, as the intents and the sample make them.
    static func control(_ alarm: Alarm) throws {
        let manager = AlarmManager.shared
        let id: Alarm.ID = alarm.id
        switch alarm.state {
        case .scheduled:
            try manager.cancel(id: id)
        case .countdown:
            try manager.pause(id: id)
        case .paused:
            try manager.resume(id: id)
        case .alerting:
            if alarm.countdownDuration?.postAlert != nil {
                try manager.countdown(id: id)
            } else {
                try manager.stop(id: id)
            }
        @unknown default:
            break
        }
    }

    /// `authorizationState`, `requestAuthorization()` and `authorizationUpdates`.
    static func followAuthorization() async throws {
        let manager = AlarmManager.shared
        if manager.authorizationState == .notDetermined {
            let state: AlarmManager.AuthorizationState = try await manager.requestAuthorization()
            print("asked: \(state)")
        }
        for await state in manager.authorizationUpdates {
            switch state {
            case .notDetermined: print("not asked yet")
            case .denied: print("denied")
            case .authorized: print("authorized")
            @unknown default: break
            }
        }
    }

    /// `alarms` and `alarmUpdates`, reading each `Alarm`'s properties.
    static func listAndFollow() async throws {
        let alarms: [Alarm] = try AlarmManager.shared.alarms
        for alarm in alarms {
            print(alarm.id, alarm.state, alarm.schedule as Any, alarm.countdownDuration as Any)
        }
        for await alarms in AlarmManager.shared.alarmUpdates {
            print(alarms.count)
        }
    }
}

// MARK: - The sample's widget extension (AlarmLiveActivity.swift)

// MISSING: `AlarmPresentationState` and `AlarmAttributes<Metadata>.ContentState`, the Live Activity's
//   content state the sample's widget reads (`context.state.mode`: `.alert`, `.countdown(let countdown)`
//   with `countdown.fireDate`, `.paused(let paused)` with `paused.totalCountdownDuration -
//   paused.previouslyElapsedDuration`): "cannot find type 'AlarmPresentationState' in scope",
//   "'ContentState' is not a member type of generic struct 'AlarmCore.AlarmAttributes<...>'". The rest of
//   the widget is ActivityKit and SwiftUI.
// MISSING: the named sequence types `AlarmManager.AlarmUpdates` and
//   `AlarmManager.AlarmAuthorizationStateUpdates`: "'AlarmUpdates' is not a member type of class
//   'AlarmCore.AlarmManager'". The seeds never name them (`alarmUpdates` and `authorizationUpdates` are
//   `some AsyncSequence` on both sides, and iterate the same).

// MARK: - The sample's own extensions (ViewModel.swift)

extension AlarmButton {
    static var openAppButton: Self {
        AlarmButton(text: "Open", textColor: .black, systemImageName: "swift")
    }

    static var pauseButton: Self {
        AlarmButton(text: "Pause", textColor: .black, systemImageName: "pause.fill")
    }

    static var resumeButton: Self {
        AlarmButton(text: "Start", textColor: .black, systemImageName: "play.fill")
    }

    static var repeatButton: Self {
        AlarmButton(text: "Repeat", textColor: .black, systemImageName: "repeat.circle")
    }

    static var stopButton: Self {
        AlarmButton(text: "Done", textColor: .white, systemImageName: "stop.circle")
    }
}

extension Alarm {
    var alertingTime: Date? {
        guard let schedule else { return nil }

        switch schedule {
        case .fixed(let date):
            return date
        case .relative(let relative):
            var components = Calendar.current.dateComponents([.year, .month, .day, .hour, .minute], from: Date())
            components.hour = relative.time.hour
            components.minute = relative.time.minute
            return Calendar.current.date(from: components)
        @unknown default:
            return nil
        }
    }
}

extension Alarm.Schedule {
    static var twoMinsFromNow: Self {
        let twoMinsFromNow = Date.now.addingTimeInterval(2 * 60)
        let time = Alarm.Schedule.Relative.Time(
            hour: Calendar.current.component(.hour, from: twoMinsFromNow),
            minute: Calendar.current.component(.minute, from: twoMinsFromNow))
        return .relative(.init(time: time))
    }
}
