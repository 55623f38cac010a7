import FoundationEssentials

/// The deadline the engine last told a helper it waits for (`WakeAhead`, `SoundAhead`), to leave
/// out a request that only repeats it.
struct RequestedDeadline {
    /// The deadline asked for now; `nil` for none (or none asked for yet).
    private(set) var instant: Date?
    /// Whether any deadline (or none) was asked for yet: the first is always taken.
    private var requested = false

    /// Takes `instant` as the deadline asked for now; `false`, changing nothing, when it is the
    /// one asked for before (to the millisecond), or again none.
    mutating func take(_ instant: Date?) -> Bool {
        if requested {
            if let old = self.instant, let instant, abs(old.timeIntervalSince(instant)) < 0.001 { return false }
            if self.instant == nil, instant == nil { return false }
        }
        requested = true
        self.instant = instant
        return true
    }
}
