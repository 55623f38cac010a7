import Foundation
import LinuxSystem
import Testing

/// Starting a program detached, waiting for it, and its pidfd.
@Suite("Processes", .timeLimit(.minutes(5)))
struct ProcessTests {
    @Test("spawn appends the program's output and errors to a 0600 log, input from /dev/null, in a new session")
    func spawnDetached() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("linux-system-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = folder.appendingPathComponent("program.log").path
        try Data("earlier\n".utf8).write(to: URL(fileURLWithPath: log))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: log)

        let script = "read line || echo input-ended; echo out \"$GREETING\"; echo err >&2; exec cat /proc/self/stat"
        let id = try ProcessCalls.spawn(
            "/bin/sh", arguments: ["-c", script], environment: ["GREETING=hello"], appendingOutputTo: log)
        #expect(try ProcessCalls.wait(for: id) == .exited(0))

        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map(String.init)
        try #require(lines.count == 5)
        #expect(Array(lines[0..<4]) == ["earlier", "input-ended", "out hello", "err"])
        // /proc/self/stat of the program (exec keeps its id): field 6 is its session.
        let fields = lines[4].split(separator: ")").last!.split(separator: " ")
        #expect(fields[0] == "R" && Int32(fields[3]) == id, "the program leads a session of its own")
        let mode = try FileManager.default.attributesOfItem(atPath: log)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test("a new log file is made with mode 0600")
    func spawnCreatesLog() throws {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("linux-system-\(UUID().uuidString).log").path
        defer { try? FileManager.default.removeItem(atPath: log) }
        let id = try ProcessCalls.spawn("/bin/sh", arguments: ["-c", "exit 3"], appendingOutputTo: log, newSession: false)
        #expect(try ProcessCalls.wait(for: id) == .exited(3))
        let mode = try FileManager.default.attributesOfItem(atPath: log)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test("spawning a missing program throws noSuchFile")
    func spawnMissing() {
        #expect(throws: Errno.noSuchFile) {
            try ProcessCalls.spawn("/nonexistent/program-\(UUID().uuidString)", appendingOutputTo: "/dev/null")
        }
    }

    @Test("a pidfd becomes readable when its process ends; kill and wait report the signal")
    func processHandle() throws {
        let id = try ProcessCalls.spawn("/bin/sleep", arguments: ["30"], appendingOutputTo: "/dev/null")
        let handle = try ProcessCalls.openHandle(id)
        defer { try? handle.close() }
        var entries = [PollDescriptor(handle, events: .readable)]
        #expect(try FileDescriptor.poll(&entries, timeoutMilliseconds: 0) == 0, "running")
        #expect(try ProcessCalls.wait(for: id, waiting: false) == nil)
        try ProcessCalls.kill(id, signal: SIGTERM)
        #expect(try FileDescriptor.poll(&entries, timeoutMilliseconds: 10_000) == 1, "ended")
        #expect(try ProcessCalls.wait(for: id) == .signaled(SIGTERM))
        #expect(throws: Errno.noChildProcess) { try ProcessCalls.wait(for: id) }
    }
}
