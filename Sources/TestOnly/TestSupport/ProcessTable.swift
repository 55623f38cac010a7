import Foundation
import Glibc

/// What `/proc` says about processes: whether one still runs, and which belong to a sandbox.
package enum ProcessTable {
    /// The fields of `/proc/PID/stat` after `(comm)` (comm may hold anything, so they start after
    /// the last `)`): state first, then ppid, pgrp, … utime at 11 and stime at 12.
    static func statFields(of pid: pid_t) -> [Substring]? {
        guard pid > 0, let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        return stat[stat.index(after: close)...].split(separator: " ")
    }

    /// When `pid` started, in clock ticks since boot (`/proc/PID/stat`'s 22nd field), or `nil`
    /// when it is gone: with its pid, it names one process, since a pid is reused once the numbers
    /// wrap (at `pid_max`, 32768 on many machines).
    package static func startTime(of pid: pid_t) -> UInt64? {
        statFields(of: pid).flatMap { $0.count > 19 ? UInt64($0[19]) : nil }
    }

    /// Whether `pid` is a live process. A zombie (exited, not yet reaped by its parent) is not.
    package static func isRunning(_ pid: pid_t) -> Bool {
        guard let state = statFields(of: pid)?.first else { return false }
        return state != "Z" && state != "X" && state != "x"
    }

    /// A process's parent, or `nil` when it is gone.
    package static func parent(of pid: pid_t) -> pid_t? {
        statFields(of: pid).flatMap { $0.count > 1 ? pid_t($0[1]) : nil }
    }

    /// The live processes whose parent is `pid`.
    package static func children(of pid: pid_t) -> [pid_t] {
        allProcessIDs().filter { parent(of: $0) == pid }
    }

    /// The names of a process's threads (`/proc/PID/task/*/comm`); empty when it is gone.
    package static func threadNames(of pid: pid_t) -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.compactMap { task in
            (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/comm", encoding: .utf8))?
                .trimmingCharacters(in: .newlines)
        }
    }

    /// The processor time a process has used (`utime + stime` of `/proc/PID/stat`, which counts
    /// its threads that have ended too), in clock ticks' resolution; zero when it is gone.
    package static func cpuTime(of pid: pid_t) -> Duration {
        guard let fields = statFields(of: pid), fields.count > 12 else { return .zero }
        let ticks = (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0)
        return .seconds(Double(ticks) / Double(sysconf(Int32(_SC_CLK_TCK))))
    }

    /// A process's resident memory in bytes (`VmRSS` in `/proc/PID/status`), or `nil` when it
    /// cannot be read (the process is gone).
    package static func residentBytes(of pid: pid_t) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            // "VmRSS:\t   12345 kB"
            return line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first.flatMap { Int($0) }.map { $0 * 1024 }
        }
        return nil
    }

    /// The file names of the libraries a process has mapped (`/proc/PID/maps`, by their last path
    /// component, such as `libasound.so.2.0.0`); empty when it is gone.
    package static func mappedLibraries(of pid: pid_t) -> Set<String> {
        // Read to its end: the file says its size is 0, and a reader that trusts it stops early.
        guard let file = FileHandle(forReadingAtPath: "/proc/\(pid)/maps") else { return [] }
        defer { try? file.close() }
        guard let data = try? file.readToEnd(), let maps = String(data: data, encoding: .utf8) else { return [] }
        return Set(
            maps.split(separator: "\n").compactMap { line -> String? in
                guard let path = line.split(separator: " ", omittingEmptySubsequences: true).last, path.hasPrefix("/") else { return nil }
                let name = path.split(separator: "/").last.map(String.init) ?? ""
                return name.contains(".so") ? name : nil
            })
    }

    /// The live processes whose process group is `group`.
    package static func members(ofGroup group: pid_t) -> [pid_t] {
        allProcessIDs().filter { pid in
            guard let fields = statFields(of: pid), fields.count > 2 else { return false }
            return pid_t(fields[2]) == group
        }
    }

    /// Waits until none of `pids` is running; `false` when `timeout` passes first.
    @discardableResult
    package static func waitUntilGone(_ pids: [pid_t], timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while pids.contains(where: isRunning) {
            if ContinuousClock.now >= deadline { return false }
            usleep(2_000)
        }
        return true
    }

    /// The ids of all live processes.
    package static func allProcessIDs() -> [pid_t] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return names.compactMap { pid_t($0) }.filter(isRunning)
    }

    /// A process's environment, or `nil` when it cannot be read.
    package static func environment(of pid: pid_t) -> [String: String]? {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/environ") else { return nil }
        var result: [String: String] = [:]
        for entry in data.split(separator: 0) {
            let text = String(decoding: entry, as: UTF8.self)
            if let equals = text.firstIndex(of: "=") {
                result[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
        }
        return result
    }

    /// A process's arguments, program first, or `nil` when they cannot be read.
    package static func commandLine(of pid: pid_t) -> [String]? {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return nil }
        return data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The paths a process has open, and its working folder.
    static func openPaths(of pid: pid_t) -> [String] {
        var paths: [String] = []
        if let cwd = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/cwd") { paths.append(cwd) }
        let fdFolder = "/proc/\(pid)/fd"
        for fd in (try? FileManager.default.contentsOfDirectory(atPath: fdFolder)) ?? [] {
            if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(fdFolder)/\(fd)") {
                paths.append(target)
            }
        }
        return paths
    }

    /// The live processes that belong to the sandbox in `folder`: those whose environment carries
    /// `marker=value`, or whose command line, working folder or open files lie in `folder`. The
    /// calling process is never included.
    static func processes(marker: String, value: String, folder: String) -> [pid_t] {
        let me = getpid()
        let prefix = folder.hasSuffix("/") ? folder : folder + "/"
        return allProcessIDs().filter { pid in
            guard pid != me else { return false }
            if environment(of: pid)?[marker] == value { return true }
            // This process's own helpers outside any sandbox (a sound test's `pv` behind popen) may
            // hold descriptors it inherited while a file of a sandbox was open here: not the sandbox's.
            if isDescendant(pid, of: me) { return false }
            if commandLine(of: pid)?.contains(where: { $0.contains(prefix) }) == true { return true }
            return openPaths(of: pid).contains { $0 == folder || $0.hasPrefix(prefix) }
        }
    }

    /// Whether `pid`'s chain of parents reaches `ancestor`.
    static func isDescendant(_ pid: pid_t, of ancestor: pid_t) -> Bool {
        var current = pid
        for _ in 0..<64 {
            guard let parent = parent(of: current), parent > 1 else { return false }
            if parent == ancestor { return true }
            current = parent
        }
        return false
    }
}
