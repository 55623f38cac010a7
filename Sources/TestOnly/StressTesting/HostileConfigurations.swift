import DBus
import Foundation
import TestSupport

/// Configurations for `Schedule` (`a{sv}`): valid ones, and valid-but-hostile ones built from them
/// — values of the right type that are NaN, infinite, negative, huge or a mebibyte long; values of
/// the wrong type; values wrapped in deep variants; unknown, missing and repeated keys; invalid
/// colours (fullwidth digits), day names, intents and app ids.
package enum HostileConfigurations {
    /// An `a{sv}` from its entries in order (a key may repeat, as a hostile caller may send it).
    package static func dictionary(_ entries: [(String, DBusValue)]) -> DBusValue {
        .array(elementSignature: "{sv}", entries.map { .dictEntry(.string($0.0), .variant($0.1)) })
    }

    /// A configuration the agent must accept (when it is not at its limit), as entries:
    /// timers (some short enough to ring during a run), alarms at an instant and weekly alarms.
    package static func validEntries(now: Date, using rng: inout some RandomNumberGenerator) -> [(String, DBusValue)] {
        var entries: [(String, DBusValue)] = []
        let snoozes = rng.chance(0.5)
        switch Int.random(in: 0..<3, using: &rng) {
        case 0:
            let preAlert = rng.chance(0.3) ? Double.random(in: 0.2...3, using: &rng) : Double.random(in: 60...86_400, using: &rng)
            var countdown: [String: DBusValue] = ["preAlert": .double(preAlert)]
            if snoozes { countdown["postAlert"] = .double(Double.random(in: 1...600, using: &rng)) }
            entries.append(("countdown", .dictionary(countdown)))
        case 1:
            let fixed = now.timeIntervalSince1970 + Double.random(in: 3_600...(30 * 86_400), using: &rng)
            entries.append(("schedule", .dictionary(["fixed": .double(fixed)])))
        default:
            var schedule: [String: DBusValue] = [
                "hour": .int32(Int32.random(in: 0...23, using: &rng)), "minute": .int32(Int32.random(in: 0...59, using: &rng)),
            ]
            if rng.chance(0.5) {
                let days = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
                schedule["weekdays"] = .strings((0..<Int.random(in: 1...7, using: &rng)).map { _ in rng.pick(days) })
            }
            entries.append(("schedule", .dictionary(schedule)))
        }
        if snoozes, entries[0].0 == "schedule" {
            entries.append(("countdown", .dictionary(["postAlert": .double(Double.random(in: 60...900, using: &rng))])))
        }
        if rng.chance(0.7) {
            entries.append(
                (
                    "title",
                    .string(
                        rng.chance(0.5)
                            ? "Fuzz \(Int.random(in: 0...9_999, using: &rng))"
                            : HostileText.scalars(count: Int.random(in: 0...60, using: &rng), using: &rng))
                ))
        }
        if rng.chance(0.2) { entries.append(("tintColor", .string(String(format: "#%06x", Int.random(in: 0...0xFFFFFF, using: &rng))))) }
        if rng.chance(0.2) {
            entries.append(
                (
                    "metadata",
                    .array(
                        elementSignature: "y",
                        (0..<Int.random(in: 0...512, using: &rng)).map { _ in .byte(UInt8.random(in: 0...255, using: &rng)) })
                ))
        }
        if rng.chance(0.1) { entries.append(("sound", .string(rng.pick(["default", "alarm-clock-elapsed", "/usr/share/sounds/x.oga"])))) }
        if rng.chance(0.1) { entries.append(("stopIntent", .string(rng.pick(["stop", "stop-it", "dismiss_all"])))) }
        return entries
    }

    /// The changes of an `Edit` call: about half valid (a title, a clock time or days, a snooze,
    /// a sound setting), the rest with a hostile value, a value of another type, an unknown key,
    /// or nothing at all.
    package static func changes(now: Date, using rng: inout some RandomNumberGenerator) -> DBusValue {
        var entries: [(String, DBusValue)] = []
        for _ in 0..<Int.random(in: 1...3, using: &rng) {
            switch Int.random(in: 0..<8, using: &rng) {
            case 0:
                entries.append(
                    ("title", .string(rng.chance(0.7) ? "Edited \(Int.random(in: 0...99, using: &rng))" : HostileText.string(using: &rng))))
            case 1:
                entries.append(
                    (
                        "time",
                        .dictionary([
                            "hour": .int32(Int32.random(in: -1...24, using: &rng)), "minute": .int32(Int32.random(in: 0...60, using: &rng)),
                        ])
                    ))
            case 2:
                entries.append(
                    ("weekdays", rng.chance(0.8) ? .strings(["monday", "friday"].filter { _ in rng.chance(0.6) }) : weekdays(using: &rng)))
            case 3:
                entries.append(("snooze", rng.chance(0.5) ? .boolean(rng.chance(0.5)) : .double(rng.pick([60, 540, 0, -1, .nan, 1e12]))))
            case 4: entries.append(("volume", rng.chance(0.8) ? .int32(Int32.random(in: -5...120, using: &rng)) : integerLike(using: &rng)))
            case 5: entries.append(("reset", .strings([rng.pick(["volume", "ramp", "ringTimeout", "loudness"])])))
            case 6:
                entries.append(
                    (
                        "schedule",
                        validEntries(now: now, using: &rng).first { $0.0 == "schedule" }?.1 ?? .dictionary(["fixed": .double(.nan)])
                    ))
            default:
                entries.append(
                    (
                        rng.pick(["preAlert", "ramp", "ringTimeout", "frobnicate", "sound", "breakthrough"]),
                        RandomDBusValues.value(using: &rng)
                    ))
            }
        }
        return dictionary(rng.chance(0.05) ? [] : entries)
    }

    /// A configuration: about a third valid, the rest hostile in one to three places.
    package static func configuration(now: Date, using rng: inout some RandomNumberGenerator) -> DBusValue {
        var entries = validEntries(now: now, using: &rng)
        if rng.chance(0.33) { return dictionary(entries) }
        for _ in 0..<Int.random(in: 1...3, using: &rng) {
            mutate(&entries, now: now, using: &rng)
        }
        return dictionary(entries)
    }

    /// The keys the agent knows, and those of its nested dictionaries.
    static let keys = [
        "title", "schedule", "countdown", "presentation", "tintColor", "metadata", "sound", "stopIntent", "secondaryIntent",
        "applicationID",
    ]

    /// Makes one hostile change.
    static func mutate(_ entries: inout [(String, DBusValue)], now: Date, using rng: inout some RandomNumberGenerator) {
        switch Int.random(in: 0..<10, using: &rng) {
        case 0:  // A hostile value of the right type for a known key.
            let key = rng.pick(keys)
            entries.removeAll { $0.0 == key }
            entries.append((key, hostileValue(for: key, now: now, using: &rng)))
        case 1:  // A value of any type.
            let key = rng.pick(keys)
            entries.removeAll { $0.0 == key }
            entries.append((key, RandomDBusValues.value(using: &rng)))
        case 2:  // A value wrapped in variants, deep.
            guard !entries.isEmpty else { return }
            let index = Int.random(in: 0..<entries.count, using: &rng)
            var value = entries[index].1
            for _ in 0..<Int.random(in: 1...62, using: &rng) { value = .variant(value) }
            entries[index].1 = value
        case 3:  // An unknown key.
            entries.append(
                (
                    rng.chance(0.5) ? HostileText.string(using: &rng, allowHuge: false) : rng.pick(["Title", "title ", "color", "id"]),
                    RandomDBusValues.value(using: &rng)
                ))
        case 4:  // A key given twice.
            guard let entry = entries.randomElement(using: &rng) else { return }
            entries.append((entry.0, rng.chance(0.5) ? entry.1 : RandomDBusValues.value(using: &rng)))
        case 5:  // A key left out.
            guard !entries.isEmpty else { return }
            entries.remove(at: Int.random(in: 0..<entries.count, using: &rng))
        case 6:  // Hostile numbers in the schedule or the countdown.
            entries.removeAll { $0.0 == "schedule" || $0.0 == "countdown" }
            entries.append(
                rng.chance(0.5)
                    ? ("schedule", hostileValue(for: "schedule", now: now, using: &rng))
                    : ("countdown", hostileValue(for: "countdown", now: now, using: &rng)))
        case 7:  // A hostile presentation or colour.
            entries.append(("presentation", hostileValue(for: "presentation", now: now, using: &rng)))
            entries.append(("tintColor", .string(color(using: &rng))))
        case 8:  // Huge text or bytes.
            let key = rng.pick(["title", "sound", "stopIntent", "applicationID", "metadata"])
            entries.removeAll { $0.0 == key }
            entries.append(
                (
                    key,
                    key == "metadata"
                        ? .array(elementSignature: "y", [DBusValue](repeating: .byte(0x41), count: rng.pick([65_536, 65_537])))
                        : .string(HostileText.huge(using: &rng))
                ))
        default:  // Nothing at all, or everything at once.
            if rng.chance(0.5) {
                entries.removeAll()
            } else {
                for key in keys { entries.append((key, hostileValue(for: key, now: now, using: &rng))) }
            }
        }
    }

    /// A hostile value of the type a key expects.
    static func hostileValue(for key: String, now: Date, using rng: inout some RandomNumberGenerator) -> DBusValue {
        switch key {
        case "schedule":
            var schedule: [(String, DBusValue)] = []
            if rng.chance(0.4) {
                let fixed: DBusValue = rng.weighted([
                    (3, .double(RandomDBusValues.double(using: &rng))),
                    (1, .double(now.timeIntervalSince1970 - Double.random(in: 3_600...1e9, using: &rng))),
                    (1, .double(now.timeIntervalSince1970 + 100 * 366 * 86_400 + rng.pick([-10.0, 10.0]) * 86_400)),
                    (1, .int64(rng.pick([.min, .max, 0, Int64(now.timeIntervalSince1970) + 86_400]))),
                    (1, .uint64(.max)),
                    (1, .string("\(now.timeIntervalSince1970 + 3_600)")),
                ])
                schedule.append(("fixed", fixed))
            }
            if rng.chance(0.7) { schedule.append(("hour", integerLike(using: &rng))) }
            if rng.chance(0.6) { schedule.append(("minute", integerLike(using: &rng))) }
            if rng.chance(0.5) { schedule.append(("weekdays", weekdays(using: &rng))) }
            if rng.chance(0.1) { schedule.append((HostileText.asciiWord(using: &rng), .int32(1))) }
            return dictionary(schedule)
        case "countdown":
            var countdown: [(String, DBusValue)] = []
            for name in ["preAlert", "postAlert"] where rng.chance(0.7) {
                countdown.append((name, rng.chance(0.8) ? .double(RandomDBusValues.double(using: &rng)) : integerLike(using: &rng)))
            }
            return dictionary(countdown)
        case "presentation":
            func button() -> DBusValue {
                var entries: [(String, DBusValue)] = []
                if rng.chance(0.8) { entries.append(("text", .string(HostileText.string(using: &rng, allowHuge: false)))) }
                if rng.chance(0.6) { entries.append(("textColor", .string(color(using: &rng)))) }
                if rng.chance(0.4) { entries.append(("systemImageName", .string(HostileText.string(using: &rng, allowHuge: false)))) }
                return dictionary(entries)
            }
            var alert: [(String, DBusValue)] = []
            if rng.chance(0.7) { alert.append(("title", .string(HostileText.string(using: &rng)))) }
            if rng.chance(0.5) { alert.append(("stopButton", button())) }
            if rng.chance(0.5) { alert.append(("secondaryButton", button())) }
            if rng.chance(0.5) {
                alert.append(("secondaryButtonBehavior", .string(rng.pick(["countdown", "custom", "Countdown", "", "snooze"]))))
            }
            var presentation: [(String, DBusValue)] = []
            if rng.chance(0.8) { presentation.append(("alert", dictionary(alert))) }
            if rng.chance(0.4) {
                presentation.append(
                    (
                        "countdown",
                        dictionary([("title", .string(HostileText.string(using: &rng, allowHuge: false))), ("pauseButton", button())])
                    ))
            }
            if rng.chance(0.4) {
                presentation.append(
                    (
                        "paused",
                        dictionary([("title", .string(HostileText.string(using: &rng, allowHuge: false))), ("resumeButton", button())])
                    ))
            }
            return dictionary(presentation)
        case "tintColor":
            return .string(color(using: &rng))
        case "metadata":
            return .array(
                elementSignature: "y",
                (0..<rng.pick([0, 1, 100, 65_536, 65_537])).map { _ in .byte(UInt8.random(in: 0...255, using: &rng)) })
        default:
            return .string(HostileText.string(using: &rng))
        }
    }

    /// An integer of any D-Bus integer type (or a double), edge values often.
    static func integerLike(using rng: inout some RandomNumberGenerator) -> DBusValue {
        rng.weighted([
            (3, .int32(RandomDBusValues.integer(using: &rng))),
            (1, .int64(rng.pick([.min, .max, -1, 24, 60]))),
            (1, .uint64(rng.pick([.max, UInt64(Int64.max) + 1, 7]))),
            (1, .byte(UInt8.random(in: 0...255, using: &rng))),
            (1, .double(RandomDBusValues.double(using: &rng))),
            (1, .boolean(true)),
        ])
    }

    /// Day names: valid, repeated, invalid, empty, or ten thousand of them.
    static func weekdays(using rng: inout some RandomNumberGenerator) -> DBusValue {
        let names = [
            "monday", "Monday", "MON", "mon", "sunday", "funday", "", "mon,tue", "weekdays", "1",
            "\u{0}x".replacingOccurrences(of: "\u{0}", with: ""),
        ]
        switch Int.random(in: 0..<5, using: &rng) {
        case 0: return .strings([])
        case 1: return .strings((0..<10_000).map { _ in rng.pick(names) })
        case 2: return .strings([HostileText.huge(using: &rng)])
        case 3: return .array(elementSignature: "i", [.int32(1), .int32(2)])
        default: return .strings((0..<Int.random(in: 1...9, using: &rng)).map { _ in rng.pick(names) })
        }
    }

    /// A colour-like text: valid, the wrong length, or with digits that are not ASCII (fullwidth,
    /// Arabic-Indic, superscript) that look like hex digits to Unicode-aware checks.
    package static func color(using rng: inout some RandomNumberGenerator) -> String {
        let pools: [[Character]] = [
            Array("0123456789abcdefABCDEF"), Array("０１２３４５６７８９ａｂｃｄｅｆＡＢＣＤＥＦ"), Array("٠١٢٣٤٥٦٧٨٩"), Array("²³¹⁰"),
            Array("ghxyzG -#"), ["e\u{301}", "\u{1B}", "🙂"],
        ]
        let length = rng.pick([0, 3, 5, 6, 6, 6, 8, 8, 9])
        var text = rng.chance(0.9) ? "#" : ""
        for _ in 0..<length {
            let pool = rng.chance(0.6) ? pools[0] : rng.pick(pools)
            text.append(rng.pick(pool))
        }
        return text
    }
}
