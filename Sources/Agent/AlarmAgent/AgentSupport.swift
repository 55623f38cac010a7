import DBus
import Dispatch
import FoundationEssentials
import LinuxSystem

#if canImport(Glibc)
import Glibc
#endif

/// The agent's D-Bus interfaces as introspection XML: the texts in `desktop/`, exactly what the
/// objects serve.
package enum AgentIntrospection {
    /// What the manager object serves while there are no alarms:
    /// `desktop/io.github.reveille.Alarms1.Manager.xml`.
    package static var managerXML: String {
        DBusInterface.introspectionXML(
            interfaces: [AlarmService.managerDescription(nil)], children: [], includesObjectManager: true)
    }

    /// What each alarm object serves: `desktop/io.github.reveille.Alarms1.Alarm.xml`.
    package static var alarmXML: String {
        DBusInterface.introspectionXML(interfaces: [AlarmService.alarmDescription(nil)], children: [])
    }
}

/// Runs a handler once when SIGTERM or SIGINT arrives (dispatch signal sources; the signals'
/// default actions are ignored while it lives).
package final class SignalWatcher: @unchecked Sendable {  // immutable after init; dispatch sources are thread-safe
    private let sources: [any DispatchSourceSignal]

    private init(sources: [any DispatchSourceSignal]) { self.sources = sources }

    /// Starts watching for SIGTERM and SIGINT.
    package static func onTermination(_ handler: @escaping @Sendable () -> Void) -> SignalWatcher {
        let queue = DispatchQueue(label: "reveille.signals")
        let sources = [SIGTERM, SIGINT].map { number -> any DispatchSourceSignal in
            SignalDisposition.ignore.apply(to: number)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler(handler: handler)
            source.resume()
            return source
        }
        return SignalWatcher(sources: sources)
    }

    deinit { sources.forEach { $0.cancel() } }
}
