import AlarmRecords
import AlarmCore
import AlarmKit
import Foundation
import Testing

/// Runs the parts of SeedShapedCode.swift that need no agent, and checks what they build: the
/// schedule, the countdown durations, the presentation's buttons, the intents, and what the
/// agent's state machine does with each configuration.
@Suite("AlarmKit source: seed-shaped code builds the values it says")
struct SeedShapedCodeTests {
    /// Monday 1 June 2026, 08:00 UTC.
    static let monday = Date(timeIntervalSince1970: 1_780_300_800)
    static let utc = TimeZone(identifier: "UTC")!

    /// A reading of both clocks at `date`, in UTC.
    static func reading(_ date: Date, uptime seconds: Int64 = 10_000) -> ClockReading {
        ClockReading(now: date, uptime: .seconds(seconds), bootID: "seed-boot", timeZone: .utc)
    }

    /// The stop button AlarmKit's alert has when the app gives none (this package's own `.stopButton`).
    static let systemStopButton = AlarmButton(text: "Stop", textColor: .white, systemImageName: "stop.circle")

    @Test("The reference date is a Monday at 08:00 UTC")
    func referenceDate() {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = Self.utc
        let parts = calendar.dateComponents([.weekday, .hour, .minute, .year, .month, .day], from: Self.monday)
        #expect(parts.weekday == Locale.Weekday.monday.gregorianNumber)
        #expect([parts.year, parts.month, parts.day, parts.hour, parts.minute] == [2026, 6, 1, 8, 0])
    }

    // MARK: - Alert initializers

    @Test("Alert(title:stopButton:) has that stop button and no secondary button")
    func alertWithStopButton() {
        let alert = SessionSnippets.alertPresentation()
        #expect(alert.title == "Food Ready!")
        #expect(alert.stopButton == AlarmButton(text: "Dismiss", textColor: .white, systemImageName: "stop.circle"))
        #expect(alert.secondaryButton == nil)
        #expect(alert.secondaryButtonBehavior == nil)
    }

    @Test("Alert(title:stopButton:secondaryButton:secondaryButtonBehavior:) keeps all four")
    func alertWithEverything() {
        let presentation = SessionSnippets.timer().attributes.presentation
        #expect(presentation.alert.title == "Food Ready!")
        #expect(presentation.alert.stopButton.text == "Dismiss")
        #expect(presentation.alert.secondaryButton == AlarmButton(text: "Repeat", textColor: .white, systemImageName: "repeat.circle"))
        #expect(presentation.alert.secondaryButtonBehavior == .countdown)
    }

    @Test("iOS 26.1's Alert(title:secondaryButton:secondaryButtonBehavior:) gets the system's stop button")
    func alertWithoutStopButton() {
        let alert = DocumentationExamples.eggsPresentation().alert
        #expect(alert.title == "Eggs are ready!")
        #expect(alert.stopButton == Self.systemStopButton)
        #expect(alert.secondaryButton == AlarmButton(text: "Repeat", textColor: .blue, systemImageName: "repeat"))
        #expect(alert.secondaryButtonBehavior == .countdown)
    }

    @Test("Alert(title:) has the system's stop button and nothing else")
    func alertWithTitleOnly() {
        let alert = DocumentationExamples.titleOnlyAlert()
        #expect(alert.title == "Reminder")
        #expect(alert.stopButton == Self.systemStopButton)
        #expect(alert.secondaryButton == nil)
        #expect(alert.secondaryButtonBehavior == nil)
    }

    @Test("The app's own AlarmButton.stopButton (the sample declares one) is the one its code gets")
    func appButtonsShadowThePackages() {
        // The sample's extension says "Done"; this package's own `.stopButton` says "Stop".
        let alert = SeedConfigurations.alertOnlyExample().attributes.presentation.alert
        #expect(alert.stopButton == AlarmButton(text: "Done", textColor: .white, systemImageName: "stop.circle"))
        #expect(AlarmButton.resumeButton.text == "Start")
    }

    // MARK: - Presentations

    @Test("AlarmPresentation(alert:countdown:paused:) keeps the countdown's pause and the paused view's resume buttons")
    func presentationWithCountdown() throws {
        let presentation = DocumentationExamples.eggsPresentation()
        let countdown = try #require(presentation.countdown)
        #expect(countdown.title == "Eggs are cooking")
        #expect(countdown.pauseButton == nil)
        let paused = try #require(presentation.paused)
        #expect(paused.title == "Timer paused")
        #expect(paused.resumeButton == AlarmButton(text: "Resume", textColor: .blue, systemImageName: "play.circle"))
    }

    @Test("AlarmPresentation(alert:countdown:) has a countdown and no paused view")
    func presentationWithoutPausedView() {
        let presentation = DocumentationExamples.countdownOnlyPresentation()
        #expect(presentation.alert.title == "Reminder")
        #expect(presentation.countdown == AlarmPresentation.Countdown(title: "Eggs are cooking", pauseButton: nil))
        #expect(presentation.paused == nil)
    }

    @Test("AlarmPresentation(alert:paused:) has a paused view and no countdown, as Apple's defaults give")
    func presentationWithoutCountdown() {
        let presentation = DocumentationExamples.pausedOnlyPresentation()
        #expect(presentation.countdown == nil)
        #expect(presentation.paused == AlarmPresentation.Paused(title: "Paused", resumeButton: .resumeButton))
    }

    @Test("The session's timer: a 10-minute countdown, 5 minutes of repeat, Pause and Resume")
    func sessionTimer() throws {
        let configuration = SessionSnippets.timer()
        #expect(configuration.schedule == nil)
        #expect(configuration.countdownDuration == Alarm.CountdownDuration(preAlert: 600, postAlert: 300))
        #expect(configuration.sound == .default)
        #expect(configuration.attributes.tintColor == .green)
        #expect(configuration.attributes.metadata?.method == .fry)
        let countdown = try #require(configuration.attributes.presentation.countdown)
        #expect(countdown.title == "Cooking")
        #expect(countdown.pauseButton == AlarmButton(text: "Pause", textColor: .green, systemImageName: "pause"))
        #expect(configuration.attributes.presentation.paused?.resumeButton.systemImageName == "play")
        let definition = try AlarmDefinition(configuration)
        #expect(definition.isTimer)
        try definition.validate(now: Self.monday)
    }

    // MARK: - The sample's form

    @Test("The sample's form: a weekly clock time with a pre-alert and Repeat builds .relative(.weekly), both durations and both intents")
    func sampleFormWeekly() throws {
        var form = AlarmForm()
        form.label = "Pasta"
        form.scheduleEnabled = true
        form.selectedDate = try #require(Calendar.current.date(bySettingHour: 7, minute: 30, second: 0, of: Self.monday))
        form.selectedDays = [.friday, .monday, .wednesday]
        form.preAlertEnabled = true
        form.selectedPreAlert = 120
        form.selectedPostAlert = 300
        form.selectedSecondaryButton = .countdown
        #expect(form.isValidAlarm)

        let id = UUID()
        let configuration = SeedConfigurations.configuration(id: id, with: form)
        guard case .relative(let relative) = try #require(configuration.schedule) else {
            Issue.record("not a clock-time schedule: \(String(describing: configuration.schedule))")
            return
        }
        #expect(relative.time == Alarm.Schedule.Relative.Time(hour: 7, minute: 30))
        #expect(relative.repeats.weekdays == [.monday, .wednesday, .friday])
        #expect(configuration.countdownDuration == Alarm.CountdownDuration(preAlert: 120, postAlert: 300))

        let presentation = configuration.attributes.presentation
        #expect(presentation.alert.title == "Pasta")
        #expect(presentation.alert.stopButton.text == "Done")
        #expect(presentation.alert.secondaryButton == AlarmButton(text: "Repeat", textColor: .black, systemImageName: "repeat.circle"))
        #expect(presentation.alert.secondaryButtonBehavior == .countdown)
        #expect(presentation.countdown?.title == "Pasta")
        #expect(presentation.countdown?.pauseButton == AlarmButton(text: "Pause", textColor: .black, systemImageName: "pause.fill"))
        #expect(
            presentation.paused
                == AlarmPresentation.Paused(
                    title: "Paused", resumeButton: AlarmButton(text: "Start", textColor: .black, systemImageName: "play.fill")))

        #expect((configuration.stopIntent as? StopIntent)?.alarmID == id.uuidString)
        #expect((configuration.secondaryIntent as? RepeatIntent)?.alarmID == id.uuidString)
        let definition = try AlarmDefinition(configuration)
        #expect(definition.stopIntent == "StopIntent")
        #expect(definition.secondaryIntent == "RepeatIntent")
        #expect(definition.repeats)
        try definition.validate(now: Self.monday)
    }

    @Test("The sample's form with no days, no countdown and Open App: .never, no durations, only an alert, OpenAlarmAppIntent")
    func sampleFormOnceOpeningTheApp() throws {
        var form = AlarmForm()
        form.scheduleEnabled = true
        form.selectedDate = try #require(Calendar.current.date(bySettingHour: 6, minute: 5, second: 0, of: Self.monday))
        form.selectedSecondaryButton = .openApp

        let id = UUID()
        let configuration = SeedConfigurations.configuration(id: id, with: form)
        #expect(configuration.schedule == .relative(.init(time: .init(hour: 6, minute: 5), repeats: .never)))
        #expect(configuration.countdownDuration == nil)
        let presentation = configuration.attributes.presentation
        #expect(presentation.alert.title == "Alarm")
        #expect(presentation.alert.secondaryButton == AlarmButton(text: "Open", textColor: .black, systemImageName: "swift"))
        #expect(presentation.alert.secondaryButtonBehavior == .custom)
        #expect(presentation.countdown == nil)
        #expect(presentation.paused == nil)
        #expect((configuration.secondaryIntent as? OpenAlarmAppIntent)?.alarmID == id.uuidString)
        #expect(OpenAlarmAppIntent.openAppWhenRun)
        let definition = try AlarmDefinition(configuration)
        #expect(!definition.repeats)
        try definition.validate(now: Self.monday)
    }

    @Test("The sample's countdown and custom-button examples")
    func sampleExamples() throws {
        let id = UUID()
        let countdown = SeedConfigurations.countdownAlertExample(id: id)
        #expect(countdown.schedule == nil)
        #expect(countdown.countdownDuration == Alarm.CountdownDuration(preAlert: 900, postAlert: 900))
        #expect(countdown.stopIntent == nil)
        #expect(countdown.secondaryIntent?.applicationAction == "RepeatIntent")
        #expect(countdown.attributes.metadata?.method?.icon == "oven")

        let custom = SeedConfigurations.customButtonAlertExample(id: id)
        guard case .relative(let relative) = custom.schedule else {
            Issue.record("twoMinsFromNow is not a clock time: \(String(describing: custom.schedule))")
            return
        }
        #expect(relative.repeats == .never)
        #expect(custom.attributes.presentation.alert.secondaryButtonBehavior == .custom)
        #expect((custom.secondaryIntent as? OpenAlarmAppIntent)?.alarmID == id.uuidString)
        #expect(custom.attributes.metadata == nil)
    }

    // MARK: - The factories

    @Test(
        ".alarm(schedule:attributes:stopIntent:secondaryIntent:sound:) keeps a fixed instant, both intents and the sound, and no countdown")
    func alarmFactory() throws {
        let id = UUID()
        let date = Self.monday.addingTimeInterval(3_600)
        let attributes = DocumentationExamples.attributes(
            presentation: AlarmPresentation(alert: SessionSnippets.alertPresentation()), metadata: CookingData(method: .grill))
        let configuration = DocumentationExamples.alarm(at: date, id: id, attributes: attributes)
        #expect(configuration.schedule == .fixed(date))
        #expect(configuration.countdownDuration == nil)
        #expect(configuration.sound == .named("danger_zone.caf"))
        #expect(configuration.attributes.tintColor == .white)

        let definition = try AlarmDefinition(configuration)
        #expect(definition.stopIntent == "StopIntent")
        #expect(definition.secondaryIntent == "OpenAlarmAppIntent")
        let metadata = try JSONDecoder().decode(CookingData.self, from: try #require(definition.metadata))
        #expect(metadata.method == .grill)
        try definition.validate(now: Self.monday)

        let transition = try AlarmStateMachine().schedule(id: id, owner: "seed", definition: definition, at: Self.reading(Self.monday))
        #expect(transition.record?.phase == .scheduled(alertAt: date))
        #expect(transition.record?.alarm.state == .scheduled)
    }

    @Test(".timer(duration:attributes:stopIntent:secondaryIntent:sound:) is a countdown of that duration with no schedule")
    func timerFactory() throws {
        let id = UUID()
        let attributes = DocumentationExamples.attributes(presentation: DocumentationExamples.eggsPresentation(), metadata: CookingData())
        let configuration = DocumentationExamples.timer(seconds: 90, id: id, attributes: attributes)
        #expect(configuration.schedule == nil)
        #expect(configuration.countdownDuration == Alarm.CountdownDuration(preAlert: 90, postAlert: nil))
        #expect(configuration.sound == .default)
        #expect(configuration.secondaryIntent?.applicationAction == "RepeatIntent")

        let transition = try AlarmStateMachine().schedule(
            id: id, owner: "seed", definition: try AlarmDefinition(configuration), at: Self.reading(Self.monday))
        let record = try #require(transition.record)
        #expect(record.alarm.state == .countdown)
        #expect(record.alarm.countdownDuration?.preAlert == 90)
        guard case .countdown(let countdown) = record.phase else {
            Issue.record("a timer starts counting down at once: \(record.phase)")
            return
        }
        #expect(countdown.kind == .preAlert)
        #expect(countdown.duration == 90)
    }

    @Test("The documentation's 10-second timer and 9-minute snooze keep their durations")
    func documentationCountdowns() throws {
        let attributes = SessionSnippets.alertAttributes()
        let timer = DocumentationExamples.tenSecondTimer(attributes: attributes, repeatIntent: RepeatIntent(alarmID: "x"))
        #expect(timer.countdownDuration == Alarm.CountdownDuration(preAlert: 10, postAlert: 10))
        #expect(timer.schedule == nil)

        let snooze = DocumentationExamples.nineMinuteSnooze(
            schedule: SessionSnippets.weeklySchedule(), attributes: attributes, snoozeIntent: RepeatIntent(alarmID: "x"))
        #expect(snooze.countdownDuration == Alarm.CountdownDuration(preAlert: nil, postAlert: 540))
        #expect(snooze.schedule == .relative(SessionSnippets.weeklySchedule()))
        try AlarmDefinition(snooze).validate(now: Self.monday)
    }

    // MARK: - Schedules

    @Test("The session's weekly 7:00 (Mon, Wed, Fri), scheduled on a Monday at 08:00, first alerts on Wednesday at 07:00")
    func weeklyScheduleAlertsNext() throws {
        let configuration = SessionSnippets.wakeUpAlarm()
        #expect(configuration.countdownDuration == nil)
        #expect(
            configuration.schedule == .relative(.init(time: .init(hour: 7, minute: 0), repeats: .weekly([.monday, .wednesday, .friday]))))
        let transition = try AlarmStateMachine().schedule(
            id: UUID(), owner: "seed", definition: try AlarmDefinition(configuration), at: Self.reading(Self.monday))
        let wednesday = Self.monday.addingTimeInterval(2 * 86_400 - 3_600)
        #expect(transition.record?.phase == .scheduled(alertAt: wednesday))
    }

    @Test("The keynote's fixed date is 9 June 2025 09:41 local time, and has passed")
    func keynoteSchedule() throws {
        guard case .fixed(let date) = SessionSnippets.keynoteSchedule() else {
            Issue.record("not a fixed schedule")
            return
        }
        let parts = Calendar.current.dateComponents([.year, .month, .day, .hour, .minute], from: date)
        #expect([parts.year, parts.month, parts.day, parts.hour, parts.minute] == [2025, 6, 9, 9, 41])
        let alarm = Alarm(id: UUID(), schedule: .fixed(date), countdownDuration: nil, state: .scheduled)
        #expect(alarm.alertingTime == date)
        var definition = try AlarmDefinition(SessionSnippets.timer())
        definition.schedule = .fixed(date)
        #expect(throws: AlarmRequestError.self) { try definition.validate(now: Self.monday) }
    }

    // MARK: - Snooze without a postAlert duration

    /// Schedules `configuration` at the reference Monday, lets it ring, and presses its secondary button.
    static func snooze<Metadata>(_ configuration: AlarmManager.AlarmConfiguration<Metadata>) throws -> AlarmRecord? {
        let machine = AlarmStateMachine()
        let id = UUID()
        let scheduled = try machine.schedule(id: id, owner: "seed", definition: try AlarmDefinition(configuration), at: reading(monday))
        guard case .scheduled(let alertAt) = try #require(scheduled.record).phase else { return nil }
        let rang = try machine.handle(
            .deadlineReached, to: try #require(scheduled.record),
            at: reading(alertAt, uptime: 10_000 + Int64(alertAt.timeIntervalSince(monday))))
        let ringing = try #require(rang.record)
        #expect(ringing.alarm.state == .alerting)
        let snoozed = try machine.handle(
            .countdown, to: ringing, at: reading(alertAt.addingTimeInterval(5), uptime: 10_005 + Int64(alertAt.timeIntervalSince(monday))))
        return snoozed.record
    }

    @Test("A .countdown secondary button with countdownDuration nil is accepted and snoozes for the default 9 minutes")
    func snoozeWithoutPostAlert() throws {
        let configuration = SessionSnippets.wakeUpAlarm()
        #expect(configuration.countdownDuration == nil)
        #expect(configuration.attributes.presentation.alert.secondaryButtonBehavior == .countdown)
        try AlarmDefinition(configuration).validate(now: Self.monday)

        #expect(AlarmPolicy().defaultSnooze == 9 * 60)
        #expect(AlarmPolicy.nineMinutes == 540)
        let snoozed = try #require(try Self.snooze(configuration))
        #expect(snoozed.alarm.state == .countdown)
        guard case .countdown(let countdown) = snoozed.phase else {
            Issue.record("Snooze did not count down: \(snoozed.phase)")
            return
        }
        #expect(countdown.kind == .postAlert)
        #expect(countdown.duration == AlarmPolicy.nineMinutes)
    }

    @Test("A postAlert duration, where given, is the snooze instead of the default")
    func snoozeWithPostAlert() throws {
        var configuration = SessionSnippets.wakeUpAlarm()
        configuration.countdownDuration = Alarm.CountdownDuration(preAlert: nil, postAlert: 300)
        let snoozed = try #require(try Self.snooze(configuration))
        guard case .countdown(let countdown) = snoozed.phase else {
            Issue.record("Snooze did not count down: \(snoozed.phase)")
            return
        }
        #expect(countdown.duration == 300)
    }

    @Test("An alarm with neither a .countdown button nor a postAlert duration cannot be snoozed")
    func noSnoozeWithoutButtonOrDuration() throws {
        let configuration = AlarmManager.AlarmConfiguration.alarm(
            schedule: .relative(SessionSnippets.weeklySchedule()), attributes: SessionSnippets.alertAttributes())
        let error = #expect(throws: AlarmRequestError.self) { _ = try Self.snooze(configuration) }
        guard case .noPostAlertDuration = error else {
            Issue.record("expected noPostAlertDuration, got \(String(describing: error))")
            return
        }
    }

    // MARK: - Alarm values

    @Test("Alarm.State has AlarmKit's four cases, and the control calls' switch covers each")
    func alarmStates() {
        #expect(Alarm.State.allCases == [.scheduled, .countdown, .paused, .alerting])
        let alarm = Alarm(id: UUID(), schedule: nil, countdownDuration: .init(preAlert: 60, postAlert: nil), state: .countdown)
        #expect(alarm.alertingTime == nil)
        #expect(alarm.countdownDuration?.preAlert == 60)
    }

    @Test("AlarmManager.AlarmError.maximumLimitReached is an Error that the seed's catch pattern matches")
    func alarmErrorPattern() {
        let error: any Error = AlarmManager.AlarmError.maximumLimitReached
        var matched = false
        do {
            throw error
        } catch AlarmManager.AlarmError.maximumLimitReached {
            matched = true
        } catch {
            matched = false
        }
        #expect(matched)
        #expect(AlarmManager.AuthorizationState.allCases == [.notDetermined, .denied, .authorized])
    }

    @Test("Each intent names its own type as the app's action, and carries the alarm ID")
    func intents() {
        let id = UUID().uuidString
        let intents: [any LiveActivityIntent] = [
            PauseIntent(alarmID: id), StopIntent(alarmID: id), RepeatIntent(alarmID: id), ResumeIntent(alarmID: id),
            OpenAlarmAppIntent(alarmID: id), OpenInApp(alarmID: id),
        ]
        #expect(
            intents.map(\.applicationAction) == [
                "PauseIntent", "StopIntent", "RepeatIntent", "ResumeIntent", "OpenAlarmAppIntent", "OpenInApp",
            ])
        #expect(PauseIntent().alarmID.isEmpty)
        #expect(PauseIntent.title == "Pause")
        #expect(throws: AlarmIntentError.self) { try PauseIntent().perform() }
    }
}
