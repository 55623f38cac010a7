import AgentRuntime
import DBus
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

/// Runs a handler when SIGTERM or SIGINT arrives, on the agent's event loop: the signals are read
/// from a signal descriptor (`signalfd(2)`), so they must be blocked in every thread, which
/// `blockTerminationSignals()` does when the agent's `main` calls it before it starts any thread.
/// If the descriptor cannot be made, the signals are unblocked again and end the process as they
/// would by default.
package final class SignalWatcher: Sendable {
    /// The signals that ask the agent to end.
    package static let terminationSignals = [SIGTERM, SIGINT]

    private let descriptor: FileDescriptor?
    private let watch: EventLoop.Watch?

    private init(descriptor: FileDescriptor?, watch: EventLoop.Watch?) {
        self.descriptor = descriptor
        self.watch = watch
    }

    /// Blocks SIGTERM and SIGINT in the calling thread and every thread it starts from then on:
    /// the agent's `main` calls it first, so that only `onTermination(_:)` sees them.
    package static func blockTerminationSignals() {
        SignalMask.block(terminationSignals)
    }

    /// Starts watching for SIGTERM and SIGINT; `handler` runs on each, on the event loop's thread.
    package static func onTermination(_ handler: @escaping @Sendable () -> Void) -> SignalWatcher {
        blockTerminationSignals()
        let descriptor: FileDescriptor
        do {
            descriptor = try FileDescriptor.signals(terminationSignals)
        } catch {
            SignalMask.unblock(terminationSignals)
            return SignalWatcher(descriptor: nil, watch: nil)
        }
        do {
            let watch = try EventLoop.shared.watchReadable(descriptor) {
                var received = false
                while (try? descriptor.takeSignal()).flatMap({ $0 }) != nil { received = true }
                if received { handler() }
            }
            return SignalWatcher(descriptor: descriptor, watch: watch)
        } catch {
            try? descriptor.close()
            SignalMask.unblock(terminationSignals)
            return SignalWatcher(descriptor: nil, watch: nil)
        }
    }

    deinit {
        watch?.cancel()
        try? descriptor?.close()
    }
}
