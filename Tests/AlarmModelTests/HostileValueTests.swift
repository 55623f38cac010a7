import AlarmModel
import Foundation
import Testing
import TestRequirements
import TestSupport

/// Values an app may send that no person would type: colours written with look-alike digits,
/// NaN and infinite durations, instants at the ends of time. The model refuses them with a typed
/// error naming the field, and never traps.
@Suite("Model: hostile values", .onItsOwnThread)
struct HostileValueTests {
    @Test(
        "Color(hex:) reads only ASCII hex digits",
        arguments: [
            ("#000000", true), ("#ffffff", true), ("#FFFFFF", true), ("#12345678", true), ("#aBcDeF", true),
            ("#００００００", false), ("#ａｂｃｄｅｆ", false), ("#٠١٢٣٤٥", false), ("#¹²³⁴⁵⁶", false), ("#0000000", false),
            ("#fff", false), ("000000", false), ("#gggggg", false), ("#e\u{301}0000", false), ("", false), ("#", false),
        ])
    func hexColors(text: String, valid: Bool) {
        let color = Color(hex: text)
        #expect((color != nil) == valid, "\(text.debugDescription)")
        if let color {
            #expect(
                color.description.lowercased()
                    == (text.count == 9 && text.lowercased().hasSuffix("ff") ? String(text.prefix(7)) : text).lowercased())
        }
    }

    @Test("Color(hex:) never traps, whatever the text, and what it reads it writes back the same")
    func anyColorText() {
        let seed = SeededGenerator.seedFromEnvironment()
        print("HostileValueTests.anyColorText: seed \(seed)")
        var rng = SeededGenerator(seed: seed)
        let pools: [[Character]] = [
            Array("0123456789abcdefABCDEF"), Array("０１２３４５６７８９ａｆＡＦ"), Array("٠١٢٣٤٥٦٧٨٩"), Array("#xg \u{301}🙂"),
        ]
        for _ in 0..<20_000 {
            var text = rng.chance(0.9) ? "#" : ""
            for _ in 0..<rng.pick([5, 6, 6, 7, 8, 8, 9]) { text.append(rng.pick(rng.chance(0.7) ? pools[0] : rng.pick(pools))) }
            guard let color = Color(hex: text) else { continue }
            #expect(text.utf8.count == 7 || text.utf8.count == 9, "seed \(seed): \(text.debugDescription)")
            #expect(Color(hex: color.description) == color, "seed \(seed): \(text.debugDescription)")
        }
    }

    @Test("a colour with NaN or infinite components still writes itself as #rrggbb")
    func nonFiniteComponents() {
        #expect(Color(red: .nan, green: .infinity, blue: -.infinity).description == "#00ff00")
        #expect(Color(red: 0, green: 0, blue: 0, opacity: .nan).description == "#000000")
    }

    static let now = Fixtures.instant("2026-06-01T12:00:00Z")

    static let unusableDurations: [Double] = [
        .nan, -.nan, .infinity, -.infinity, 0, -0.0, -1, -.greatestFiniteMagnitude, 366 * 86_400 + 0.001, .greatestFiniteMagnitude,
    ]
    static let unusableInstants: [Double] = [
        .nan, .infinity, -.infinity, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, 0, -1e12, 1e12,
    ]

    @Test("NaN, infinite, zero, negative and over-long countdowns are refused, naming the field", arguments: unusableDurations)
    func badDurations(seconds: Double) {
        let timer = Fixtures.timer(seconds)
        #expect(throws: AlarmRequestError.self) { try timer.validate(now: Self.now) }
        do {
            try timer.validate(now: Self.now)
        } catch {
            #expect(error.description.contains("countdownDuration.preAlert"), "\(error)")
        }
        let snooze = Fixtures.timer(60, snooze: seconds)
        do {
            try snooze.validate(now: Self.now)
            Issue.record("a snooze of \(seconds) s was accepted")
        } catch {
            #expect(error.description.contains("countdownDuration.postAlert"), "\(error)")
        }
    }

    @Test("instants that are not finite, have passed, or lie over a hundred years ahead are refused", arguments: unusableInstants)
    func badInstants(secondsSince1970: Double) {
        let alarm = Fixtures.definition(.fixed(Date(timeIntervalSince1970: secondsSince1970)))
        do {
            try alarm.validate(now: Self.now)
            Issue.record("the instant \(secondsSince1970) was accepted")
        } catch {
            #expect(error.description.contains("schedule.fixed"), "\(error)")
        }
    }

    @Test(
        "clock times out of range are refused, whatever the integer",
        arguments: [(Int.min, 0), (-1, 0), (24, 0), (1_000, 0), (Int.max, 0), (7, Int.min), (7, -1), (7, 60), (7, Int.max)])
    func badClockTimes(hour: Int, minute: Int) {
        do {
            try Fixtures.definition(Fixtures.clockTime(hour, minute)).validate(now: Self.now)
            Issue.record("\(hour):\(minute) was accepted")
        } catch {
            #expect(error.description.contains(hour == 7 ? "schedule.minute" : "schedule.hour"), "\(error)")
        }
    }
}
