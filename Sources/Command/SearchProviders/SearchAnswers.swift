import AlarmKit
import AlarmModel
import AlarmProtocol
import AlarmRecords
import CommandLineText
import FoundationEssentials
import Localization
import Synchronization

/// One result the desktop's search shows.
struct SearchResult: Hashable, Sendable {
    /// What names it in later calls: `set:` and the query for an alarm to set, `alarm:` and the id
    /// for an alarm the agent has.
    var id: String
    /// Its name: what Enter sets, or the alarm's title.
    var name: String
    /// The line under it: when it rings.
    var detail: String
    /// The icon's name in the icon theme: Reveille's own, which the package installs.
    var icon: String = SearchResult.appIcon
    /// Whether it is one the agent has (which can be stopped, snoozed or cancelled).
    var isAlarm: Bool

    /// Reveille's icon (`desktop/icons`), installed in the hicolor theme.
    static let appIcon = "io.github.reveille.Reveille"
}

/// The answers both search protocols give, from ``SearchQuery`` and the agent's alarms: the
/// results for a query, and what choosing one does.
///
/// Setting an alarm goes to the agent as `reveille` does (``AgentClient``, `Schedule`), from this
/// program, which is installed beside the agent and so acts as the person (the agent's trusted
/// executables, `docs/API.md`, "Search providers"). A query that sets something is answered
/// without the agent: only `alarms` and words that look for titles ask it for its alarms.
final class SearchAnswers: Sendable {
    /// The link to the agent.
    let client: AgentClient
    /// The alarms last listed, by id, for the results named by id only (GNOME's `GetResultMetas`).
    private let shownAlarms = Mutex<[UUID: AlarmRecord]>([:])

    /// The prefix of a result that sets an alarm or timer.
    static let setPrefix = "set:"
    /// The prefix of a result that is an alarm the agent has.
    static let alarmPrefix = "alarm:"

    /// Answers with the agent behind `client`.
    init(client: AgentClient) {
        self.client = client
    }

    /// What a query reads as, now, in this machine's zone and the person's day names.
    static func read(_ text: String, at reading: ClockReading) -> SearchQuery? {
        SearchQuery.read(
            text, now: reading.now, zone: reading.timeZone,
            dayNames: TimeGrammar.personDayNames(DesktopTimeStyle.current()))
    }

    /// The results for a query: one to set, or the alarms it finds (none when the agent cannot
    /// be asked).
    func results(for text: String) async -> [SearchResult] {
        let reading = ClockReading.local()
        guard let query = Self.read(text, at: reading) else { return [] }
        let style = DesktopTimeStyle.current()
        if case .set(let proposal) = query { return [Self.result(setting: proposal, named: text, at: reading, style: style)] }
        guard let alarms = try? await withAgent({ try await $0.list() }) else { return [] }
        let records = alarms.map { $0.record(at: reading) }
        let found = SearchResultText.alarms(for: query, among: records, at: reading)
        shownAlarms.withLock { shown in
            for record in found { shown[record.id] = record }
        }
        return found.map { result(for: $0, at: reading, style: style) }
    }

    /// The results for ids given before (GNOME's `GetResultMetas`), in their order; an id no longer
    /// known is left out.
    func results(named ids: [String]) -> [SearchResult] {
        let reading = ClockReading.local()
        let style = DesktopTimeStyle.current()
        return ids.compactMap { id in
            if id.hasPrefix(Self.setPrefix) {
                let text = String(id.dropFirst(Self.setPrefix.count))
                guard case .set(let proposal)? = Self.read(text, at: reading) else { return nil }
                return Self.result(setting: proposal, named: text, at: reading, style: style)
            }
            guard let uuid = Self.alarmID(id), let record = shownAlarms.withLock({ $0[uuid] }) else { return nil }
            return result(for: record, at: reading, style: style)
        }
    }

    /// The result that sets `proposal`, which the query `text` reads as.
    private static func result(
        setting proposal: SearchProposal, named text: String, at reading: ClockReading, style: TimeStyle
    ) -> SearchResult {
        let shown = proposal.text(at: reading, style: style)
        return SearchResult(id: setPrefix + text, name: shown.name, detail: shown.detail, isAlarm: false)
    }

    /// Does what choosing a result does: `action` (KRunner's) on an alarm the agent has, which
    /// without one is shown; a result that sets something is set, and takes no action.
    func choose(_ resultID: String, action: String = "") async throws {
        if let alarm = Self.alarmID(resultID) {
            try await act(action.isEmpty ? "show" : action, on: alarm)
        } else {
            guard action.isEmpty else { throw SearchFailure.unknownAction(action) }
            _ = try await set(resultID)
        }
    }

    /// A result for an alarm the agent has.
    private func result(for record: AlarmRecord, at reading: ClockReading, style: TimeStyle) -> SearchResult {
        let shown = SearchResultText.text(of: record, at: reading, style: style)
        return SearchResult(
            id: Self.alarmPrefix + record.id.lowercasedText(), name: shown.name, detail: shown.detail, isAlarm: true)
    }

    /// The alarm id a result names, if it names one.
    static func alarmID(_ resultID: String) -> UUID? {
        guard resultID.hasPrefix(alarmPrefix) else { return nil }
        return UUID(text: String(resultID.dropFirst(alarmPrefix.count)))
    }

    /// Sets what a `set:` result names, read again now (a timer counts from the press); returns
    /// the new alarm's id. Throws ``SearchFailure`` for a query that no longer sets anything (an
    /// instant passed since) and the agent's error when it refuses.
    func set(_ resultID: String) async throws -> UUID {
        guard resultID.hasPrefix(Self.setPrefix),
            case .set(let proposal)? = Self.read(String(resultID.dropFirst(Self.setPrefix.count)), at: .local())
        else { throw SearchFailure.unknownResult(resultID) }
        let parts = proposal.definitionParts(from: Date())
        var definition = AlarmDefinition(
            schedule: parts.schedule,
            countdownDuration: parts.countdown.map { .init(preAlert: $0, postAlert: nil) },
            presentation: AlarmWire.defaultPresentation(title: parts.title, isTimer: proposal.isTimer, snoozes: !proposal.isTimer),
            tintColor: proposal.isTimer ? .green : .orange)
        definition.breakthrough = true
        let id = UUID.random()
        _ = try await withAgent { try await $0.schedule(id: id, definition: definition) }
        return id
    }
}

/// Why a search result could not be acted on.
enum SearchFailure: Error, CustomStringConvertible {
    /// The id names no result: made up, or a time that has passed since it was shown.
    case unknownResult(String)
    /// The action is not one this provider offers.
    case unknownAction(String)

    var description: String {
        switch self {
        case .unknownResult(let id): "no such result: \(id)"
        case .unknownAction(let action): "no such action: \(action)"
        }
    }
}
