import AlarmModel
import AlarmDesktop
import DBus
import FoundationEssentials

/// Asks the person a yes-or-no question with a notification and waits for the answer.
///
/// The question is posted with `org.freedesktop.Notifications.Notify`, with two actions. Only
/// `ActionInvoked` and `NotificationClosed` signals from the server that answered the `Notify` call
/// (its unique bus name) count, so no other client can answer for the person.
package struct NotificationQuestion: Sendable {
    /// The notification's summary.
    package var summary: String
    /// The notification's body (plain text; markup characters are escaped).
    package var body: String
    /// The action key and label that mean yes.
    package var yes: (key: String, label: String)
    /// The action key and label that mean no.
    package var no: (key: String, label: String)

    /// Creates a question.
    package init(summary: String, body: String, yes: (key: String, label: String), no: (key: String, label: String)) {
        self.summary = summary
        self.body = body
        self.yes = yes
        self.no = no
    }

    /// The answer: yes, no, or none (the notification was dismissed or timed out).
    package enum Answer: Hashable, Sendable {
        /// The yes action.
        case yes
        /// The no action.
        case no
        /// Closed without an answer.
        case dismissed
    }

    /// Posts the question and waits for the answer; throws when no notification server answers.
    package func ask(on connection: DBusConnection) async throws -> Answer {
        // Subscribe before posting so the answer cannot slip past.
        let signals = connection.signals(MatchRule(path: "/org/freedesktop/Notifications", interface: "org.freedesktop.Notifications"))
        let call = try DBusMessage.methodCall(
            destination: "org.freedesktop.Notifications", path: "/org/freedesktop/Notifications",
            interface: "org.freedesktop.Notifications", method: "Notify",
            arguments: [
                .string(NotificationContent.appName), .uint32(0), .string(NotificationContent.icon), .string(summary),
                .string(Markup.escape(body)),
                .strings([yes.key, yes.label, no.key, no.label]),
                .dictionary([
                    "urgency": .byte(1), "desktop-entry": .string(NotificationContent.desktopEntry),
                    "category": .string("x-reveille.authorization"), "resident": .boolean(true),
                ]),
                .int32(0),
            ])
        let reply = try await connection.call(call)
        guard let server = reply.sender, case .uint32(let id)? = reply.arguments.first else {
            throw DBusError(name: DBusError.failed, message: "the notification server gave no notification id")
        }
        for await signal in signals where signal.sender == server {
            guard case .uint32(id)? = signal.arguments.first else { continue }
            switch signal.member {
            case "ActionInvoked":
                let key = signal.arguments.dropFirst().first?.stringValue
                if key == yes.key || key == no.key {
                    // Take the question away ourselves: some servers leave it on screen.
                    _ = try? await connection.call(
                        destination: "org.freedesktop.Notifications", path: "/org/freedesktop/Notifications",
                        interface: "org.freedesktop.Notifications", method: "CloseNotification", arguments: [.uint32(id)])
                    return key == yes.key ? .yes : .no
                }
            case "NotificationClosed":
                return .dismissed
            default:
                continue
            }
        }
        return .dismissed
    }
}
