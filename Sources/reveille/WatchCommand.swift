import AlarmKit
import ArgumentParser
import Dispatch
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `reveille watch`: a live view of every alarm, with keys to control them; or, with `--json`, one
/// line of JSON per change.
struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Watch alarms live, and stop, snooze, pause or resume them with keys.",
        discussion: """
            Countdowns tick with progress bars and ringing alarms stand out. Keys: ↑/↓ (or k/j) select, \
            s stop, z snooze, p pause, r resume, c cancel, q quit. This is also how to control alarms \
            where no notification server runs.

            With --json, prints the whole list of alarms as a JSON array on one line, now and after \
            every change, as AlarmKit's alarmUpdates does.

            Examples:
              reveille watch
              reveille watch --json | while read -r line; do echo "$line" | jq length; done
            """)

    @Flag(help: "Print one JSON line per change instead of the live view.")
    var json = false

    func run() async throws {
        try await reportingFailures {
            let session = try await AgentSession.open()
            if json {
                for await alarms in session.client.updates() {
                    let reading = ClockReading.local()
                    let descriptions = alarms.map { AlarmDescription($0.record(at: reading), at: reading) }
                        .sorted { $0.id < $1.id }
                    FileHandle.standardOutput.write(Data((AlarmDescription.json(descriptions) + "\n").utf8))
                }
                return
            }
            guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
                throw CLIFailure.usage("watch needs a terminal; use reveille watch --json in scripts")
            }
            try await LiveView(session: session).run()
        }
    }
}

/// The live terminal view of `reveille watch`.
final class LiveView {
    private let session: AgentSession
    private var alarms: [AlarmWire.RemoteAlarm] = []
    private var selected: UUID?
    private var message = ""

    init(session: AgentSession) { self.session = session }

    enum Input: Sendable {
        case alarms([AlarmWire.RemoteAlarm])
        case key(UInt8)
        case tick
        case ended
    }

    func run() async throws {
        let terminal = RawTerminal()
        defer { terminal.restore() }
        let (inputs, continuation) = AsyncStream.makeStream(of: Input.self)
        let updates = session.client.updates()
        let feed = Task {
            for await list in updates { continuation.yield(.alarms(list)) }
            continuation.yield(.ended)
        }
        let keys = KeyReader { continuation.yield(.key($0)) }
        let ticks = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                continuation.yield(.tick)
            }
        }
        defer {
            feed.cancel()
            ticks.cancel()
            keys.stop()
        }
        for await input in inputs {
            switch input {
            case .alarms(let list):
                alarms = list
            case .key(let key):
                if try await handle(key) == false { return }
            case .tick:
                break
            case .ended:
                message = "the agent went away"
            }
            draw()
        }
    }

    /// Handles a key; returns false to quit.
    private func handle(_ key: UInt8) async throws -> Bool {
        let rows = sortedRows()
        let index = rows.firstIndex { $0.alarm.id == selected } ?? 0
        switch key {
        case UInt8(ascii: "q"), 3, 4:
            return false
        case UInt8(ascii: "j"), UInt8(ascii: "B"):
            if !rows.isEmpty { selected = rows[min(rows.count - 1, index + 1)].alarm.id }
        case UInt8(ascii: "k"), UInt8(ascii: "A"):
            if !rows.isEmpty { selected = rows[max(0, index - 1)].alarm.id }
        case UInt8(ascii: "s"), UInt8(ascii: "z"), UInt8(ascii: "p"), UInt8(ascii: "r"), UInt8(ascii: "c"):
            guard rows.indices.contains(index) else { return true }
            let id = rows[index].alarm.id
            do {
                switch key {
                case UInt8(ascii: "s"): try await session.client.stop(id: id)
                case UInt8(ascii: "z"): try await session.client.countdown(id: id)
                case UInt8(ascii: "p"): try await session.client.pause(id: id)
                case UInt8(ascii: "r"): try await session.client.resume(id: id)
                default: try await session.client.cancel(id: id)
                }
                message = ""
            } catch {
                message = "\(error)"
            }
        default:
            break
        }
        return true
    }

    private func sortedRows() -> [AlarmWire.RemoteAlarm] {
        func rank(_ alarm: AlarmWire.RemoteAlarm) -> Int {
            switch alarm.alarm.state {
            case .alerting: 0
            case .countdown: 1
            case .scheduled: 2
            case .paused: 3
            }
        }
        return alarms.sorted {
            (rank($0), $0.fireDate ?? .distantFuture, $0.alarm.id) < (rank($1), $1.fireDate ?? .distantFuture, $1.alarm.id)
        }
    }

    private func draw() {
        let reading = ClockReading.local()
        let width = Terminal.width() ?? 80
        let rows = sortedRows()
        if selected == nil || !rows.contains(where: { $0.alarm.id == selected }) { selected = rows.first?.alarm.id }
        var screen = "\u{1B}[H\u{1B}[2J"
        screen += "\u{1B}[1mReveille\u{1B}[0m  \(rows.count) alarm\(rows.count == 1 ? "" : "s")   ↑↓ select  s stop  z snooze  p pause  r resume  c cancel  q quit\r\n\r\n"
        if rows.isEmpty { screen += "  No alarms.\r\n" }
        for alarm in rows.prefix(max(1, Terminal.height() - 4)) {
            let record = alarm.record(at: reading)
            let marker = alarm.alarm.id == selected ? "›" : " "
            let title = alarm.definition.title.isEmpty ? "-" : alarm.definition.title
            let id = String(alarm.alarm.id.uuidString.lowercased().prefix(8))
            var line: String
            switch record.state {
            case .alerting:
                line = "\u{1B}[1;7;31m \(marker) \(id)  RINGING  \(title) \u{1B}[0m"
            case .countdown, .paused:
                let remaining = record.remaining(from: reading) ?? 0
                let total = alarm.countdownTotal ?? max(remaining, 1)
                let bar = Self.bar(done: 1 - remaining / max(total, 1), width: 20)
                let state = record.state == .paused ? "paused " : "running"
                line = " \(marker) \(id)  \(state)  \(bar) \(DurationFormat.clock(remaining))  \(title)"
            case .scheduled:
                let next = record.fireDate(from: reading).map {
                    LocalTimeFormat.string(for: $0, at: reading) + " (" + RelativeTimeFormat.string(for: $0, relativeTo: reading.now) + ")"
                } ?? "-"
                line = " \(marker) \(id)  \(next)  \(title)"
            }
            screen += DisplayWidth.truncated(line, toWidth: width + (line.hasPrefix("\u{1B}") ? 14 : 0)) + "\r\n"
        }
        if !message.isEmpty { screen += "\r\n\u{1B}[33m\(message)\u{1B}[0m\r\n" }
        FileHandle.standardOutput.write(Data(screen.utf8))
    }

    static func bar(done fraction: Double, width: Int) -> String {
        let filled = Int((min(max(fraction, 0), 1) * Double(width)).rounded())
        return "[" + String(repeating: "█", count: filled) + String(repeating: "·", count: width - filled) + "]"
    }
}

/// The terminal in raw mode on the alternate screen, restored on exit.
final class RawTerminal {
    private var saved = termios()
    private var active = false

    init() {
        guard tcgetattr(STDIN_FILENO, &saved) == 0 else { return }
        var raw = saved
        cfmakeraw(&raw)
        raw.c_oflag |= tcflag_t(OPOST)
        tcsetattr(STDIN_FILENO, TCSANOW, &raw)
        active = true
        FileHandle.standardOutput.write(Data("\u{1B}[?1049h\u{1B}[?25l".utf8))
    }

    func restore() {
        guard active else { return }
        active = false
        tcsetattr(STDIN_FILENO, TCSANOW, &saved)
        FileHandle.standardOutput.write(Data("\u{1B}[?25h\u{1B}[?1049l".utf8))
    }

    deinit { restore() }
}

/// Reads key bytes from standard input on a dispatch source.
final class KeyReader: @unchecked Sendable {  // immutable after init; a dispatch source is thread-safe
    private let source: any DispatchSourceRead

    init(_ handler: @escaping @Sendable (UInt8) -> Void) {
        source = DispatchSource.makeReadSource(fileDescriptor: STDIN_FILENO, queue: DispatchQueue(label: "reveille.keys"))
        source.setEventHandler {
            var buffer = [UInt8](repeating: 0, count: 64)
            let count = read(STDIN_FILENO, &buffer, buffer.count)
            if count <= 0 { handler(4); return }
            for byte in buffer.prefix(count) { handler(byte) }
        }
        source.resume()
    }

    func stop() { source.cancel() }
}
