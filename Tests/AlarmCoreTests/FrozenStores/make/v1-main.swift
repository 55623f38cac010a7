// Makes a v1 alarm store with 8cef044's own engine and store (no agent existed at v1): OUT-FOLDER.
import AlarmCore
import Foundation
import TestSupport

let out = URL(fileURLWithPath: CommandLine.arguments[1])
try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
let zone = TimeZone(identifier: "Europe/Berlin")!
let start = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
let harness = try await EngineHarness.start(
    now: start, timeZone: zone, policy: AlarmPolicy(graceWindow: 600, ringTimeout: 600), directory: out)
let engine = harness.engine, clock = harness.clock
let app = AlarmCaller.app("/usr/bin/python3.11")
func schedule(_ definition: AlarmDefinition, id: UUID = UUID(), as caller: AlarmCaller = .user) async throws -> UUID {
    _ = try await engine.schedule(id: id, definition: definition, caller: caller)
    await clock.settled()
    return id
}
let weekdays: [Locale.Weekday] = [.monday, .tuesday, .wednesday, .thursday, .friday]
_ = try await schedule(
    Fixtures.definition(Fixtures.clockTime(6, 45, on: [.saturday]), snooze: 300, title: "App alarm"),
    id: UUID(uuidString: "6e0b6d2a-6d4f-4a55-8b0e-2a1c0c7d9e01")!, as: app)
_ = try await schedule(Fixtures.definition(Fixtures.clockTime(7, 30, on: weekdays), snooze: 540, title: "Weekday wake"))
_ = try await schedule(Fixtures.definition(.fixed(Fixtures.instant("2031-03-04T04:06:00Z")), title: "Fixed far"))
_ = try await schedule(Fixtures.definition(Fixtures.clockTime(8, 15), preAlert: 600, title: "Pre-alert"))
_ = try await schedule(Fixtures.timer(3 * 3600, title: "Long timer"))
let paused = try await schedule(Fixtures.timer(2 * 3600, title: "Paused timer"))
try await engine.pause(id: paused, caller: .user)
let stopped = try await schedule(Fixtures.timer(1, title: "Stopped"))
await clock.advance(by: 1)
try await engine.stop(id: stopped, caller: .user)
let snoozed = try await schedule(Fixtures.timer(1, snooze: 1800, title: "Snoozed"))
await clock.advance(by: 1)
try await engine.countdown(id: snoozed, caller: .user)
_ = try await schedule(Fixtures.timer(1, title: "Timed out"))
await clock.advance(by: 601)
let cancelled = try await schedule(Fixtures.timer(1, title: "Cancelled ringing"))
await clock.advance(by: 1)
try await engine.cancel(id: cancelled, caller: .user)
_ = try await schedule(Fixtures.definition(.fixed(clock.now.addingTimeInterval(300)), title: "Missed"))
// Asleep for 1,000 s: the instant passed 700 s before the resume, beyond the 600 s grace window.
clock.suspend(for: 1_000)
await engine.resumedFromSuspend()
await clock.settled()
_ = try await schedule(Fixtures.timer(1, title: "Ringing"))
await clock.advance(by: 1)
let reading = clock.read()
let records = await engine.alarms(visibleTo: .user)
try AlarmDescription.json(records.map { AlarmDescription($0, at: reading) }).write(
    to: out.appendingPathComponent("list.json"), atomically: true, encoding: .utf8)
let encoder = JSONEncoder()
encoder.dateEncodingStrategy = .iso8601
encoder.outputFormatting = [.sortedKeys]
try encoder.encode(try await engine.history()).write(to: out.appendingPathComponent("history.json"))
await engine.shutdown()
print("made \(out.path) at virtual \(clock.now)")
