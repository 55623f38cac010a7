import AlarmModel
import FoundationEssentials
import LinuxSystem

/// Readings of the kernel's clocks (`clock_gettime`).
enum KernelClock {
    /// Seconds and nanoseconds of a clock.
    static func read(_ clock: ClockID) -> (seconds: Int64, nanoseconds: Int64) {
        clock.reading
    }

    /// The kernel's identifier of this boot (`/proc/sys/kernel/random/boot_id`).
    static let bootID: String = {
        let text = try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8)
        return text?.trimmingWhitespace() ?? "unknown-boot"
    }()
}
