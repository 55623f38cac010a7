import FoundationEssentials

/// An alarm's configuration without its metadata type: what the agent stores and sends.
///
/// `AlarmManager.AlarmConfiguration` is generic over the app's metadata type; the agent keeps the
/// metadata as the JSON the app encoded and never looks inside it.
///
/// The fields live in one box that copies share until one of them changes (`CopyOnWrite`), so a
/// definition is a single reference wherever it goes: an `AlarmRecord` stays small to copy and to
/// move, and the engine's tables of ten thousand records grow without copying megabytes at once.
public struct AlarmDefinition: Codable, Hashable, Sendable {
    private var storage: CopyOnWrite<Fields>

    private struct Fields: Hashable, Sendable {
        var schedule: Alarm.Schedule?
        var countdownDuration: Alarm.CountdownDuration?
        var presentation: AlarmPresentation
        var tintColor: Color
        var metadata: Data?
        var sound: AlertConfiguration.AlertSound
        var stopIntent: String?
        var secondaryIntent: String?
        var applicationID: String?
        var breakthrough = true
        var volume: Int?
        var soundRamp: TimeInterval?
        var ringTimeout: TimeInterval?
        var isEnabled = true
    }

    /// When the alarm alerts; `nil` for a timer.
    public var schedule: Alarm.Schedule? {
        get { storage.fields.schedule }
        set { storage.fields.schedule = newValue }
    }
    /// The countdown before the alert and after it.
    public var countdownDuration: Alarm.CountdownDuration? {
        get { storage.fields.countdownDuration }
        set { storage.fields.countdownDuration = newValue }
    }
    /// What a person sees.
    public var presentation: AlarmPresentation {
        get { storage.fields.presentation }
        set { storage.fields.presentation = newValue }
    }
    /// The tint colour.
    public var tintColor: Color {
        get { storage.fields.tintColor }
        set { storage.fields.tintColor = newValue }
    }
    /// The app's metadata, as the JSON it encoded.
    public var metadata: Data? {
        get { storage.fields.metadata }
        set { storage.fields.metadata = newValue }
    }
    /// The sound.
    public var sound: AlertConfiguration.AlertSound {
        get { storage.fields.sound }
        set { storage.fields.sound = newValue }
    }
    /// The app's own action run when the alert is stopped (AlarmKit's `stopIntent`): on Linux, an
    /// `org.freedesktop.Application` action of the app that scheduled the alarm.
    public var stopIntent: String? {
        get { storage.fields.stopIntent }
        set { storage.fields.stopIntent = newValue }
    }
    /// The app's own action run by the secondary button when its behaviour is `.custom`.
    public var secondaryIntent: String? {
        get { storage.fields.secondaryIntent }
        set { storage.fields.secondaryIntent = newValue }
    }
    /// The desktop app id (and bus name) whose actions the intents run, for an app the agent
    /// knows only by its executable. The agent checks, when it runs an intent, that this bus name
    /// belongs to that app's process; an app known by its app id gets its own id.
    public var applicationID: String? {
        get { storage.fields.applicationID }
        set { storage.fields.applicationID = newValue }
    }
    /// Whether the alert breaks through the desktop's do-not-disturb, as AlarmKit's alarms cut
    /// through Focus and Silent mode (the default). When false, the alert waits while
    /// do-not-disturb is on and rings as the agent's `--dnd-sound` says.
    public var breakthrough: Bool {
        get { storage.fields.breakthrough }
        set { storage.fields.breakthrough = newValue }
    }

    /// The alert sound's volume, in percent of the sound file's own level (0–100): it scales the
    /// samples, as the crescendo does, never the desktop's mixer. `nil` rings at the agent's
    /// level (full).
    public var volume: Int? {
        get { storage.fields.volume }
        set { storage.fields.volume = newValue }
    }
    /// How long (seconds) the alert's sound takes to rise from quiet to its volume; 0 starts at
    /// its volume. `nil` uses the agent's `--ramp`.
    public var soundRamp: TimeInterval? {
        get { storage.fields.soundRamp }
        set { storage.fields.soundRamp = newValue }
    }
    /// How long (seconds) an unanswered alert rings before it ends as timed out; 0 rings until
    /// answered. `nil` uses the agent's `--ring-timeout`.
    public var ringTimeout: TimeInterval? {
        get { storage.fields.ringTimeout }
        set { storage.fields.ringTimeout = newValue }
    }
    /// Whether the alarm rings (true, the default). An alarm turned off keeps its settings and
    /// its place in the list, and never rings until it is turned on again.
    public var isEnabled: Bool {
        get { storage.fields.isEnabled }
        set { storage.fields.isEnabled = newValue }
    }

    /// Creates a definition from its parts.
    public init(
        schedule: Alarm.Schedule?,
        countdownDuration: Alarm.CountdownDuration?,
        presentation: AlarmPresentation,
        tintColor: Color = .accentColor,
        metadata: Data? = nil,
        sound: AlertConfiguration.AlertSound = .default
    ) {
        storage = CopyOnWrite(
            Fields(
                schedule: schedule, countdownDuration: countdownDuration, presentation: presentation, tintColor: tintColor,
                metadata: metadata, sound: sound))
    }

    /// Creates a definition from an app's configuration, encoding its metadata as JSON.
    public init<Metadata>(_ configuration: AlarmManager.AlarmConfiguration<Metadata>) throws {
        self.init(
            schedule: configuration.schedule,
            countdownDuration: configuration.countdownDuration,
            presentation: configuration.attributes.presentation,
            tintColor: configuration.attributes.tintColor,
            metadata: try configuration.attributes.metadata.map { try JSONEncoder().encode($0) },
            sound: configuration.sound)
        stopIntent = configuration.stopIntent?.applicationAction
        secondaryIntent = configuration.secondaryIntent?.applicationAction
    }

    /// The alert's title, as a plain string.
    public var title: String { presentation.alert.title.key }

    /// The title people see: the alert's, or "Timer" or "Alarm" when it has none.
    public var displayTitle: String { title.isEmpty ? (isTimer ? "Timer" : "Alarm") : title }

    /// Whether the alarm alerts more than once by itself (a weekly clock-time alarm).
    public var repeats: Bool {
        if case .relative(let relative) = schedule, case .weekly = relative.repeats { return true }
        return false
    }

    /// Whether this is a timer: a countdown with no schedule.
    public var isTimer: Bool { schedule == nil }
}

extension AlarmDefinition {
    private enum CodingKeys: String, CodingKey {
        case schedule, countdownDuration, presentation, tintColor, metadata, sound, stopIntent, secondaryIntent
        case applicationID, breakthrough, volume, soundRamp, ringTimeout, isEnabled
    }

    /// Writes the definition as the fields it has, absent optionals left out.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(schedule, forKey: .schedule)
        try container.encodeIfPresent(countdownDuration, forKey: .countdownDuration)
        try container.encode(presentation, forKey: .presentation)
        try container.encode(tintColor, forKey: .tintColor)
        try container.encodeIfPresent(metadata, forKey: .metadata)
        try container.encode(sound, forKey: .sound)
        try container.encodeIfPresent(stopIntent, forKey: .stopIntent)
        try container.encodeIfPresent(secondaryIntent, forKey: .secondaryIntent)
        try container.encodeIfPresent(applicationID, forKey: .applicationID)
        try container.encode(breakthrough, forKey: .breakthrough)
        try container.encodeIfPresent(volume, forKey: .volume)
        try container.encodeIfPresent(soundRamp, forKey: .soundRamp)
        try container.encodeIfPresent(ringTimeout, forKey: .ringTimeout)
        if !isEnabled { try container.encode(false, forKey: .isEnabled) }
    }

    /// Reads a definition, taking `breakthrough` and `isEnabled` as true when the JSON has no such
    /// key (written before they existed).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            schedule: try container.decodeIfPresent(Alarm.Schedule.self, forKey: .schedule),
            countdownDuration: try container.decodeIfPresent(Alarm.CountdownDuration.self, forKey: .countdownDuration),
            presentation: try container.decode(AlarmPresentation.self, forKey: .presentation),
            tintColor: try container.decode(Color.self, forKey: .tintColor),
            metadata: try container.decodeIfPresent(Data.self, forKey: .metadata),
            sound: try container.decode(AlertConfiguration.AlertSound.self, forKey: .sound))
        stopIntent = try container.decodeIfPresent(String.self, forKey: .stopIntent)
        secondaryIntent = try container.decodeIfPresent(String.self, forKey: .secondaryIntent)
        applicationID = try container.decodeIfPresent(String.self, forKey: .applicationID)
        breakthrough = try container.decodeIfPresent(Bool.self, forKey: .breakthrough) ?? true
        volume = try container.decodeIfPresent(Int.self, forKey: .volume)
        soundRamp = try container.decodeIfPresent(TimeInterval.self, forKey: .soundRamp)
        ringTimeout = try container.decodeIfPresent(TimeInterval.self, forKey: .ringTimeout)
        isEnabled = try container.decodeIfPresent(Bool.self, forKey: .isEnabled) ?? true
    }
}

extension AlarmDefinition {
    /// The longest title or button label accepted, in characters.
    public static let maximumTextLength = 1_000
    /// The longest sound name or path accepted, in bytes.
    public static let maximumSoundNameLength = 4_096
    /// The largest metadata accepted, in bytes.
    public static let maximumMetadataSize = 64 * 1024
    /// The longest countdown accepted: a year.
    public static let maximumDuration: TimeInterval = 366 * 86_400
    /// The longest crescendo accepted: an hour.
    public static let maximumSoundRamp: TimeInterval = 3_600
    /// The longest ring time-out accepted: a day.
    public static let maximumRingTimeout: TimeInterval = 86_400

    /// Checks every field, throwing for the first that is not valid.
    ///
    /// `now` is the instant of the request: a `.fixed` instant must not have passed.
    public func validate(now: Date) throws(AlarmRequestError) {
        try validate(now: now, checkingInstant: true)
    }

    /// Checks every field, and a `.fixed` instant's distance from `now` only when
    /// `checkingInstant`: an edit that leaves the schedule as it is (the title of an alarm
    /// snoozed past its instant, say) does not judge it again.
    package func validate(now: Date, checkingInstant: Bool) throws(AlarmRequestError) {
        if schedule == nil && countdownDuration?.preAlert == nil {
            throw .invalidConfiguration(
                field: "schedule", reason: "an alarm needs a schedule or a countdown preAlert duration")
        }
        switch schedule {
        case .fixed(let date):
            guard date.timeIntervalSince1970.isFinite else {
                throw .invalidConfiguration(field: "schedule.fixed", reason: "not a valid instant")
            }
            guard checkingInstant else { break }
            guard date > now else {
                throw .invalidConfiguration(
                    field: "schedule.fixed", reason: "\(date.formatted(.iso8601)) has already passed")
            }
            guard date.timeIntervalSince(now) <= 100 * 366 * 86_400 else {
                throw .invalidConfiguration(field: "schedule.fixed", reason: "more than 100 years away")
            }
        case .relative(let relative):
            guard (0...23).contains(relative.time.hour) else {
                throw .invalidConfiguration(
                    field: "schedule.hour", reason: "\(relative.time.hour) is not an hour (0 to 23)")
            }
            guard (0...59).contains(relative.time.minute) else {
                throw .invalidConfiguration(
                    field: "schedule.minute", reason: "\(relative.time.minute) is not a minute (0 to 59)")
            }
            if case .weekly(let days) = relative.repeats, days.isEmpty {
                throw .invalidConfiguration(field: "schedule.weekdays", reason: "a weekly alarm needs at least one day")
            }
        case nil:
            break
        }
        try Self.validate(duration: countdownDuration?.preAlert, field: "countdownDuration.preAlert")
        try Self.validate(duration: countdownDuration?.postAlert, field: "countdownDuration.postAlert")

        let alert = presentation.alert
        try Self.validate(text: alert.title, field: "presentation.alert.title", allowEmpty: true)
        try Self.validate(button: alert.stopButton, field: "presentation.alert.stopButton")
        if let secondary = alert.secondaryButton {
            try Self.validate(button: secondary, field: "presentation.alert.secondaryButton")
            // One that counts down with no postAlert duration snoozes for the policy's default.
            guard alert.secondaryButtonBehavior != nil else {
                throw .invalidConfiguration(
                    field: "presentation.alert.secondaryButtonBehavior",
                    reason: "a secondary button needs a behavior (countdown or custom)")
            }
        }
        if let countdown = presentation.countdown {
            try Self.validate(text: countdown.title, field: "presentation.countdown.title", allowEmpty: true)
            if let pause = countdown.pauseButton {
                try Self.validate(button: pause, field: "presentation.countdown.pauseButton")
            }
        }
        if let paused = presentation.paused {
            try Self.validate(text: paused.title, field: "presentation.paused.title", allowEmpty: true)
            try Self.validate(button: paused.resumeButton, field: "presentation.paused.resumeButton")
        }
        if let applicationID, !ApplicationActionName.isValidApplicationID(applicationID) {
            throw .invalidConfiguration(
                field: "applicationID", reason: "\(QuotedText.quote(applicationID)) is not a desktop app id (such as org.example.App)")
        }
        for (intent, field) in [(stopIntent, "stopIntent"), (secondaryIntent, "secondaryIntent")] {
            if let intent, !ApplicationActionName.isValid(intent) {
                throw .invalidConfiguration(
                    field: field, reason: "\(QuotedText.quote(intent)) is not an action name (letters, digits, - and _)")
            }
        }
        if let metadata, metadata.count > Self.maximumMetadataSize {
            throw .invalidConfiguration(
                field: "metadata", reason: "\(metadata.count) bytes is more than \(Self.maximumMetadataSize)")
        }
        if let volume, !(0...100).contains(volume) {
            throw .invalidConfiguration(field: "volume", reason: "\(volume) is not a volume in percent (0 to 100)")
        }
        try Self.validate(span: soundRamp, field: "soundRamp", maximum: Self.maximumSoundRamp, limit: "an hour")
        try Self.validate(span: ringTimeout, field: "ringTimeout", maximum: Self.maximumRingTimeout, limit: "a day")
        try sound.validateName()
    }

    /// Checks a countdown duration: a positive, finite number of seconds, at most `maximumDuration`.
    /// A missing duration passes; `field` names it in the error.
    package static func validate(duration: TimeInterval?, field: String) throws(AlarmRequestError) {
        guard let duration else { return }
        guard duration.isFinite, duration > 0 else {
            throw .invalidConfiguration(field: field, reason: "\(duration) is not a positive number of seconds")
        }
        guard duration <= maximumDuration else {
            throw .invalidConfiguration(field: field, reason: "\(duration) seconds is longer than a year")
        }
    }

    /// Checks a length of time that may be zero (a crescendo, a ring time-out): finite, not
    /// negative, at most `maximum` (`limit` says it in words).
    private static func validate(
        span: TimeInterval?, field: String, maximum: TimeInterval, limit: String
    ) throws(AlarmRequestError) {
        guard let span else { return }
        guard span.isFinite, span >= 0 else {
            throw .invalidConfiguration(field: field, reason: "\(span) is not a number of seconds (0 or more)")
        }
        guard span <= maximum else {
            throw .invalidConfiguration(field: field, reason: "\(span) seconds is longer than \(limit)")
        }
    }

    private static func validate(
        text: LocalizedStringResource, field: String, allowEmpty: Bool
    ) throws(AlarmRequestError) {
        if !allowEmpty && text.key.isEmpty {
            throw .invalidConfiguration(field: field, reason: "must not be empty")
        }
        // The byte count bounds the character count, so only long texts are walked for characters.
        guard text.key.utf8.count <= maximumTextLength || text.key.count <= maximumTextLength else {
            throw .invalidConfiguration(field: field, reason: "longer than \(maximumTextLength) characters")
        }
        // Over the bytes: `String.contains(_:)` with a string goes through Foundation's NSString search.
        guard !text.key.utf8.contains(0) else {
            throw .invalidConfiguration(field: field, reason: "contains a NUL character")
        }
    }

    private static func validate(button: AlarmButton, field: String) throws(AlarmRequestError) {
        try validate(text: button.text, field: field + ".text", allowEmpty: false)
        guard button.systemImageName.utf8.count <= maximumTextLength || button.systemImageName.count <= maximumTextLength else {
            throw .invalidConfiguration(field: field + ".systemImageName", reason: "too long")
        }
    }
}

extension AlertConfiguration.AlertSound {
    /// Checks a named sound's name: not empty, at most `AlarmDefinition.maximumSoundNameLength`
    /// bytes, no NUL. Whether it can be played is the agent's to find.
    package func validateName() throws(AlarmRequestError) {
        guard case .named(let name) = self else { return }
        guard !name.isEmpty else {
            throw .invalidConfiguration(field: "sound", reason: "the sound name is empty")
        }
        guard name.utf8.count <= AlarmDefinition.maximumSoundNameLength, !name.utf8.contains(0) else {
            throw .invalidConfiguration(field: "sound", reason: "not a usable file path or sound name")
        }
    }
}
