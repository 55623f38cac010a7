import AlarmProtocol
import DBus
import FoundationEssentials
import Localization

/// Plasma's `org.kde.krunner1`, as KRunner's D-Bus runners speak it (KRunner's
/// `src/data/org.kde.krunner1.xml`): `Match` gives results, `Actions` the buttons a result may
/// show, `Run` does a result or one of its actions, `Config` what the runner wants of queries,
/// `Teardown` ends a session.
enum KRunnerInterface {
    /// The interface's name.
    static let name = "org.kde.krunner1"

    /// The actions an alarm the agent has offers: (id, text, icon).
    static func actions() -> [(id: String, text: String, icon: String)] {
        [
            ("stop", Translation.text("Stop"), "media-playback-stop"),
            ("snooze", Translation.text("Snooze"), "alarm-symbolic"),
            ("cancel", Translation.text("Cancel"), "edit-delete"),
        ]
    }

    /// KRunner's relevance category for a result that says what Enter sets (`Highest`).
    static let setCategory: Int32 = 100
    /// Its category for an alarm found by its title (`Moderate`).
    static let alarmCategory: Int32 = 50

    /// The interface, answering from `answers`.
    static func description(_ answers: SearchAnswers) -> DBusInterface {
        DBusInterface(
            name: name,
            methods: [
                DBusMethod(name: "Teardown", inArguments: [], outArguments: []) { _ in [] },
                DBusMethod(name: "Config", inArguments: [], outArguments: [.init(name: "config", signature: "a{sv}")]) { _ in
                    [.dictionary(["MinLetterCount": .int32(2)])]
                },
                DBusMethod(name: "Actions", inArguments: [], outArguments: [.init(name: "matches", signature: "a(sss)")]) { _ in
                    [.array(elementSignature: "(sss)", actions().map { .structure([.string($0.id), .string($0.text), .string($0.icon)]) })]
                },
                DBusMethod(
                    name: "Match", inArguments: [.init(name: "query", signature: "s")],
                    outArguments: [.init(name: "matches", signature: "a(sssida{sv})")]
                ) { call in
                    let query = call.arguments.first?.stringValue ?? ""
                    let results = await answers.results(for: query)
                    return [
                        .array(
                            elementSignature: "(sssida{sv})",
                            results.enumerated().map { index, result in
                                .structure([
                                    .string(result.id), .string(result.name), .string(result.icon),
                                    .int32(result.isAlarm ? alarmCategory : setCategory),
                                    .double(result.isAlarm ? 0.9 - Double(index) * 0.01 : 1),
                                    .dictionary([
                                        "subtext": .string(result.detail),
                                        "category": .string("Reveille"),
                                        "actions": .strings(result.isAlarm ? actions().map(\.id) : []),
                                    ]),
                                ])
                            })
                    ]
                },
                DBusMethod(
                    name: "Run", inArguments: [.init(name: "matchId", signature: "s"), .init(name: "actionId", signature: "s")],
                    outArguments: []
                ) { call in
                    let id = call.arguments[0].stringValue ?? ""
                    let action = call.arguments[1].stringValue ?? ""
                    try await SearchCalls.answering { try await answers.choose(id, action: action) }
                    return []
                },
            ])
    }
}
