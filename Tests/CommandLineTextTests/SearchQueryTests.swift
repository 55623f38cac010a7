import AlarmModel
import AlarmRecords
import CommandLineText
import Foundation
import Testing
import TestRequirements
import TestSupport

/// What the desktop's search reads from a query (``SearchQuery``) and what its result says it will
/// set (``SearchProposal``), at a virtual now in the C locale's words.
@Suite("Search: queries and what their results say", .onItsOwnThread)
struct SearchQueryTests {
    /// Friday 27 November 2026, 16:40 in Berlin (15:40 UTC).
    static let reading = ConfirmationTests.reading
    static let zone = reading.timeZone

    static func query(_ text: String) -> SearchQuery? {
        SearchQuery.read(text, now: reading.now, zone: zone)
    }

    /// The result's name and detail for a query that sets something.
    static func shown(_ text: String) -> (name: String, detail: String)? {
        guard case .set(let proposal)? = query(text) else { return nil }
        return proposal.text(at: reading, style: .standard)
    }

    @Test("Timers: timer 10m tea, a bare 10m, and a length in two words; each says what it sets and when it rings")
    func timers() throws {
        let tea = try #require(Self.shown("timer 10m tea"))
        #expect(tea.name == "Timer for 10 min: tea")
        #expect(tea.detail == "rings at Fri 16:50, in 10 min")
        #expect(Self.shown("10m")?.name == "Timer for 10 min")
        #expect(Self.shown("Timer 1h 30m Bread dough")?.name == "Timer for 1 h 30 min: Bread dough")
        guard case .set(let proposal)? = Self.query("timer 10m tea") else { Issue.record("no proposal"); return }
        let parts = proposal.definitionParts(from: Self.reading.now)
        #expect(parts.schedule == nil && parts.countdown == 600 && parts.title == "tea")
    }

    @Test("Alarms: alarm 7:30, alarm tomorrow 6:45 dentist, wake me at 6, alarm weekdays 6:45, by TIME's own grammar")
    func alarms() throws {
        let plain = try #require(Self.shown("alarm 7:30"))
        #expect(plain.name == "Alarm at Sat 07:30")
        #expect(plain.detail == "next Sat 07:30, in 14 h 50 min")
        #expect(Self.shown("alarm tomorrow 6:45 dentist")?.name == "Alarm at Sat 06:45: dentist")
        #expect(Self.shown("wake me at 6")?.name == "Alarm at Sat 06:00")
        #expect(Self.shown("wake me up at 6:30")?.name == "Alarm at Sat 06:30")
        #expect(Self.shown("alarm weekdays 6:45 work")?.name == "Alarm at 06:45 on weekdays: work")
        #expect(Self.shown("alarm next friday 9am")?.name == "Alarm at 2026-12-04 09:00")
        guard case .set(let dentist)? = Self.query("alarm tomorrow 6:45 dentist") else { Issue.record("no proposal"); return }
        let parts = dentist.definitionParts(from: Self.reading.now)
        #expect(parts.schedule == .fixed(Fixtures.instant("2026-11-28T05:45:00Z")) && parts.countdown == nil && parts.title == "dentist")
        guard case .set(let weekly)? = Self.query("alarm weekdays 6:45") else { Issue.record("no proposal"); return }
        #expect(
            weekly.definitionParts(from: Self.reading.now).schedule
                == Fixtures.clockTime(6, 45, on: [.monday, .tuesday, .wednesday, .thursday, .friday]))
    }

    @Test("alarms lists; other words look for titles; a passed time or a bare number sets nothing")
    func otherQueries() {
        #expect(Self.query("alarms") == .alarms)
        #expect(Self.query("Dentist") == .find("Dentist"))
        #expect(Self.query("alarm today 6:00") == .find("alarm today 6:00"))
        #expect(Self.query("90") == .find("90"))
        #expect(Self.query("wake me at 25") == .find("wake me at 25"))
        #expect(Self.query("t") == nil)
        #expect(Self.query("   ") == nil)
    }

    @Test("Found alarms: titles that contain the words, soonest first; alarms lists those that are on")
    func foundAlarms() {
        var tea = ConfirmationTests.record(nil, title: "Green tea", preAlert: 300)
        tea.id = UUID()
        var dentist = ConfirmationTests.record(.fixed(Self.reading.now.addingTimeInterval(86_400)), title: "Dentist")
        dentist.id = UUID()
        var off = ConfirmationTests.record(Fixtures.clockTime(7, 0), title: "Tea time")
        off.id = UUID()
        off.definition.isEnabled = false
        let records = [dentist, off, tea]
        #expect(SearchResultText.alarms(for: .find("TEA"), among: records, at: Self.reading).map(\.id) == [tea.id, off.id])
        #expect(SearchResultText.alarms(for: .alarms, among: records, at: Self.reading).map(\.id) == [tea.id, dentist.id])
        let shown = SearchResultText.text(of: tea, at: Self.reading, style: .standard)
        #expect(shown.name == "“Green tea”" && shown.detail == "rings at Fri 16:45, in 5 min")
    }
}
