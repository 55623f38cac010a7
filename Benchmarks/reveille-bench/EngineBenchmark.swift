import AlarmCore
import AlarmModel
import Foundation
import TestSupport

/// The engine and store with 10,000 alarms: scheduling, start-up and memory.
enum EngineBenchmark {
    static let alarmCount = 10_000

    static func run() async throws {
        print("== engine and store (\(alarmCount) alarms, real SQLite store, virtual clock)")
        let directory = Fixtures.temporaryDirectory("reveille-bench")
        defer { try? FileManager.default.removeItem(at: directory) }
        let now = Fixtures.instant("2026-11-21T12:00:00Z")
        let zone = Fixtures.zone("Europe/Berlin")
        let clock = VirtualClock(now: now, timeZone: zone)

        // Scheduling: each call returns only once its alarm is committed to disk.
        let store = try AlarmStore(directory: directory)
        let engine = AlarmEngine(store: store, clock: clock)
        try await engine.start()
        var samples: [Duration] = []
        samples.reserveCapacity(alarmCount)
        let (_, total) = try await Measure.time {
            for index in 0..<alarmCount {
                let definition = definition(index, now: now)
                let (_, sample) = try await Measure.time {
                    try await engine.schedule(id: UUID(), definition: definition, caller: .app("bench.app\(index % 10)"))
                }
                samples.append(sample)
            }
        }
        await engine.shutdown()
        Measure.report("schedule, per alarm (mean)", Measure.format(total / alarmCount))
        Measure.report(
            "schedule, per alarm (p50 / p99)",
            "\(Measure.format(Measure.percentile(samples, 0.5))) / \(Measure.format(Measure.percentile(samples, 0.99)))")

        // Start-up: a new store and engine over the 10,000 stored alarms, until armed.
        var startups: [Duration] = []
        var residentDelta = 0
        for round in 0..<5 {
            let before = Measure.residentBytes()
            let (engine, startup) = try await Measure.time {
                let engine = AlarmEngine(store: try AlarmStore(directory: directory), clock: clock)
                try await engine.start()
                return engine
            }
            startups.append(startup)
            let count = await engine.count
            precondition(count == alarmCount, "start-up loaded \(count) alarms")
            if round == 0 { residentDelta = Measure.residentBytes() - before }
            await engine.shutdown()
        }
        let (_, load) = try await Measure.time { try AlarmStore(directory: directory).loadAlarms() }
        Measure.report("  of which: open the store and read the alarms", Measure.format(load))
        Measure.report(
            "start-up with \(alarmCount) stored alarms (median of 5)", Measure.format(Measure.percentile(startups, 0.5)), target: "< 300 ms"
        )
        Measure.report("memory: resident growth for \(alarmCount) alarms", Measure.mebibytes(residentDelta))
        Measure.report("memory: process resident size after", Measure.mebibytes(Measure.residentBytes()))
    }

    /// A mix of weekly clock-time alarms, one-time instants and timers.
    static func definition(_ index: Int, now: Date) -> AlarmDefinition {
        switch index % 3 {
        case 0:
            let days = Locale.Weekday.sundayFirst.enumerated().filter { ($0.offset + index) % 2 == 0 }.map(\.element)
            return Fixtures.definition(Fixtures.clockTime(index % 24, index % 60, on: days), snooze: 540, title: "Alarm \(index)")
        case 1:
            return Fixtures.definition(.fixed(now.addingTimeInterval(Double(3_600 + index * 60))), title: "Meeting \(index)")
        default:
            return Fixtures.timer(Double(600 + index), snooze: 300, title: "Timer \(index)")
        }
    }
}
