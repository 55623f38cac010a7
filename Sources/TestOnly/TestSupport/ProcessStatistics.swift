import Foundation

/// Counters of a process read from `/proc`.
package struct ProcessStatistics: Sendable {
    /// Voluntary and involuntary context switches of each of its threads, by thread id.
    package var contextSwitches: [String: Int] = [:]
    /// Each thread's name (`comm`), by thread id.
    package var names: [String: String] = [:]
    /// Its resident set size.
    package var residentBytes = 0

    /// The wake-ups since an earlier reading, by thread: the context switches of threads that lived
    /// through both readings, plus all of those of threads that began since. (A thread that ended
    /// can no longer wake up; counting it as negative would hide wake-ups.)
    package func wakeUpsByThread(since earlier: ProcessStatistics) -> [String: Int] {
        var counts: [String: Int] = [:]
        for (thread, switches) in contextSwitches {
            counts["\(names[thread] ?? "?") (\(thread))", default: 0] += switches - (earlier.contextSwitches[thread] ?? 0)
        }
        return counts
    }

    /// Reads a live process's counters; throws when `pid` is not running (gone, or a zombie
    /// whose threads have ended): a process that no longer runs has no threads to wake up, so
    /// its silence would pass for idleness.
    package static func live(pid: Int32) throws -> ProcessStatistics {
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        // `pid (comm) S ...`: the state follows the last parenthesis (comm may hold any).
        let state =
            stat.range(of: ")", options: .backwards).map { stat[$0.upperBound...].split(separator: " ").first.map(String.init) ?? "" } ?? ""
        guard !state.isEmpty, state != "Z", state != "X" else {
            throw SandboxError.failed("process \(pid) is not running (\(state.isEmpty ? "gone" : "state \(state)"))")
        }
        let statistics = ProcessStatistics(pid: pid)
        guard !statistics.contextSwitches.isEmpty else { throw SandboxError.failed("process \(pid) has no threads left") }
        return statistics
    }

    /// What woke over a window: each thread's wake-ups, and in which whole seconds of the window
    /// (read from `/proc` once a second, which does not wake the process).
    package struct WakeUps: Sendable, CustomStringConvertible {
        /// Wake-ups by thread (see `wakeUpsByThread(since:)`), threads that did not wake left out.
        package var byThread: [String: Int]
        /// For each thread that woke, the seconds into the window in which it did.
        package var seconds: [String: [Int]]

        /// `reveille-worker (123): 2 (s 1, 2)`, one thread a line.
        package var description: String {
            byThread.keys.sorted().map {
                "\($0): \(byThread[$0]!) (s \(seconds[$0, default: []].map(String.init).joined(separator: ", ")))"
            }
            .joined(separator: "; ")
        }
    }

    /// The wake-ups of each thread of `pid` over `window`, waited out in full. Throws when the
    /// process is not running at the window's start or at its end, or is gone at a reading in
    /// between.
    package static func wakeUps(of pid: Int32, over window: Duration) async throws -> WakeUps {
        let start = ContinuousClock.now
        let before = try live(pid: pid)
        var last = before
        var seconds: [String: [Int]] = [:]
        var second = 0
        while ContinuousClock.now - start < window {
            second += 1
            try await Task.sleep(until: min(start + .seconds(second), start + window))
            let now = try live(pid: pid)
            for (thread, count) in now.wakeUpsByThread(since: last) where count != 0 { seconds[thread, default: []].append(second) }
            last = now
        }
        return WakeUps(byThread: last.wakeUpsByThread(since: before).filter { $0.value != 0 }, seconds: seconds)
    }

    /// Waits, up to `timeout`, until no thread of `pid` has woken up for `stillFor`: the end of an
    /// aftermath the test cannot see finish (the last `fsync` of a checkpoint after the log it
    /// truncates reads empty, the engine handing the result back). A process that keeps waking
    /// more often than `stillFor` never gets there, and the wait throws saying which threads woke.
    package static func waitUntilStill(
        pid: Int32, for stillFor: Duration = .milliseconds(300), timeout: Duration = .seconds(10)
    ) async throws {
        var mark = try live(pid: pid)
        var markedAt = ContinuousClock.now
        var lastWoken: [String: Int] = [:]
        try await waitUntil("no thread of \(pid) to wake up for \(stillFor)", timeout: timeout, detail: { "last woken: \(lastWoken)" }) {
            () -> Void? in
            let now = try live(pid: pid)
            let woken = now.wakeUpsByThread(since: mark).filter { $0.value != 0 }
            if !woken.isEmpty {
                lastWoken = woken
                mark = now
                markedAt = .now
                return nil
            }
            return ContinuousClock.now - markedAt >= stillFor ? () : nil
        }
    }

    /// The threads that are asleep in `poll`, `ppoll`, `epoll_wait` or `epoll_pwait` with a
    /// timeout, by thread id with their names: each of them will wake when it runs out, whether or
    /// not anything happened. Read from `/proc/PID/task/*/syscall` (the call a thread is blocked
    /// in and its arguments), x86-64 numbering.
    package static func threadsWaitingWithTimeout(pid: Int32) -> [String: String] {
        var found: [String: String] = [:]
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        for task in tasks {
            guard let line = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/syscall", encoding: .utf8) else { continue }
            let fields = line.split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            guard let number = Int(fields.first ?? ""), fields.count >= 5 else { continue }
            func argument(_ index: Int) -> UInt64? { UInt64(fields[index].dropFirst(2), radix: 16) }
            let timed: Bool
            switch number {
            case 7:  // poll(fds, nfds, timeout in ms): negative (all ones as an int) waits for ever
                timed = (argument(3).map { Int32(truncatingIfNeeded: $0) } ?? -1) >= 0
            case 271:  // ppoll(fds, nfds, timespec *): a null timespec waits for ever
                timed = argument(3) != 0
            case 232, 281:  // epoll_wait / epoll_pwait(epfd, events, maxevents, timeout in ms)
                timed = (argument(4).map { Int32(truncatingIfNeeded: $0) } ?? -1) >= 0
            default:
                timed = false
            }
            if timed {
                found[task] =
                    (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/comm", encoding: .utf8))?
                    .trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
            }
        }
        return found
    }

    /// Reads them now (`/proc/PID/task/*/status` and `comm`, `/proc/PID/status`).
    package init(pid: Int32) {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        for task in tasks {
            guard let status = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8) else { continue }
            names[task] = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/comm", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines)
            for line in status.split(separator: "\n") where line.contains("ctxt_switches:") {
                contextSwitches[task, default: 0] += Int(line.split(separator: "\t").last?.trimmingCharacters(in: .whitespaces) ?? "") ?? 0
            }
        }
        if let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        {
            residentBytes = (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
        }
    }
}
