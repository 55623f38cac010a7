import AlarmModel
import FoundationEssentials

/// How long before an alarm's instant a suspended machine is woken, so that the resume is over,
/// and the clock set right again by the time service, when the alarm is due.
///
/// Learned from this machine: the longest of the last resumes measured (`ResumeMeter`), plus
/// `spare`, kept between `minimum` and `maximum`; or set by the person (`reveilled --wake-ahead`).
/// Intel gives 1.6 s for a normal resume and laptops take 1-5 s; the minimum also leaves a time
/// service (systemd-timesyncd, chrony) the seconds it takes to step a clock that resumed wrong.
struct WakeAheadMargin: Sendable, Hashable {
    /// The least margin learned: 10 s.
    static let minimum: TimeInterval = 10
    /// The most margin learned: 2 minutes (a resume longer than that is not learned from).
    static let maximum: TimeInterval = 120
    /// What is added to the longest resume measured: 5 s.
    static let spare: TimeInterval = 5

    /// The margin the person set (`--wake-ahead`), or nil to learn it.
    var fixed: TimeInterval?

    /// The margin from the resumes measured (seconds each, newest last).
    func seconds(resumes: [TimeInterval]) -> TimeInterval {
        if let fixed { return fixed }
        let longest = resumes.max() ?? 0
        return min(Self.maximum, max(Self.minimum, longest + Self.spare))
    }

    /// What `status` says: the margin, and what it came from.
    func sentence(resumes: [TimeInterval]) -> String {
        let margin = Self.shown(seconds(resumes: resumes))
        let measured =
            resumes.isEmpty
            ? "no resume measured yet"
            : "the last \(resumes.count == 1 ? "resume took" : "\(resumes.count) resumes took") \(resumes.map(Self.shown).joined(separator: ", "))"
        if fixed != nil { return "\(margin) before each alarm (reveilled --wake-ahead); \(measured)" }
        return
            "\(margin) before each alarm: the longest resume measured and \(Self.shown(Self.spare)) to spare, at least \(Self.shown(Self.minimum)) and at most \(Self.shown(Self.maximum)); \(measured)"
    }

    /// Seconds as `status` shows them: `10 s`, `0.34 s`.
    static func shown(_ seconds: TimeInterval) -> String {
        if seconds == seconds.rounded() { return "\(Int(seconds)) s" }
        return "\(decimal(seconds, places: seconds < 10 ? 2 : 1)) s"
    }

    /// A non-negative number with `places` decimals, rounded half to even (as `%.2f` wrote it,
    /// without Foundation's ICU-backed formatting): `0.34`, `12.0`.
    static func decimal(_ value: Double, places: Int) -> String {
        var scale: Int64 = 1
        for _ in 0..<places { scale *= 10 }
        let scaled = Int64((value * Double(scale)).rounded(.toNearestOrEven))
        let whole = "\(scaled / scale)"
        return places == 0 ? whole : whole + "." + GregorianDate.padded(scaled % scale, places)
    }
}
