import AlarmModel
import FoundationEssentials
import LinuxSystem

extension ClockReading {
    /// This machine's clocks and time zone now, as a client reads alarms sent by the agent: the
    /// wall clock, the boot clock (`CLOCK_BOOTTIME`, which counts through suspend) and the zone.
    /// Readings taken this way in one process compare their boot clocks with each other.
    package static func local() -> ClockReading {
        let boot = ClockID.boottime.reading
        return ClockReading(
            now: Date(), uptime: .seconds(boot.seconds) + .nanoseconds(boot.nanoseconds), bootID: "local", timeZone: ZoneRules.current)
    }
}
