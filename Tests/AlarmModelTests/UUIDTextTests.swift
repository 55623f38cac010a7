import Foundation
import Testing
import TestRequirements
import TestSupport

@testable import AlarmModel

@Suite("UUID text: ids read and written without libuuid", .onItsOwnThread)
struct UUIDTextTests {
    @Test("reads and writes what Foundation does, for random ids in either case")
    func sameAsFoundation() {
        for _ in 0..<5_000 {
            let id = UUID.random()
            #expect(id.lowercasedText() == id.uuidString.lowercased())
            #expect(UUID(text: id.uuidString) == id)
            #expect(UUID(text: id.lowercasedText()) == id)
            #expect(UUID(text: id.lowercasedText(separator: "_"), separator: "_") == id)
            #expect(UUID(text: id.lowercasedText(separator: "_")) == nil)
        }
    }

    @Test("order keys order ids as Foundation's < does: random ids, and ids that differ in one byte")
    func orderKeys() {
        var ids = (0..<2_000).map { _ in UUID() }
        // Ids that differ only in one byte, at every position, in both directions.
        let base = UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))
        for position in 0..<16 {
            for value: UInt8 in [0, 0x7f, 0x80, 0xff] {
                var bytes = base.uuid
                withUnsafeMutableBytes(of: &bytes) { $0[position] = value }
                ids.append(UUID(uuid: bytes))
            }
        }
        for (a, b) in zip(ids, ids.shuffled()) {
            #expect(a.precedes(b) == (a < b), "\(a) \(b)")
            #expect(b.precedes(a) == (b < a), "\(b) \(a)")
        }
        #expect(ids.sorted { $0.precedes($1) } == ids.sorted())
        #expect(!base.precedes(base))
    }

    @Test("random ids are version 4, RFC 4122 variant, and differ")
    func randomIDs() {
        let ids = (0..<10_000).map { _ in UUID.random() }
        #expect(Set(ids).count == ids.count)
        for id in ids {
            #expect(id.uuid.6 >> 4 == 4)
            #expect(id.uuid.8 >> 6 == 0b10)
        }
    }

    /// Whether `text` is `8-4-4-4-12` hex digits, the form RFC 4122 gives.
    static func isWellFormed(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return false }
        return bytes.enumerated().allSatisfy { index, byte in
            [8, 13, 18, 23].contains(index) ? byte == UInt8(ascii: "-") : Character(UnicodeScalar(byte)).isHexDigit
        }
    }

    @Test("accepts exactly the well-formed ids, over mutated ones, and reads them as Foundation does")
    func sameAcceptance() {
        var rng = SeededGenerator(seed: 20_261_122)
        let fixed = [
            "", "-", "{\(UUID.random().uuidString)}", " " + UUID.random().uuidString, UUID.random().uuidString + " ",
            UUID.random().uuidString + "0", String(UUID.random().uuidString.dropLast()),
            UUID.random().uuidString.replacingOccurrences(of: "-", with: ""),
        ]
        let replacements: [Character] = ["g", "G", "-", "0", "f", "F", " ", "é", "\u{0}", "_", "z", "9"]
        var mutated = fixed
        for _ in 0..<5_000 {
            var characters = Array(UUID.random().uuidString.lowercased())
            for _ in 0..<Int.random(in: 1...2, using: &rng) {
                let index = Int.random(in: 0..<characters.count, using: &rng)
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: characters[index] = replacements.randomElement(using: &rng)!
                case 1: characters.remove(at: index)
                default: characters.insert(replacements.randomElement(using: &rng)!, at: index)
                }
            }
            mutated.append(String(characters))
        }
        // Foundation's libuuid reads with sscanf's `%2hhx`, so it also takes a space or a `-` in
        // place of a digit ("85d5-e254e58" reads as 85d5f2254e58); an id here must be well formed.
        var accepted = 0
        for text in mutated {
            let wellFormed = Self.isWellFormed(text)
            #expect((UUID(text: text) != nil) == wellFormed, "\(text.debugDescription)")
            if wellFormed {
                #expect(UUID(text: text) == UUID(uuidString: text), "\(text.debugDescription)")
                accepted += 1
            }
        }
        #expect(accepted > 100, "the mutations kept some valid ids: \(accepted)")
        #expect(accepted < mutated.count / 2)
    }
}
