import Foundation

/// Small measuring tools: wall time, percentiles and resident memory.
enum Measure {
    /// Runs `body` and returns how long it took.
    static func time<T>(_ body: () async throws -> T) async rethrows -> (T, Duration) {
        let start = ContinuousClock.now
        let result = try await body()
        return (result, ContinuousClock.now - start)
    }

    /// The value at quantile `q` (0...1) of `samples`.
    static func percentile(_ samples: [Duration], _ q: Double) -> Duration {
        let sorted = samples.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * q).rounded()))]
    }

    /// The process's resident set size in bytes, from `/proc/self/status` (`VmRSS`).
    static func residentBytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            let kilobytes = line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
            return kilobytes * 1024
        }
        return 0
    }

    /// A duration in milliseconds, or microseconds when small, for printing.
    static func format(_ duration: Duration) -> String {
        let seconds = duration.timeInterval
        if seconds < 0.001 { return String(format: "%.1f µs", seconds * 1e6) }
        return String(format: "%.2f ms", seconds * 1e3)
    }

    /// Bytes in MiB, for printing.
    static func mebibytes(_ bytes: Int) -> String {
        String(format: "%.1f MiB", Double(bytes) / 1_048_576)
    }

    /// Prints one result line: what was measured, the number, and the target when there is one.
    static func report(_ name: String, _ value: String, target: String? = nil) {
        let padded = name.padding(toLength: 52, withPad: " ", startingAt: 0)
        print("\(padded) \(value)\(target.map { "   (target \($0))" } ?? "")")
    }
}
