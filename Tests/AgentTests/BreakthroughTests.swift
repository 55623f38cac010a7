import AlarmDesktop
import Foundation
import Testing
import TestRequirements

/// `Breakthrough`, the pure decisions: events in, actions out.
@Suite("Breakthrough: lifting and restoring do-not-disturb", .onItsOwnThread)
struct BreakthroughTests {
    static let paused = Breakthrough.Conditions(isOn: true, criticalShown: false, canLift: true, value: .flag(true))
    static let unpaused = Breakthrough.Conditions(isOn: false, criticalShown: false, canLift: true, value: .flag(false))
    static let entry = RestoreEntry(owner: "dunst", setting: "dunst paused", saved: .flag(true), lifted: .flag(false))
    let a = UUID()
    let b = UUID()

    @Test("Lifted once for the first alert, restored when the last one ends")
    func liftOnceRestoreAtLast() {
        var machine = Breakthrough()
        #expect(machine.alertStarted(a, breaksThrough: true, Self.paused) == [.lift, .post(a)])
        machine.didLift(Self.entry)
        #expect(machine.observed(Self.unpaused) == [], "our own change is not the person's")
        #expect(machine.alertStarted(b, breaksThrough: true, Self.unpaused) == [.post(b)])
        #expect(machine.alertEnded(a) == [])
        #expect(machine.alertEnded(b) == [.restore(Self.entry)])
        #expect(machine.lift == .none)
    }

    @Test("Where critical notifications show, or do-not-disturb is off, nothing is changed")
    func nothingToLift() {
        var machine = Breakthrough()
        let gnome = Breakthrough.Conditions(isOn: true, criticalShown: true, canLift: true, value: .flag(false))
        #expect(machine.alertStarted(a, breaksThrough: true, gnome) == [.post(a)])
        #expect(machine.alertStarted(b, breaksThrough: true, Self.unpaused) == [.post(b)])
        #expect(machine.alertEnded(a) == [] && machine.alertEnded(b) == [])
    }

    @Test("GNOME's screen locks during the ring: lifted then and the alerts posted again; turned on by the person during a ring: not")
    func liftOnLock() {
        var machine = Breakthrough()
        let unlocked = Breakthrough.Conditions(isOn: true, criticalShown: true, canLift: true, value: .flag(false))
        #expect(machine.alertStarted(a, breaksThrough: true, unlocked) == [.post(a)])
        var locked = unlocked
        locked.criticalShown = false
        #expect(machine.observed(locked) == [.lift, .post(a)], "lifted, then posted again for the lock screen")
        #expect(machine.observed(unlocked) == [], "unlocked: nothing posted again")

        var banners = Breakthrough()
        let shown = Breakthrough.Conditions(isOn: false, criticalShown: true, canLift: true, value: .flag(true))
        #expect(banners.alertStarted(a, breaksThrough: true, shown) == [.post(a)])
        var lockedShown = shown
        lockedShown.criticalShown = false
        #expect(banners.observed(lockedShown) == [.post(a)], "do-not-disturb off: posted again for the lock screen, nothing lifted")

        var other = Breakthrough()
        let off = Breakthrough.Conditions(isOn: false, criticalShown: false, canLift: true, value: .flag(false))
        #expect(other.alertStarted(a, breaksThrough: true, off) == [.post(a)])
        #expect(other.observed(Self.paused) == [], "the person's do-not-disturb, turned on during the ring, stands")
    }

    @Test("The person changes the setting during the ring: it is theirs, never restored")
    func personWins() {
        var machine = Breakthrough()
        _ = machine.alertStarted(a, breaksThrough: true, Self.paused)
        machine.didLift(Self.entry)
        #expect(machine.observed(Self.paused) == [.forget])
        #expect(machine.observed(Self.unpaused) == [])
        #expect(machine.alertStarted(b, breaksThrough: true, Self.paused) == [.post(b)], "not lifted again")
        #expect(machine.alertEnded(a) == [] && machine.alertEnded(b) == [])
        #expect(machine.lift == .none)
    }

    @Test("Without breakthrough: held while on (even while lifted for another), released when the person ends it")
    func heldAndReleased() {
        var machine = Breakthrough()
        #expect(machine.alertStarted(a, breaksThrough: false, Self.paused) == [.hold(a)])
        #expect(machine.alertStarted(b, breaksThrough: true, Self.paused) == [.lift, .post(b)])
        machine.didLift(Self.entry)
        let c = UUID()
        #expect(machine.alertStarted(c, breaksThrough: false, Self.unpaused) == [.hold(c)], "lifted by us is still on for the person")
        #expect(machine.observed(Self.unpaused) == [])
        #expect(machine.alertEnded(b) == [.restore(Self.entry)])
        #expect(machine.held == [a, c])
        let released = machine.observed(Self.unpaused)
        #expect(Set(released) == [.release(a), .release(c)])
        #expect(machine.held.isEmpty)
        #expect(
            machine.alertStarted(UUID(), breaksThrough: false, Self.unpaused).first.map { if case .post = $0 { true } else { false } }
                == true)
    }

    @Test("A desktop that cannot be changed (Plasma hiding critical): shown anyway, nothing lifted")
    func cannotLift() {
        var machine = Breakthrough()
        let plasma = Breakthrough.Conditions(isOn: true, criticalShown: false, canLift: false, value: .flag(true))
        #expect(machine.alertStarted(a, breaksThrough: true, plasma) == [.post(a)])
        #expect(machine.alertEnded(a) == [])
    }

    @Test("The journal is written whole and read back; an unreadable one is set aside")
    func journal() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reveille-journal-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let journal = RestoreJournal(url: folder.appendingPathComponent("dnd-restore.json"))
        #expect(journal.load() == nil)
        let entry = RestoreEntry(
            owner: "mako", setting: "mako mode do-not-disturb", saved: .modes(["default", "do-not-disturb"]),
            lifted: .modes(["default"]), changedAt: Date(timeIntervalSince1970: 1_800_000_000))
        try journal.record(entry)
        #expect(journal.load() == entry)
        journal.clear()
        #expect(journal.load() == nil)
        try Data("{".utf8).write(to: journal.url)
        #expect(journal.load() == nil)
        #expect(FileManager.default.fileExists(atPath: journal.url.path + ".unreadable"))
    }

    @Test("Servers are recognized by their GetServerInformation name and vendor")
    func detection() {
        let cases: [(String, String, NotificationDesktop?)] = [
            ("dunst", "knopwob", .dunst), ("mako", "emersion", .mako), ("SwayNotificationCenter", "ErikReider", .swaync),
            ("Xfce Notify Daemon", "Xfce", .xfce), ("Plasma", "KDE", .plasma), ("gnome-shell", "GNOME", .gnome),
            ("cinnamon", "GNOME", .cinnamon), ("Notification Daemon", "MATE", .mate), ("Budgie Notification Server", "Budgie", .budgie),
            ("something", "else", nil),
        ]
        for (name, vendor, desktop) in cases {
            #expect(NotificationDesktop.from(serverName: name, vendor: vendor) == desktop, "\(name)")
        }
    }
}
