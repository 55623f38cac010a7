import AlarmRecords
import AlarmKit
import AlarmProtocol
import CommandLineText
import ArgumentParser
import Dispatch
import FoundationEssentials
import LinuxSystem
import Localization

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
            s stop, z snooze, 1-5 snooze for the agent's --snooze-choices, p pause, r resume, c cancel, \
            x skip the next alert (again: undo), o turn \
            off (again: on), q quit. This is also how to control alarms \
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
            // Bad usage is reported before anything else happens (such as starting the agent).
            guard json || (FileDescriptor.standardInput.isTerminal && FileDescriptor.standardOutput.isTerminal) else {
                throw CLIFailure.usage("watch needs a terminal; use reveille watch --json in scripts")
            }
            let session = try await AgentSession.open()
            try await session.startAgentIfNeeded()
            if json {
                for await alarms in session.client.updates() {
                    let reading = ClockReading.local()
                    let descriptions = alarms.map { AlarmDescription($0.record(at: reading), at: reading) }
                        .sorted { $0.id < $1.id }
                    FileDescriptor.standardOutput.write(AlarmDescription.json(descriptions) + "\n")
                }
                return
            }
            if let signal = await LiveView(session: session).run() {
                // Ended by a signal: the terminal is restored; exit as the signal would have.
                throw ExitCode(128 + signal)
            }
        }
    }
}

/// The live terminal view of `reveille watch`.
///
/// Everything happens in ``run()``, one event at a time: a new list of alarms from the agent, bytes
/// typed, a signal, or a redraw when a time shown changes by itself. Countdowns are anchored to the
/// moment their list arrived, so they tick down between the agent's updates; the view redraws each
/// second while a countdown runs (or an alert is less than an hour away, shown to the second), and
/// not at all while nothing shown changes.
final class LiveView {
    /// What the view reacts to.
    enum Event: Sendable {
        /// The agent's alarms, and the clocks when they arrived (countdowns are anchored there).
        case alarms([AlarmWire.RemoteAlarm], received: ClockReading)
        /// Bytes read from the terminal.
        case input([UInt8])
        /// Standard input ended or failed.
        case endOfInput
        /// The time a countdown or an alarm shows has changed.
        case redraw
        /// A signal arrived.
        case signal(Int32)
        /// The agent's updates ended: the bus connection is gone.
        case agentGone
    }

    /// An alarm as shown: the agent's description and its record, anchored when it arrived.
    struct Row {
        var remote: AlarmWire.RemoteAlarm
        var record: AlarmRecord

        var id: UUID { remote.alarm.id }
        var isRinging: Bool { remote.alarm.state == .alerting }
    }

    /// The signals that end the view, after restoring the terminal.
    static let endingSignals = [SIGTERM, SIGHUP, SIGINT, SIGQUIT]

    private let session: AgentSession
    /// The alarms in the order shown: ringing first, then running countdowns, scheduled, paused.
    private var rows: [Row] = []
    /// Whether the agent's first list has arrived.
    private var loaded = false
    /// The alarm the action keys act on.
    private var selected: UUID?
    /// The index of the first row shown, when not all fit.
    private var firstShown = 0
    /// The last result of an action, or why the view stopped updating.
    private var message = ""
    /// What was last written, so an unchanged screen is not written again.
    private var lastFrame = ""
    /// The snooze lengths (seconds) the agent offers (`reveilled --snooze-choices`), read once when
    /// the view opens: keys 1 to 5 snooze for them.
    private var snoozeChoices: [Int] = []
    /// How the person reads times, read once when the view opens.
    private let timeStyle = DesktopTimeStyle.current()
    /// How the terminal takes colour for each alarm's tint (`nil`: none, as with `NO_COLOR`).
    private let color = TerminalColor.detect(
        isTerminal: FileDescriptor.standardOutput.isTerminal, environment: ProcessInfo.processInfo.environment)
    /// `NO_COLOR` is set: no colour at all (a ringing row stays bold and inverse, the message plain).
    private let noColor = !(ProcessInfo.processInfo.environment["NO_COLOR"] ?? "").isEmpty

    init(session: AgentSession) { self.session = session }

    /// Runs the view until the person quits (`nil`) or a terminating signal arrives (its number);
    /// the terminal is restored either way.
    func run() async -> Int32? {
        let (events, continuation) = AsyncStream.makeStream(of: Event.self)
        // Signals first and put back last, so that none ends the program with the terminal raw.
        let signals = SignalEvents(Self.endingSignals + [SIGWINCH, SIGCONT]) { continuation.yield(.signal($0)) }
        defer { signals.stop() }
        let terminal = RawTerminal()
        defer { terminal.restore() }
        // An agent without the property (older) offers none.
        snoozeChoices = (try? await session.client.property("SnoozeChoices").arrayValue?.compactMap { $0.integerValue.map(Int.init) }) ?? []
        let updates = session.client.updates()
        let feed = Task {
            for await list in updates { continuation.yield(.alarms(list, received: .local())) }
            continuation.yield(.agentGone)
        }
        let keys = KeyReader { continuation.yield($0) }
        var redraw: Task<Void, Never>?
        defer {
            feed.cancel()
            redraw?.cancel()
            keys.stop()
        }
        draw()
        for await event in events {
            switch event {
            case .alarms(let list, let received):
                update(list, received: received)
            case .input(let bytes):
                for key in Key.decode(bytes) {
                    if await handle(key) == false { return nil }
                }
            case .endOfInput:
                return nil
            case .redraw:
                break
            case .signal(SIGWINCH):
                lastFrame = ""
            case .signal(SIGCONT):
                // Stopped and continued: the shell may have changed the terminal in between.
                terminal.enter()
                lastFrame = ""
            case .signal(let number):
                return number
            case .agentGone:
                message = "the agent went away; no more updates"
            }
            redraw?.cancel()
            redraw = draw().map { delay in
                Task {
                    try? await Task.sleep(for: delay)
                    if !Task.isCancelled { continuation.yield(.redraw) }
                }
            }
        }
        return nil
    }

    // MARK: Alarms and keys

    /// Takes a new list of alarms; an alarm that starts ringing is selected, so `s` or `z` acts on it.
    private func update(_ list: [AlarmWire.RemoteAlarm], received: ClockReading) {
        let wasRinging = Set(rows.filter(\.isRinging).map(\.id))
        rows = list.map { Row(remote: $0, record: $0.record(at: received)) }.sorted(by: Self.showsBefore)
        loaded = true
        if let ringing = rows.first(where: { $0.isRinging && !wasRinging.contains($0.id) }) {
            selected = ringing.id
        } else if !rows.contains(where: { $0.id == selected }) {
            selected = rows.first?.id
        }
    }

    /// The order rows are shown in: ringing, running, scheduled, paused; then by next alert.
    static func showsBefore(_ first: Row, _ second: Row) -> Bool {
        func rank(_ row: Row) -> Int {
            switch row.remote.alarm.state {
            case .alerting: 0
            case .countdown: 1
            case .scheduled: 2
            case .paused: 3
            }
        }
        let left = (rank(first), first.remote.fireDate ?? .distantFuture)
        let right = (rank(second), second.remote.fireDate ?? .distantFuture)
        if left != right { return left < right }
        return first.id.uuidString < second.id.uuidString
    }

    /// Handles a key; returns false to quit.
    private func handle(_ key: Key) async -> Bool {
        let index = rows.firstIndex { $0.id == selected }
        switch key {
        case .character(UInt8(ascii: "q")), .character(3), .character(4):  // q, Ctrl-C, Ctrl-D
            return false
        case .down, .character(UInt8(ascii: "j")):
            if let index, index + 1 < rows.count { selected = rows[index + 1].id }
        case .up, .character(UInt8(ascii: "k")):
            if let index, index > 0 { selected = rows[index - 1].id }
        case .character(let digit) where (UInt8(ascii: "1")...UInt8(ascii: "5")).contains(digit):
            let choice = Int(digit - UInt8(ascii: "1"))
            guard let index, choice < snoozeChoices.count else { break }
            let (id, seconds) = (rows[index].id, TimeInterval(snoozeChoices[choice]))
            await request { try await $0.snooze(id: id, for: seconds) }
        case .character(let letter):
            guard let action = Action(rawValue: letter), let index else { break }
            let alarm = rows[index].remote
            await request { try await action.perform(on: alarm, with: $0) }
        }
        return true
    }

    /// Makes a request of the agent; the message line says why it was refused, or is cleared.
    private func request(_ body: (AgentClient) async throws -> Void) async {
        do {
            try await body(session.client)
            message = ""
        } catch let error as AgentClientError {
            message = error.message
        } catch {
            message = "\(error)"
        }
    }

    /// What the action keys do to the selected alarm.
    enum Action: UInt8 {
        case stop = 0x73  // s
        case snooze = 0x7A  // z
        case pause = 0x70  // p
        case resume = 0x72  // r
        case cancel = 0x63  // c
        case skip = 0x78  // x: skip the next alert, or undo the skip
        case onOff = 0x6F  // o: turn off, or on again

        /// Asks the agent to do it to `alarm`.
        func perform(on alarm: AlarmWire.RemoteAlarm, with client: AgentClient) async throws {
            let id = alarm.id
            switch self {
            case .stop: try await client.stop(id: id)
            case .snooze: try await client.countdown(id: id)
            case .pause: try await client.pause(id: id)
            case .resume: try await client.resume(id: id)
            case .cancel: try await client.cancel(id: id)
            case .skip:
                if alarm.skippedAlert != nil { try await client.unskip(id: id) } else { try await client.skip(id: id) }
            case .onOff: try await client.setEnabled(!alarm.definition.isEnabled, id: id)
            }
        }
    }

    // MARK: Drawing

    /// One line of the screen: its text with escape sequences, and the columns it takes.
    struct Line {
        var text: String
        var columns: Int

        /// `plain` cut to `width` columns, then wrapped in `style` (an SGR parameter list such as
        /// `1;7;31`); with `filling`, padded with spaces to the whole width (a band of colour).
        /// Control characters in `plain` (a title's line break or escape sequence) become spaces, so
        /// that what an app wrote in a title cannot move the cursor or restyle the terminal.
        /// With `tint`, the characters at offsets `tinted` (those that fit) are drawn in it, an
        /// alarm's tint colour, and `style` goes on after them.
        init(
            _ plain: String, width: Int, style: String? = nil, filling: Bool = false,
            tint: (color: TerminalColor, tint: Color)? = nil, tinted: Range<Int> = 0..<0
        ) {
            let inert = String(
                String.UnicodeScalarView(
                    plain.unicodeScalars.map {
                        $0.properties.generalCategory == .control ? " " : $0
                    }))
            var fitted = DisplayWidth.truncated(inert, toWidth: width)
            var columns = DisplayWidth.of(fitted)
            if filling, columns < width {
                fitted += String(repeating: " ", count: width - columns)
                columns = width
            }
            var body = fitted
            if let (color, tint) = tint, !tinted.isEmpty, tinted.lowerBound < fitted.count {
                let head = String(fitted.prefix(tinted.lowerBound))
                let middle = String(fitted.dropFirst(tinted.lowerBound).prefix(tinted.count))
                let rest = String(fitted.dropFirst(tinted.upperBound))
                body = head + color.painting(middle, in: tint) + (style.map { "\u{1B}[\($0)m" } ?? "") + rest
            }
            text = style.map { "\u{1B}[\($0)m" + body + "\u{1B}[0m" } ?? body
            self.columns = columns
        }
    }

    /// Draws the screen; returns how long until what it shows changes by itself (the time of a
    /// countdown or of an alarm's next alert), or `nil` when nothing does.
    @discardableResult
    private func draw() -> Duration? {
        let reading = ClockReading.local()
        let width = Terminal.width() ?? 80
        let height = Terminal.height()
        var lines = [header(width: width), Line("", width: width)]
        let messageLines = message.isEmpty ? 0 : 2
        let room = max(1, height - lines.count - messageLines)
        if !loaded {
            lines.append(Line("  Connecting to the agent…", width: width))
        } else if rows.isEmpty {
            lines.append(Line("  No alarms.", width: width))
        } else {
            let index = rows.firstIndex { $0.id == selected } ?? 0
            firstShown = min(max(firstShown, index - room + 1, 0), index, max(0, rows.count - room))
            for row in rows[firstShown..<min(rows.count, firstShown + room)] {
                lines.append(line(for: row, at: reading, width: width))
            }
        }
        if !message.isEmpty {
            lines.append(Line("", width: width))
            lines.append(Line(message, width: width, style: noColor ? nil : "33"))
        }
        write(lines.prefix(height), width: width, height: height)
        return nextChange(at: reading)
    }

    private func header(width: Int) -> Line {
        let count = loaded ? "\(rows.count) alarm\(rows.count == 1 ? "" : "s")   " : ""
        let choices = snoozeChoices.prefix(5).enumerated().map { "\($0.offset + 1) \(DurationFormat.units(TimeInterval($0.element)))" }
        let snoozing = choices.isEmpty ? "" : "  " + choices.joined(separator: " ")
        let plain = "Reveille  \(count)↑↓ select  s stop  z snooze\(snoozing)  p pause  r resume  c cancel  x skip  o off/on  q quit"
        var line = Line(plain, width: width)
        let name = "Reveille"
        if line.text.hasPrefix(name) { line.text = "\u{1B}[1m\(name)\u{1B}[0m" + line.text.dropFirst(name.count) }
        return line
    }

    /// One alarm's row: the marker of the selected row and the id, in the alarm's tint where the
    /// terminal shows colour, then what it is doing and its title.
    private func line(for row: Row, at reading: ClockReading, width: Int) -> Line {
        let record = row.record
        let marker = row.id == selected ? "›" : " "
        let title = row.remote.definition.title.isEmpty ? "-" : row.remote.definition.title
        let id = String(row.id.lowercasedText().prefix(8))
        // "› 3f2a9c01" after the first space.
        let tint = color.map { ($0, row.remote.definition.tintColor) }
        let tinted = 1..<(3 + id.count)
        switch record.phase {
        case .alerting:
            return Line(
                " \(marker) \(id)  RINGING  \(title)", width: width, style: noColor ? "1;7" : "1;7;31", filling: true, tint: tint,
                tinted: tinted)
        case .countdown, .paused:
            let remaining = record.remaining(from: reading) ?? 0
            let total = row.remote.countdownTotal ?? max(remaining, 1)
            let bar = Self.bar(done: 1 - remaining / max(total, 1), width: 20)
            let state = row.remote.alarm.state == .paused ? "paused " : "running"
            return Line(
                " \(marker) \(id)  \(state)  \(bar) \(DurationFormat.clock(remaining))  \(title)", width: width,
                tint: tint, tinted: tinted)
        case .scheduled where !record.definition.isEnabled:
            return Line(" \(marker) \(id)  off  \(title)", width: width, style: noColor ? nil : "2", tint: tint, tinted: tinted)
        case .scheduled(let alertAt):
            var next =
                LocalTimeFormat.string(for: alertAt, at: reading, style: timeStyle) + " ("
                + RelativeTimeFormat.string(for: alertAt, relativeTo: reading.now) + ")"
            if let skipped = record.pendingSkip(at: reading.now) {
                next += ", skips " + LocalTimeFormat.string(for: skipped, at: reading, style: timeStyle)
            }
            return Line(" \(marker) \(id)  \(next)  \(title)", width: width, tint: tint, tinted: tinted)
        }
    }

    /// Writes the lines from the top of the screen, each erased to its end, and erases the rest.
    /// Each line is placed by cursor position and nothing follows the last one, so the screen never
    /// scrolls, and nothing is cleared before it is drawn again, so nothing flickers.
    private func write(_ lines: ArraySlice<Line>, width: Int, height: Int) {
        var frame = ""
        for (number, line) in zip(1..., lines) {
            frame += "\u{1B}[\(number);1H" + line.text
            // A full line leaves the cursor on its last column, which "erase to end" would erase.
            if line.columns < width { frame += "\u{1B}[K" }
        }
        if lines.count < height { frame += "\u{1B}[\(lines.count + 1);1H\u{1B}[J" }
        guard frame != lastFrame else { return }
        lastFrame = frame
        FileDescriptor.standardOutput.write(frame)
    }

    /// How long until the text shown changes by itself: a countdown's clock (whole seconds, rounded
    /// up), or the distance to a scheduled alert (`in 5m 30s`, `in 2h 5m`, `in 1d 2h`) and its day.
    private func nextChange(at reading: ClockReading) -> Duration? {
        var soonest: TimeInterval?
        func consider(_ delay: TimeInterval) { soonest = min(soonest ?? delay, delay) }
        var anyScheduled = false
        for row in rows {
            switch row.record.phase {
            case .countdown:
                // The clock shows 00:00:05 from 5 s down to just above 4 s.
                if let remaining = row.record.remaining(from: reading), remaining > 0 {
                    consider(remaining - (remaining.rounded(.up) - 1))
                }
            case .scheduled(let alertAt):
                anyScheduled = true
                let interval = alertAt.timeIntervalSince(reading.now)
                guard interval > 0 else { continue }
                // The text shows two units, the smallest being seconds, minutes or hours; it
                // changes when the whole seconds left fall below a multiple of that unit.
                let whole = interval.rounded(.up)
                let unit: TimeInterval = whole >= 86_400 ? 3_600 : whole >= 3_600 ? 60 : 1
                consider(interval - ((whole / unit).rounded(.down) * unit - 1))
            case .paused, .alerting:
                break
            }
        }
        if anyScheduled {
            // Day names (today, tomorrow, Tue) change at midnight.
            let resolver = LocalTimeResolver(timeZone: reading.timeZone)
            let tomorrow = CivilDate(containing: reading.now, rules: resolver.rules).adding(days: 1)
            consider(resolver.resolve(localSeconds: tomorrow.localSeconds(hour: 0, minute: 0)).instant.timeIntervalSince(reading.now))
        }
        // A little after the change, so the new value is what is read.
        return soonest.map { .seconds(max($0, 0) + 0.01) }
    }

    /// A progress bar `width` cells wide, `fraction` of it filled.
    static func bar(done fraction: Double, width: Int) -> String {
        let filled = fraction.isNaN ? 0 : Int((min(max(fraction, 0), 1) * Double(width)).rounded())
        return "[" + String(repeating: "█", count: filled) + String(repeating: "·", count: width - filled) + "]"
    }
}

/// A key a person pressed, decoded from the bytes the terminal sends.
enum Key: Equatable, Sendable {
    /// ↑ (`ESC [ A`, or `ESC O A` in application cursor mode).
    case up
    /// ↓ (`ESC [ B` or `ESC O B`).
    case down
    /// An ASCII character or control byte.
    case character(UInt8)

    /// The keys in the bytes of one read. A terminal writes each key's escape sequence at once, so
    /// an `ESC` that ends a read is the Escape key alone. Escape sequences other than ↑ and ↓
    /// (other cursor keys, function keys, Alt chords) and non-ASCII text are skipped whole.
    static func decode(_ bytes: [UInt8]) -> [Key] {
        var keys: [Key] = []
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            index += 1
            if byte >= 0x80 { continue }
            guard byte == 0x1B else {
                keys.append(.character(byte))
                continue
            }
            guard index < bytes.endIndex else { break }
            let introducer = bytes[index]
            index += 1
            let final: UInt8?
            switch introducer {
            case UInt8(ascii: "["):
                // Control sequence: parameter and intermediate bytes, then one final byte.
                while index < bytes.endIndex, !(0x40...0x7E).contains(bytes[index]) { index += 1 }
                final = index < bytes.endIndex ? bytes[index] : nil
                index += 1
            case UInt8(ascii: "O"):
                final = index < bytes.endIndex ? bytes[index] : nil
                index += 1
            default:
                final = nil  // Alt and a key
            }
            switch final {
            case UInt8(ascii: "A"): keys.append(.up)
            case UInt8(ascii: "B"): keys.append(.down)
            default: break
            }
        }
        return keys
    }
}

/// The terminal in raw mode on the alternate screen with the cursor hidden, until `restore()`.
final class RawTerminal {
    /// The modes before, to restore; nil when they could not be read (not a terminal).
    private let saved: TerminalModes?
    private var active = false

    init() {
        saved = try? FileDescriptor.standardInput.terminalModes()
        enter()
    }

    /// Puts the terminal in raw mode (keys arrive one by one, unechoed, Ctrl-C as a byte; output
    /// still turns `\n` into `\r\n`) and switches to the alternate screen, cursor hidden.
    func enter() {
        guard let saved else { return }
        guard (try? FileDescriptor.standardInput.setTerminalModes(saved.raw(keepingOutputProcessing: true), .now)) != nil else {
            return
        }
        active = true
        FileDescriptor.standardOutput.write("\u{1B}[?1049h\u{1B}[?25l\u{1B}[H\u{1B}[2J")
    }

    /// Leaves the alternate screen, shows the cursor, and puts the terminal's modes back.
    func restore() {
        guard active else { return }
        active = false
        FileDescriptor.standardOutput.write("\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l")
        if let saved { try? FileDescriptor.standardInput.setTerminalModes(saved, .afterFlushingInput) }
    }

    deinit { restore() }
}

/// Reads standard input on a dispatch source, handing on each read's bytes.
final class KeyReader {
    private let source: any DispatchSourceRead

    /// Starts reading; `handler` gets `.input` for each read and `.endOfInput` once, at its end.
    init(_ handler: @escaping @Sendable (LiveView.Event) -> Void) {
        let source = DispatchSource.makeReadSource(
            fileDescriptor: FileDescriptor.standardInput.rawValue, queue: DispatchQueue(label: "reveille.keys"))
        source.setEventHandler { [source] in
            var buffer = [UInt8](repeating: 0, count: 256)
            let count = buffer.withUnsafeMutableBytes { bytes in
                Result { () throws(Errno) in try FileDescriptor.standardInput.read(into: bytes) }
            }
            switch count {
            case .success(let count) where count > 0:
                handler(.input(Array(buffer.prefix(count))))
            case .failure(.wouldBlock):
                break
            default:
                // At its end the descriptor stays readable: stop watching it.
                source.cancel()
                handler(.endOfInput)
            }
        }
        source.resume()
        self.source = source
    }

    /// Stops reading.
    func stop() { source.cancel() }
}

/// Signals delivered as events by dispatch signal sources; their default actions are ignored until
/// `stop()` puts them back.
final class SignalEvents {
    private let numbers: [Int32]
    private let sources: [any DispatchSourceSignal]

    /// Starts delivering the signals `numbers` to `handler`, on a queue of its own.
    init(_ numbers: [Int32], handler: @escaping @Sendable (Int32) -> Void) {
        let queue = DispatchQueue(label: "reveille.signals")
        self.numbers = numbers
        sources = numbers.map { number in
            SignalDisposition.ignore.apply(to: number)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { handler(number) }
            source.resume()
            return source
        }
    }

    /// Stops delivering them and puts their default actions back.
    func stop() {
        sources.forEach { $0.cancel() }
        numbers.forEach { SignalDisposition.default.apply(to: $0) }
    }
}
