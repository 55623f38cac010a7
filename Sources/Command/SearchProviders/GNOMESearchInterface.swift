import AlarmProtocol
import DBus
import FoundationEssentials

/// GNOME Shell's `org.gnome.Shell.SearchProvider2`: the overview asks for the ids matching the
/// words typed (`GetInitialResultSet`, then `GetSubsearchResultSet` as more is typed), for their
/// names and icons (`GetResultMetas`), and activates one (`ActivateResult`) or the whole search
/// (`LaunchSearch`, the provider's own icon).
enum GNOMESearchInterface {
    /// The interface's name.
    static let name = "org.gnome.Shell.SearchProvider2"

    /// The interface, answering from `answers`.
    static func description(_ answers: SearchAnswers) -> DBusInterface {
        DBusInterface(
            name: name,
            methods: [
                DBusMethod(
                    name: "GetInitialResultSet", inArguments: [.init(name: "terms", signature: "as")],
                    outArguments: [.init(name: "results", signature: "as")]
                ) { call in
                    [.strings(await answers.results(for: terms(call.arguments[0])).map(\.id))]
                },
                DBusMethod(
                    name: "GetSubsearchResultSet",
                    inArguments: [.init(name: "previous_results", signature: "as"), .init(name: "terms", signature: "as")],
                    outArguments: [.init(name: "results", signature: "as")]
                ) { call in
                    // The previous results cannot narrow a query that now reads as something else
                    // (`timer 1` to `timer 1m`): the query is read again.
                    [.strings(await answers.results(for: terms(call.arguments[1])).map(\.id))]
                },
                DBusMethod(
                    name: "GetResultMetas", inArguments: [.init(name: "identifiers", signature: "as")],
                    outArguments: [.init(name: "metas", signature: "aa{sv}")]
                ) { call in
                    let ids = strings(call.arguments[0])
                    return [
                        .array(
                            elementSignature: "a{sv}",
                            answers.results(named: ids).map { result in
                                .dictionary([
                                    "id": .string(result.id),
                                    "name": .string(result.name),
                                    "description": .string(result.detail),
                                    "gicon": .string(result.icon),
                                ])
                            })
                    ]
                },
                DBusMethod(
                    name: "ActivateResult",
                    inArguments: [
                        .init(name: "identifier", signature: "s"), .init(name: "terms", signature: "as"),
                        .init(name: "timestamp", signature: "u"),
                    ],
                    outArguments: []
                ) { call in
                    let id = call.arguments[0].stringValue ?? ""
                    try await SearchCalls.answering { try await answers.choose(id) }
                    return []
                },
                DBusMethod(
                    name: "LaunchSearch", inArguments: [.init(name: "terms", signature: "as"), .init(name: "timestamp", signature: "u")],
                    outArguments: []
                ) { _ in
                    try await SearchCalls.answering { try answers.showAlarms() }
                    return []
                },
            ])
    }

    /// The words typed, as one query.
    static func terms(_ value: DBusValue) -> String {
        strings(value).joined(separator: " ")
    }

    /// The strings of an `as`.
    static func strings(_ value: DBusValue) -> [String] {
        guard case .array(_, let elements) = value else { return [] }
        return elements.compactMap(\.stringValue)
    }
}
