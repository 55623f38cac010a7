import AlarmCore
import CommandLineText
import AlarmModel
import Foundation
import TestSupport

/// The agent's alarms as `reveille watch --json` follows them: one JSON array per change, printed
/// as the agent sends `AlarmsChanged`. A test waits here for the state a person would see.
struct AlarmWatch: Sendable {
    let process: SandboxProcess

    /// Every snapshot printed so far.
    func snapshots() throws -> [[AlarmDescription]] {
        try process.standardOutput.split(separator: "\n").map {
            try JSONDecoder().decode([AlarmDescription].self, from: Data($0.utf8))
        }
    }

    /// Waits until a snapshot printed from now on (or the latest one) holds an alarm `id` that
    /// satisfies `predicate`, and returns that alarm; `nil` from the predicate's point of view
    /// means the alarm is gone (`gone: true`).
    @discardableResult
    func waitFor(
        _ what: String, id: String, gone: Bool = false, timeout: Duration = .seconds(30),
        _ predicate: @escaping (AlarmDescription) -> Bool = { _ in true }
    ) async throws -> AlarmDescription? {
        try await waitUntil("\(what) (alarm \(id))", timeout: timeout, detail: { process.standardOutput }) {
            guard let latest = try snapshots().last else { return nil }
            let alarm = latest.first { $0.id == id }
            if gone { return alarm == nil ? .some(nil) : nil }
            return alarm.flatMap { predicate($0) ? .some($0) : nil }
        }
    }

    /// Ends `reveille watch`.
    func stop() { process.stop() }
}
