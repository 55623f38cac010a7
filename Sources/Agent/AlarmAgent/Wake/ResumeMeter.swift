import AlarmModel
import FoundationEssentials

/// Measures how long this machine's resumes take, from the wake the agent asked for to when the
/// agent runs again, without privileges: a value type that is told what happened and returns
/// whether the measurements changed.
///
/// The wake is the instant the wake-ahead timer was armed for (`armed(_:)`); the machine must
/// have gone to sleep before it (logind's `PrepareForSleep(true)`) and the agent hear of the
/// resume (`PrepareForSleep(false)`) no more than `WakeAheadMargin.maximum` after it. The resume
/// took from the wake to that moment, by the wall clock.
///
/// Where the kernel measured the sleep by a real-time clock that counts whole seconds (no clock
/// that runs through suspend), the wall clock can be up to a second off after the resume, until
/// the time service sets it. When it does so within `correctionWindow`, the moment the agent ran
/// is read again through the boot clock, which no one sets: the wall clock now, less the boot
/// clock's time since that moment.
struct ResumeMeter: Sendable {
    /// One resume measured.
    struct Resume: Codable, Sendable, Hashable {
        /// When the machine was woken (the wake-ahead instant).
        var wokenAt: Date
        /// Seconds from the wake until the agent ran again.
        var seconds: TimeInterval
    }

    /// How many resumes are kept: the last 5.
    static let kept = 5
    /// How long after a resume a clock set still corrects its measurement: 60 s.
    static let correctionWindow: TimeInterval = 60
    /// How far the wall clock after a resume may read before the wake and still count it: 2 s
    /// (it can be up to a second behind; a resume before that was not the agent's wake).
    static let earlyTolerance: TimeInterval = 2

    /// The resumes measured, oldest first, at most `kept`.
    private(set) var resumes: [Resume]
    /// The wake-ahead instant armed now.
    private var wakeAt: Date?
    /// The reading as the machine went to sleep, and the wake armed then.
    private var sleeping: (reading: ClockReading, wakeAt: Date)?
    /// The last resume measured, while a clock set may still correct it: the reading when the
    /// agent ran again.
    private var correctable: (reading: ClockReading, wokenAt: Date)?

    /// A meter that starts from the resumes measured before (read from `ResumeRecord`).
    init(resumes: [Resume] = []) {
        self.resumes = Array(resumes.suffix(Self.kept))
    }

    /// The seconds of each resume, oldest first.
    var seconds: [TimeInterval] { resumes.map(\.seconds) }

    /// The wake-ahead timer is armed for `instant` now (nil: none).
    mutating func armed(_ instant: Date?) {
        wakeAt = instant
    }

    /// The machine is going to sleep (`PrepareForSleep(true)`), read at `reading`; `wakes` says
    /// whether something will wake it at the armed instant (a wake timer of the agent's, or a
    /// route that armed it). Without that, the resume is whenever a person wakes the machine,
    /// which measures nothing.
    mutating func goingToSleep(_ reading: ClockReading, wakes: Bool = true) {
        if wakes, let wakeAt, wakeAt > reading.now {
            sleeping = (reading, wakeAt)
        } else {
            sleeping = nil
        }
    }

    /// The agent runs again after a resume (`PrepareForSleep(false)`), read at `reading`; true
    /// when a resume was measured.
    mutating func resumed(_ reading: ClockReading) -> Bool {
        defer { sleeping = nil }
        guard let sleeping, reading.bootID == sleeping.reading.bootID else { return false }
        let late = reading.now.timeIntervalSince(sleeping.wakeAt)
        // Woken before the wake (a person, another timer), or so long after that it was not it.
        guard late >= -Self.earlyTolerance, late <= WakeAheadMargin.maximum else { return false }
        record(Resume(wokenAt: sleeping.wakeAt, seconds: max(0, late)))
        correctable = (reading, sleeping.wakeAt)
        return true
    }

    /// The wall clock may have been set (a timer reported it), read at `reading`; true when it
    /// was, soon after a resume, and that resume's measurement was corrected.
    mutating func clockMayHaveBeenSet(_ reading: ClockReading) -> Bool {
        guard let correctable, reading.bootID == correctable.reading.bootID else { return false }
        let since = (reading.uptime - correctable.reading.uptime).timeInterval
        guard since <= Self.correctionWindow else {
            self.correctable = nil
            return false
        }
        guard reading.wallClockWasSet(since: correctable.reading) else { return false }
        // When the agent ran, by the clock as set now.
        let ran = reading.now.addingTimeInterval(-since)
        let corrected = Resume(wokenAt: correctable.wokenAt, seconds: max(0, ran.timeIntervalSince(correctable.wokenAt)))
        guard let last = resumes.indices.last, resumes[last].wokenAt == correctable.wokenAt else { return false }
        resumes[last] = corrected
        // A later set is measured against this one.
        self.correctable = (
            ClockReading(now: ran, uptime: correctable.reading.uptime, bootID: reading.bootID, timeZone: reading.timeZone),
            correctable.wokenAt
        )
        return true
    }

    private mutating func record(_ resume: Resume) {
        resumes.append(resume)
        if resumes.count > Self.kept { resumes.removeFirst(resumes.count - Self.kept) }
    }
}
