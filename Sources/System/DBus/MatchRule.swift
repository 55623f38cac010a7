/// Which signals to receive: a D-Bus match rule of `type='signal'` with optional sender, path,
/// interface, member and first-argument fields, as given to `org.freedesktop.DBus.AddMatch`
/// (what `dbus_bus_add_match` sends).
package struct MatchRule: Hashable, Sendable, CustomStringConvertible {
    /// The sender: a unique name, or a well-known name that matches its current owner.
    package var sender: String?
    /// The exact object path.
    package var path: String?
    /// The interface.
    package var interface: String?
    /// The signal name.
    package var member: String?
    /// The first argument, which must be a string equal to this.
    package var arg0: String?

    /// Makes a rule; nil fields match anything.
    package init(
        sender: String? = nil, path: String? = nil, interface: String? = nil, member: String? = nil,
        arg0: String? = nil
    ) {
        self.sender = sender
        self.path = path
        self.interface = interface
        self.member = member
        self.arg0 = arg0
    }

    /// The rule as the bus reads it, such as `type='signal',interface='a.b',member='C'`.
    /// An apostrophe inside a value is written `'\''`, as the D-Bus specification says.
    package var ruleString: String {
        var parts = ["type='signal'"]
        func add(_ key: String, _ value: String?) {
            guard let value else { return }
            let quoted = value.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''")
            parts.append("\(key)='\(quoted)'")
        }
        add("sender", sender)
        add("path", path)
        add("interface", interface)
        add("member", member)
        add("arg0", arg0)
        return parts.joined(separator: ",")
    }

    /// The rule string.
    package var description: String { ruleString }

    /// Whether a message is a signal this rule selects, comparing the sender literally (a
    /// well-known `sender` never equals the unique name a received signal carries; the
    /// connection resolves it to its owner when it filters subscriptions).
    package func matches(_ message: DBusMessage) -> Bool {
        matches(message, senderOwner: nil)
    }

    /// Whether a message matches, `senderOwner` being the current owner of a well-known `sender`.
    func matches(_ message: DBusMessage, senderOwner: String?) -> Bool {
        guard message.type == .signal else { return false }
        if let sender, message.sender != sender {
            guard let senderOwner, !senderOwner.isEmpty, message.sender == senderOwner else { return false }
        }
        if let path, message.path != path { return false }
        if let interface, message.interface != interface { return false }
        if let member, message.member != member { return false }
        if let arg0 {
            guard case .string(let first)? = message.arguments.first, first == arg0 else { return false }
        }
        return true
    }

    /// Whether `sender` is a well-known name other than the bus's own, whose owner must be tracked.
    var hasWellKnownSender: Bool {
        guard let sender else { return false }
        return !sender.hasPrefix(":") && sender != BusNames.bus
    }
}
