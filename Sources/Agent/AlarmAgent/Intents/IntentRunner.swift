import AlarmModel
import AlarmRecords
import DBus
import FoundationEssentials
import Logging

/// Runs an app's intents: AlarmKit's `stopIntent` and `secondaryIntent`, which on Linux are the
/// app's own `org.freedesktop.Application` actions.
///
/// `ActivateAction(name, [<alarm id>], platform-data)` goes to the app's bus name (its desktop app
/// id), at the object path the id names (`org.example.App` → `/org/example/App`); the reserved
/// action `activate` calls `Activate(platform-data)`, which opens the app. The target is the
/// alarm's owner when the agent knows the app by its app id. For an app known only by its
/// executable, the configuration's `applicationID` names it, and the agent runs the intent only if
/// that bus name's owner is a process of that very executable.
package struct IntentRunner: Sendable {
    let connection: DBusConnection
    let processes: ProcessIdentifier
    let logger: Logger

    /// Creates a runner on the agent's connection.
    package init(connection: DBusConnection, processes: ProcessIdentifier = ProcessIdentifier(), logger: Logger) {
        self.connection = connection
        self.processes = processes
        self.logger = logger
    }

    /// Runs `action` of the alarm's app for the alarm; failures are logged, never thrown.
    package func run(_ action: String, for record: AlarmRecord) async {
        guard let application = await target(of: record) else {
            logger.notice(
                "An intent was not run: its app could not be verified",
                metadata: ["alarm": "\(record.id)", "owner": "\(record.owner)", "action": "\(action)"])
            return
        }
        let path = "/" + application.replacing(".", with: "/").replacing("-", with: "_")
        let platformData = DBusValue.dictionary([:])
        do {
            if action == ApplicationActionName.activate {
                _ = try await connection.call(
                    destination: application, path: path, interface: "org.freedesktop.Application", method: "Activate",
                    arguments: [platformData])
            } else {
                _ = try await connection.call(
                    destination: application, path: path, interface: "org.freedesktop.Application", method: "ActivateAction",
                    arguments: [
                        .string(action), .array(elementSignature: "v", [.variant(.string(record.id.lowercasedText()))]),
                        platformData,
                    ])
            }
            logger.info("Ran an intent", metadata: ["app": "\(application)", "action": "\(action)", "alarm": "\(record.id)"])
        } catch {
            logger.warning(
                "An app's intent failed", metadata: ["app": "\(application)", "action": "\(action)", "error": "\(error)"])
        }
    }

    /// The bus name to run the record's intents on, when it can be trusted.
    func target(of record: AlarmRecord) async -> String? {
        if ApplicationActionName.isValidApplicationID(record.owner), !record.owner.hasPrefix("/") {
            return record.owner
        }
        guard let claimed = record.definition.applicationID, record.owner.hasPrefix("/") else { return nil }
        // The claimed name must belong, now, to a process of the alarm owner's executable.
        guard let owner = try? await connection.nameOwner(claimed),
            let reply = try? await connection.call(
                destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                method: "GetConnectionUnixProcessID", arguments: [.string(owner)]),
            let pid = reply.first?.integerValue.map(UInt32.init),
            let identity = processes.identify(processID: pid, userID: nil),
            identity.executable.map(ProcessIdentifier.withoutDeletedSuffix) == record.owner
        else { return nil }
        return claimed
    }
}
