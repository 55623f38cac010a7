import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Small measuring tools: wall time, percentiles and resident memory.
enum Measure {
    /// Runs `body` and returns how long it took.
    static func time<T>(_ body: () async throws -> T) async rethrows -> (T, Duration) {
        let start = ContinuousClock.now
        let result = try await body()
        return (result, ContinuousClock.now - start)
    }

    /// Runs `body` and returns how long it took.
    static func timeSync<T>(_ body: () throws -> T) rethrows -> (T, Duration) {
        let start = ContinuousClock.now
        let result = try body()
        return (result, ContinuousClock.now - start)
    }

    /// How long a program takes from `posix_spawn` to `waitpid`, its output discarded.
    static func processTime(_ path: String, _ arguments: [String], environment: [String: String]) throws -> Duration {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let start = ContinuousClock.now
        guard posix_spawn(&pid, path, &actions, nil, argv, envp) == 0 else {
            throw POSIXError(.ENOEXEC)
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return ContinuousClock.now - start
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

    /// A size in MiB and in MB (10^6 bytes), for a target given in MB.
    static func megabytes(_ bytes: Int) -> String {
        mebibytes(bytes) + String(format: " (%.1f MB)", Double(bytes) / 1_000_000)
    }

    /// Prints one result line: what was measured, the number, and the target when there is one.
    static func report(_ name: String, _ value: String, target: String? = nil) {
        let padded = name.padding(toLength: 64, withPad: " ", startingAt: 0)
        print("\(padded) \(value)\(target.map { "   (target \($0))" } ?? "")")
    }
}
