import Foundation

/// A random number generator that replays: the same seed gives the same numbers, on every machine
/// (xoshiro256**, its state filled from the seed with SplitMix64).
///
/// Fuzzers print their seed; `REVEILLE_FUZZ_SEED=<seed>` makes a run repeat one that failed.
package struct SeededGenerator: RandomNumberGenerator, Sendable {
    /// The seed this generator started from.
    package let seed: UInt64
    private var state: (UInt64, UInt64, UInt64, UInt64)

    /// A generator starting from `seed`.
    package init(seed: UInt64) {
        self.seed = seed
        var mixer = seed
        func next() -> UInt64 {
            mixer &+= 0x9E37_79B9_7F4A_7C15
            var z = mixer
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        state = (next(), next(), next(), next())
    }

    /// The next 64 random bits.
    package mutating func next() -> UInt64 {
        func rotate(_ x: UInt64, _ k: UInt64) -> UInt64 { (x << k) | (x >> (64 - k)) }
        let result = rotate(state.1 &* 5, 7) &* 9
        let t = state.1 << 17
        state.2 ^= state.0
        state.3 ^= state.1
        state.1 ^= state.2
        state.0 ^= state.3
        state.2 ^= t
        state.3 = rotate(state.3, 45)
        return result
    }

    /// A new generator whose numbers do not overlap this one's in practice: for a part of a run
    /// that must not shift the numbers of the rest (a replay stays the same when one part changes).
    package mutating func split() -> SeededGenerator {
        SeededGenerator(seed: next())
    }

    /// The name of the environment variable that fixes the seed of a fuzz run.
    package static let seedVariable = "REVEILLE_FUZZ_SEED"

    /// The seed from `REVEILLE_FUZZ_SEED` (decimal or `0x` hex), or a fresh random one.
    package static func seedFromEnvironment() -> UInt64 {
        guard let text = ProcessInfo.processInfo.environment[seedVariable]?.trimmingCharacters(in: .whitespaces),
            !text.isEmpty
        else { return UInt64.random(in: 0...UInt64.max) }
        if text.lowercased().hasPrefix("0x"), let value = UInt64(text.dropFirst(2), radix: 16) { return value }
        if let value = UInt64(text) { return value }
        // Any other text: its FNV-1a hash, the same in every process (unlike `hashValue`).
        return text.utf8.reduce(0xCBF2_9CE4_8422_2325 as UInt64) { ($0 ^ UInt64($1)) &* 0x100_0000_01B3 }
    }
}

extension RandomNumberGenerator {
    /// True with probability `p` (0...1).
    package mutating func chance(_ p: Double) -> Bool {
        Double.random(in: 0..<1, using: &self) < p
    }

    /// One of the elements, chosen uniformly; the collection must not be empty.
    package mutating func pick<C: Collection>(_ elements: C) -> C.Element {
        elements.randomElement(using: &self)!
    }

    /// One of the choices, each with its weight.
    package mutating func weighted<T>(_ choices: [(weight: Int, value: T)]) -> T {
        let total = choices.reduce(0) { $0 + $1.weight }
        var point = Int.random(in: 0..<total, using: &self)
        for choice in choices {
            if point < choice.weight { return choice.value }
            point -= choice.weight
        }
        return choices[choices.count - 1].value
    }
}
