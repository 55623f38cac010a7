import Glibc

/// Who owns a bus name, and waiting for that to change, on a `BusConnection`.
extension BusConnection {
    /// The match rule for owner changes of `name`.
    private static func ownerChangeRule(_ name: String) -> String {
        "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(name)'"
    }

    /// The unique name owning `name`, or `nil`.
    func owner(of name: String) throws -> String? {
        do {
            return try callBus("GetNameOwner", [.string(name)]).first?.string
        } catch SandboxError.busError(name: "org.freedesktop.DBus.Error.NameHasNoOwner", _) {
            return nil
        }
    }

    /// The process id of the connection `uniqueName`.
    func processID(of uniqueName: String) throws -> pid_t {
        guard let pid = try callBus("GetConnectionUnixProcessID", [.string(uniqueName)]).first?.integer else {
            throw SandboxError.failed("the bus gave no process id for \(uniqueName)")
        }
        return pid_t(pid)
    }

    /// Waits for `name` to have an owner (if `owned`) or none (if not), on the bus's
    /// `NameOwnerChanged` signal; returns the owner (empty when waiting for none). `check` runs
    /// every 50 ms and may throw to give up early (for example when the owner's process ended).
    @discardableResult
    func waitForName(
        _ name: String, owned: Bool, timeout: Duration, check: () throws -> Void = {}
    ) throws -> String {
        let rule = Self.ownerChangeRule(name)
        _ = try callBus("AddMatch", [.string(rule)])
        defer { _ = try? callBus("RemoveMatch", [.string(rule)]) }
        // Subscribed first, then asked: a change after the answer arrives as a signal after it.
        var owner = try self.owner(of: name) ?? ""
        let deadline = ContinuousClock.now + timeout
        while owner.isEmpty == owned {
            try check()
            let now = ContinuousClock.now
            guard now < deadline else {
                throw SandboxError.timeout(
                    owned ? "\(name) to get an owner within \(timeout)" : "\(name) to be released within \(timeout)")
            }
            guard let message = try receive(until: min(deadline, now + .milliseconds(50))) else { continue }
            if message.kind == .signal, message.member == "NameOwnerChanged", message.body.count == 3,
                message.body[0].string == name, let newOwner = message.body[2].string
            {
                owner = newOwner
            }
        }
        return owner
    }
}
