import CLibNotify
import FoundationEssentials

/// The notification server as the presenter follows it (`g_bus_watch_name` on
/// `org.freedesktop.Notifications`): what the server can do, read when it appears, and every alert
/// and countdown it has not seen posted to it again.
extension PresenterState {
    /// A server owns the name: reads what it can do, then posts again what it has not seen.
    func serverAppeared(_ newOwner: String?) {
        logger.debug("The notification server appeared", metadata: ["owner": "\(newOwner ?? "?")", "previous": "\(owner ?? "none")"])
        owner = newOwner
        activationFailedAt = nil
        let capabilities = room() ? Self.serverCapabilities() : []
        hasActions = capabilities.contains("actions")
        showsOrigin = capabilities.contains(NotificationContent.originHint)
        images = NotificationContent.ImageSupport(capabilities: capabilities)
        let (name, vendor, version) = room() ? Self.serverInformation() : ("", "", "")
        desktop = NotificationDesktop.from(serverName: name, vendor: vendor)
        server.withLock { $0 = .running(name: name, version: version, hasActions: hasActions) }
        guard resolved else { return resolve() }
        // Let libnotify's own proxy see the same owner change first, then post again.
        thread?.soon { [weak self] in self?.repostForNewOwner() }
    }

    /// No server owns the name: alerts ring unseen until one appears.
    func serverVanished() {
        logger.debug("The notification server went away", metadata: ["owner": "\(owner ?? "none")"])
        owner = nil
        hasActions = false
        showsOrigin = false
        images = .none
        desktop = nil
        server.withLock { $0 = .missing }
        resolve()
    }

    /// The server's name, vendor and version (`notify_get_server_info`); empty when it does not answer.
    static func serverInformation() -> (name: String, vendor: String, version: String) {
        var name: UnsafeMutablePointer<CChar>?
        var vendor: UnsafeMutablePointer<CChar>?
        var version: UnsafeMutablePointer<CChar>?
        guard notify_get_server_info(&name, &vendor, &version, nil) != 0 else { return ("", "", "") }
        defer {
            g_free(name)
            g_free(vendor)
            g_free(version)
        }
        let text = { (pointer: UnsafeMutablePointer<CChar>?) in pointer.map { String(cString: $0) } ?? "" }
        return (text(name), text(vendor), text(version))
    }

    /// The capabilities the server lists (`notify_get_server_caps`); none when it does not answer.
    static func serverCapabilities() -> Set<String> {
        guard var list = notify_get_server_caps() else { return [] }
        defer { g_list_free_full(list, { g_free($0) }) }
        var found: Set<String> = []
        while true {
            if let data = list.pointee.data { found.insert(String(cString: data.assumingMemoryBound(to: CChar.self))) }
            guard let next = list.pointee.next else { break }
            list = next
        }
        return found
    }

    /// Posts every unanswered alert and shown countdown the current owner has not seen, as new notifications.
    func repostForNewOwner() {
        guard let owner else { return }
        for posted in alerts.values where posted.postedTo != owner && !posted.answered {
            discard(posted)
            postAlert(posted)
        }
        for posted in countdowns.values where posted.postedTo != owner && !posted.hidden {
            discard(posted)
            showCountdown(posted)
        }
    }
}
