import CommandLineText
import AlarmModel
import Foundation
import Testing
import TestRequirements
import TestSupport

/// The text parsers under seeded mutation: valid inputs with bytes inserted, deleted, replaced,
/// repeated and spliced, invalid UTF-8 included (read as the command line reads it). Every parser
/// either returns a value in its range or throws an `InputError` whose message is short and
/// escapes control characters, surrounding white space never changes the answer, and nothing traps.
///
/// The seed is printed; `REVEILLE_FUZZ_SEED=<seed>` replays a run (a trap ends the test process,
/// so the seed is printed before anything runs).
@Suite("Text input: mutation fuzz", .onItsOwnThread)
struct TextInputFuzzTests {
    static let corpus: [String] = [
        "7:30", "07:30", "7:30pm", "7:30 p.m.", "12am", "23:59", "2026-12-01 07:30", "2026-12-01T07:30:00+01:00",
        "2026-12-01T07:30:00.250Z", "2027-02-28 11:59pm", "9999-12-31 23:59", "90s", "5m", "1h30m", "1h 30m", "00:05:00",
        "1d 2h 3m 4s", "1.5h", "0.5s", "90:00", "366d", "mon,tue", "weekdays", "weekends", "daily", "Mon, Wed ,FRI", "thurs",
        "1a2b3c4d", "1a2b3c4d-0000-4000-8000-000000000001", "1A9F", "1a2b3c4d0000",
        // The forms people write (TimeGrammar).
        "mon,wed 6:45", "weekdays 7:00", "weekends 9:00", "daily 6:30", "noon", "midnight", "7.30", "19h30", "next friday 9am",
        "in 1h30m", "tomorrow at 7:30", "every day 6:30", "mon-fri", "sundays 8am", "+20m", "7:30 tomorrow",
    ]
    /// The present the grammar reads moments from: Sunday 8 March 2026, 20:00 UTC, the evening New
    /// York's clocks went forward.
    static let now = Date(timeIntervalSince1970: 1_773_000_000)
    static let ids = [
        UUID(uuidString: "1A2B3C4D-0000-4000-8000-000000000001")!, UUID(uuidString: "1A9F0000-0000-4000-8000-000000000003")!,
    ]
    static let zones = [Fixtures.zone("UTC"), Fixtures.zone("America/New_York"), Fixtures.zone("Pacific/Kiritimati")]

    /// One random change to the bytes.
    static func mutate(_ bytes: inout [UInt8], using rng: inout SeededGenerator) {
        let position = bytes.isEmpty ? 0 : Int.random(in: 0...bytes.count, using: &rng)
        switch Int.random(in: 0..<9, using: &rng) {
        case 0: bytes.insert(UInt8.random(in: 1...255, using: &rng), at: position)
        case 1: bytes.insert(rng.pick(Array(" :.-+,0123456789apmTZhmsd".utf8)), at: position)
        case 2:
            guard !bytes.isEmpty else { return }
            let start = Int.random(in: 0..<bytes.count, using: &rng)
            bytes.removeSubrange(start..<min(bytes.count, start + Int.random(in: 1...4, using: &rng)))
        case 3:
            guard !bytes.isEmpty else { return }
            bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 1...255, using: &rng)
        case 4: bytes.insert(contentsOf: Array(rng.pick(HostileText.tricky).utf8), at: position)
        case 5: bytes.insert(contentsOf: Array(rng.pick(corpus).utf8), at: position)
        case 6:
            guard !bytes.isEmpty else { return }
            let start = Int.random(in: 0..<bytes.count, using: &rng)
            let chunk = Array(bytes[start..<min(bytes.count, start + Int.random(in: 1...8, using: &rng))])
            for _ in 0..<rng.pick([1, 2, 10, 1_000]) { bytes.insert(contentsOf: chunk, at: start) }
        case 7: bytes.insert(contentsOf: HostileText.bytes(using: &rng), at: position)
        default:
            // Digits that are not ASCII: fullwidth, Arabic-Indic, superscript.
            bytes.insert(contentsOf: Array(rng.pick(["０", "٣", "²", "੩", "𝟗"]).utf8), at: position)
        }
    }

    /// Checks what every parser says about one text.
    static func check(_ text: String, seed: UInt64) {
        let context = "seed \(seed), text \(text.prefix(200).debugDescription)"
        func checkError(_ error: InputError) {
            let message = error.description
            #expect(!message.isEmpty && message.unicodeScalars.count < 1_500, "\(context): \(message.prefix(300))")
            #expect(
                !message.unicodeScalars.contains { $0.properties.generalCategory == .control }, "\(context): \(message.debugDescription)")
        }
        let padded = " \t" + text + "\n "
        for zone in zones {
            let result = Result { () throws(InputError) in try ClockTimeInput.parse(text, timeZone: zone) }
            #expect(result == Result { () throws(InputError) in try ClockTimeInput.parse(padded, timeZone: zone) }, "\(context)")
            switch result {
            case .success(.relative(let relative)):
                #expect((0...23).contains(relative.time.hour) && (0...59).contains(relative.time.minute), "\(context)")
            case .success(.fixed(let date)):
                #expect(date.timeIntervalSince1970.isFinite && abs(date.timeIntervalSince1970) < 300_000_000_000, "\(context)")
            case .failure(let error):
                checkError(error)
            }
        }
        for zone in zones {
            let rules = zone
            let result = Result { () throws(InputError) in try TimeGrammar.read(text, now: now, zone: rules) }
            #expect(result == Result { () throws(InputError) in try TimeGrammar.read(padded, now: now, zone: rules) }, "\(context)")
            switch result {
            case .success(.clockTime(let relative)):
                #expect((0...23).contains(relative.time.hour) && (0...59).contains(relative.time.minute), "\(context)")
                if case .weekly(let days) = relative.repeats { #expect(!days.isEmpty, "\(context)") }
            case .success(.instant(let date)):
                #expect(date.timeIntervalSince1970.isFinite && abs(date.timeIntervalSince1970) < 300_000_000_000, "\(context)")
            case .success(.fromNow(let seconds)):
                #expect(seconds > 0 && seconds <= AlarmDefinition.maximumDuration, "\(context)")
            case .failure(let error):
                checkError(error)
            }
        }
        let duration = Result { () throws(InputError) in try DurationInput.parse(text) }
        #expect(duration == Result { () throws(InputError) in try DurationInput.parse(padded) }, "\(context)")
        switch duration {
        case .success(let seconds): #expect(seconds > 0 && seconds <= AlarmDefinition.maximumDuration, "\(context)")
        case .failure(let error): checkError(error)
        }
        let days = Result { () throws(InputError) in try WeekdaysInput.parse(text) }
        #expect(days == Result { () throws(InputError) in try WeekdaysInput.parse(padded) }, "\(context)")
        switch days {
        case .success(let days): #expect(!days.isEmpty && days == WeekdaysInput.weekOrdered(days), "\(context)")
        case .failure(let error): checkError(error)
        }
        let id = Result { () throws(InputError) in try AlarmIDInput.resolve(text, among: ids) }
        #expect(id == Result { () throws(InputError) in try AlarmIDInput.resolve(padded, among: ids) }, "\(context)")
        switch id {
        case .success(let id): #expect(ids.contains(id), "\(context)")
        case .failure(let error): checkError(error)
        }
    }

    @Test("20,000 mutated inputs: every parser answers a value in range or a short, escaped InputError")
    func mutations() {
        let seed = SeededGenerator.seedFromEnvironment()
        print("TextInputFuzzTests.mutations: seed \(seed) (replay with \(SeededGenerator.seedVariable)=\(seed))")
        var rng = SeededGenerator(seed: seed)
        for _ in 0..<20_000 {
            var bytes = Array(rng.pick(Self.corpus).utf8)
            for _ in 0..<rng.weighted([(6, 1), (3, 2), (1, Int.random(in: 3...12, using: &rng))]) {
                Self.mutate(&bytes, using: &rng)
            }
            // As the command line reads an argument: invalid UTF-8 becomes U+FFFD.
            Self.check(String(decoding: bytes, as: UTF8.self), seed: seed)
        }
    }
}
