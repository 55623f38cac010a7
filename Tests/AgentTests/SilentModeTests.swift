import AlarmDesktop
import Foundation
import Testing
import TestRequirements

/// Silent mode's decisions, on values: when the output counts as silent, what it is raised to,
/// and that it is put back only while it holds what Reveille set. (No sound card here: the mixer
/// itself is only read, and found missing, by the agent tests.)
@Suite("Silent mode: reading and raising the output's mixer", .onItsOwnThread)
struct SilentModeTests {
    static func reading(_ unmuted: Bool, _ volume: Int) -> OutputMixer.Reading {
        OutputMixer.Reading(element: "Master", unmuted: unmuted, volume: volume, range: 0...65_536)
    }

    @Test("Muted, or at the bottom of its range, is silent; the percentage is of the range")
    func silence() {
        #expect(Self.reading(false, 40_000).isSilent)
        #expect(Self.reading(true, 0).isSilent)
        #expect(!Self.reading(true, 1).isSilent)
        #expect(Self.reading(true, 32_768).percent == 50)
        #expect(OutputMixer.Reading(element: "PCM", unmuted: true, volume: -20, range: -40...0).percent == 50)
    }

    @Test("Raised: unmuted, at the level asked for, whatever level the muted output held")
    func raised() {
        #expect(Self.reading(false, 0).audible(at: 50) == .output(unmuted: true, volume: 32_768))
        #expect(Self.reading(false, 65_536).audible(at: 50) == .output(unmuted: true, volume: 32_768), "muted at 100 % rings at 50 %")
        #expect(Self.reading(true, 0).audible(at: 0) == .output(unmuted: true, volume: 656), "at least 1 percent")
        #expect(Self.reading(true, 0).audible(at: 100) == .output(unmuted: true, volume: 65_536))
        #expect(
            OutputMixer.Reading(element: "PCM", unmuted: false, volume: -10, range: -40...0).audible(at: 50)
                == .output(unmuted: true, volume: -20))
    }

    @Test("The output names its sound server when PipeWire's or PulseAudio's plugin is the control")
    func soundServer() {
        #expect(OutputMixer.Reading(element: "Master", unmuted: true, volume: 1, range: 0...2, card: "PipeWire").soundServer == "PipeWire")
        #expect(
            OutputMixer.Reading(element: "Master", unmuted: true, volume: 1, range: 0...2, card: "PulseAudio").soundServer == "PulseAudio")
        #expect(OutputMixer.Reading(element: "Master", unmuted: true, volume: 1, range: 0...2, card: "HDA Intel PCH").soundServer == nil)
    }

    @Test("The mixer is raised once for the ringing alarms and put back after the last")
    func restoreRules() {
        let silent = Self.reading(false, 0)
        let conditions = Breakthrough.Conditions(isOn: true, criticalShown: false, canLift: true, value: silent.value)
        let entry = RestoreEntry(owner: "mixer", setting: "ALSA default Master", saved: silent.value, lifted: silent.audible(at: 50))
        var machine = Breakthrough()
        let (a, b) = (UUID(), UUID())
        #expect(machine.alertStarted(a, breaksThrough: true, conditions) == [.lift, .post(a)])
        machine.didLift(entry)
        #expect(machine.alertStarted(b, breaksThrough: true, conditions).contains(.lift) == false)
        #expect(machine.alertEnded(a) == [])
        #expect(machine.alertEnded(b) == [.restore(entry)])
    }

    @Test("The volume journal keeps the switch and the level")
    func journal() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reveille-volume-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let journal = RestoreJournal(url: folder.appendingPathComponent("volume-restore.json"))
        let entry = RestoreEntry(
            owner: "mixer", setting: "ALSA default Master", saved: .output(unmuted: false, volume: 12),
            lifted: .output(unmuted: true, volume: 32_768), changedAt: Date(timeIntervalSince1970: 1_800_000_000))
        try journal.record(entry)
        #expect(journal.load() == entry)
    }
}
