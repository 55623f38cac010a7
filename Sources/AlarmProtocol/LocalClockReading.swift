import AlarmModel
import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension ClockReading {
    /// This machine's clocks and time zone now, as a client reads alarms sent by the agent: the
    /// wall clock, the boot clock (`CLOCK_BOOTTIME`, which counts through suspend) and the zone.
    /// Readings taken this way in one process compare their boot clocks with each other.
    public static func local() -> ClockReading {
        var boot = timespec()
        clock_gettime(CLOCK_BOOTTIME, &boot)
        return ClockReading(
            now: Date(), uptime: .seconds(boot.tv_sec) + .nanoseconds(boot.tv_nsec), bootID: "local", timeZone: .current)
    }
}
