import Foundation

/// What happened, of something that must not, over a window a test waited out in full.
///
/// For checks of the form "X must not happen": the test counts X from the window's start to its
/// end, waiting the whole window even when nothing happens, and asserts the count. A look after a
/// short sleep would pass for an X that came just after the look.
package struct Occurrences: Sendable, CustomStringConvertible {
    /// What was counted.
    package var what: String
    /// How long the window lasted (at least what was asked).
    package var window: Duration
    /// How many times it happened in the window.
    package var count: Int
    /// How far into the window it was first seen to have happened, or `nil`.
    package var firstSeen: Duration?

    /// `0 × the inhibitor released in 3.0 s`, or `2 × … in 3.0 s, first seen 0.6 s in`.
    package var description: String {
        let seconds = { (duration: Duration) in
            String(format: "%.1f s", Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
        }
        return "\(count) × \(what) in \(seconds(window))" + (firstSeen.map { ", first seen \(seconds($0)) in" } ?? "")
    }
}

/// Counts `what` over `window`, waited out in full: `count` is read at the start, every
/// `interval` (to say when it first happened) and at the end; the result is the growth from start
/// to end. `count` must only grow (lines in a log, calls seen on the bus, bytes written).
package func occurrences(
    of what: @autoclosure () -> String, over window: Duration, every interval: Duration = .milliseconds(50),
    _ count: () throws -> Int
) async throws -> Occurrences {
    let start = ContinuousClock.now
    let baseline = try count()
    var firstSeen: Duration?
    while ContinuousClock.now - start < window {
        try await Task.sleep(for: min(interval, window - (ContinuousClock.now - start)))
        if firstSeen == nil, try count() != baseline { firstSeen = ContinuousClock.now - start }
    }
    let final = try count()
    if firstSeen == nil, final != baseline { firstSeen = ContinuousClock.now - start }
    return Occurrences(what: what(), window: ContinuousClock.now - start, count: final - baseline, firstSeen: firstSeen)
}
