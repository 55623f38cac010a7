import AlarmModel
import AlarmRecords
import AlarmDesktop
import Foundation
import Glibc

/// The probe's program; kept out of `main.swift` so nothing here is main-actor isolated.
enum ProbeMain {
    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// Both clocks now; the boot clock through `clock_gettime(CLOCK_BOOTTIME)`.
    static func reading() -> ClockReading {
        var spec = timespec()
        clock_gettime(CLOCK_BOOTTIME, &spec)
        return ClockReading(
            now: Date(), uptime: .seconds(spec.tv_sec) + .nanoseconds(spec.tv_nsec), bootID: "probe",
            timeZone: .current)
    }

    static func definition(title: String, secondary: String, timer: Bool) -> AlarmDefinition {
        let alert: AlarmPresentation.Alert
        switch secondary {
        case "snooze":
            alert = .init(title: .init(title), stopButton: .stopButton, secondaryButton: .snoozeButton, secondaryButtonBehavior: .countdown)
        case "repeat":
            alert = .init(title: .init(title), stopButton: .stopButton, secondaryButton: .repeatButton, secondaryButtonBehavior: .countdown)
        case "open":
            alert = .init(title: .init(title), stopButton: .stopButton, secondaryButton: .openAppButton, secondaryButtonBehavior: .custom)
        default:
            alert = .init(title: .init(title))
        }
        return AlarmDefinition(
            schedule: timer ? nil : .fixed(Date()), countdownDuration: .init(preAlert: 60, postAlert: 300),
            presentation: AlarmPresentation(
                alert: alert, countdown: .init(title: "Counting down", pauseButton: .pauseButton),
                paused: .init(title: "Paused", resumeButton: .resumeButton)))
    }

    /// Reads the commands of `main.swift`'s list; `countdown` and `paused` take the alarm's tint
    /// (`#rrggbb`) as an optional last field.
    static func run() {
        guard CommandLine.arguments.count == 2 else {
            FileHandle.standardError.write(Data("usage: reveille-notify-probe COMMAND-FIFO\n".utf8))
            exit(64)
        }
        let presenter = NotificationPresenter(clock: reading) { id, response in
            say("action\t\(id.uuidString)\t\(response.rawValue)")
        }
        guard let input = fopen(CommandLine.arguments[1], "r") else {
            FileHandle.standardError.write(Data("cannot open \(CommandLine.arguments[1])\n".utf8))
            exit(66)
        }
        say("ready")
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        while getline(&line, &capacity, input) > 0 {
            let text = String(cString: line!).trimmingCharacters(in: .newlines)
            let fields = text.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard let command = fields.first else { continue }
            let id = fields.count > 1 ? UUID(text: fields[1]) : nil
            switch (command, id) {
            case ("alert", let id?) where fields.count >= 4:
                let now = Date()
                let record = AlarmRecord(
                    id: id, owner: "probe",
                    definition: definition(title: fields[2], secondary: fields[3], timer: fields.count > 4 && fields[4] == "timer"),
                    phase: .alerting(.init(scheduledAt: now, startedAt: now, timesOutAt: nil)), anchor: now)
                presenter.perform(.alert(record))
            case ("countdown", let id?) where fields.count >= 5, ("paused", let id?) where fields.count >= 5:
                let left = TimeInterval(fields[3]) ?? 0
                let duration = TimeInterval(fields[4]) ?? left
                let phase: AlarmRecord.Phase =
                    command == "paused"
                    ? .paused(.init(kind: .preAlert, remaining: left, duration: duration))
                    : .countdown(.init(kind: .preAlert, endsAt: reading().elapsedDeadline(after: left), duration: duration))
                // An optional sixth field is the alarm's tint, `#rrggbb`.
                var countdownDefinition = definition(title: fields[2], secondary: "snooze", timer: true)
                if fields.count > 5, let tint = Color(hex: fields[5]) { countdownDefinition.tintColor = tint }
                let record = AlarmRecord(id: id, owner: "probe", definition: countdownDefinition, phase: phase, anchor: Date())
                presenter.perform(.countdown(record))
            case ("endAlert", let id?):
                presenter.perform(.endAlert(id, .stopped))
            case ("endCountdown", let id?):
                presenter.perform(.endCountdown(id))
            case ("missed", let id?) where fields.count >= 4:
                let record = AlarmRecord(
                    id: id, owner: "probe", definition: definition(title: fields[2], secondary: "none", timer: false),
                    phase: .scheduled(alertAt: Date()), anchor: Date())
                presenter.perform(.missed(record, count: Int(fields[3]) ?? 1))
            case ("flush", _):
                let done = DispatchSemaphore(value: 0)
                Task {
                    await presenter.flush()
                    done.signal()
                }
                done.wait()
                say("flushed")
            case ("quit", _):
                presenter.shutDown()
                say("bye")
                exit(0)
            default:
                FileHandle.standardError.write(Data("bad command: \(text)\n".utf8))
            }
        }
        presenter.shutDown()
    }
}
