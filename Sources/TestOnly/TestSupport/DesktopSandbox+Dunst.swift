import Foundation

/// Using dunst the way a person does (through `dunstctl`), and reading its state.
extension DesktopSandbox {
    /// Runs `dunstctl` with `arguments` in the sandbox and returns its output, trimmed.
    @discardableResult
    func dunstctl(_ arguments: String...) throws -> String {
        try run("dunstctl", arguments).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func count(_ which: String) throws -> Int {
        let text = try dunstctl("count", which)
        guard let count = Int(text) else { throw SandboxError.failed("dunstctl count \(which) printed \(text.debugDescription)") }
        return count
    }

    /// How many notifications dunst shows (`dunstctl count displayed`).
    package func displayedCount() throws -> Int { try count("displayed") }

    /// How many notifications dunst holds back, while paused (`dunstctl count waiting`).
    package func waitingCount() throws -> Int { try count("waiting") }

    /// How many notifications are in dunst's history (`dunstctl count history`).
    package func historyCount() throws -> Int { try count("history") }

    /// Waits until dunst shows `count` notifications (posting is asynchronous). On a timeout the
    /// error also says how many dunst holds back and how many are in its history (closed or expired).
    package func waitForDisplayedCount(_ count: Int, timeout: Duration = .seconds(30)) async throws {
        var last = -1
        let detail = { [self] in
            let others = (try? "; \(waitingCount()) waiting, \(historyCount()) in history") ?? ""
            return "it shows \(last)" + others
        }
        try await Poll.until("dunst to show \(count) notification(s)", timeout: timeout, detail: detail) {
            last = try displayedCount()
            return last == count ? () : nil
        }
    }

    /// dunst's history (closed and expired notifications, newest first), read with the
    /// `NotificationListHistory` method that `dunstctl history` calls.
    package func history() throws -> [DunstNotification] {
        let connection = try BusConnection(address: bus.address)
        defer { connection.close() }
        let reply = try connection.call(
            DunstServer.busName, "/org/freedesktop/Notifications", "org.dunstproject.cmd0", "NotificationListHistory")
        guard let entries = reply.first?.elements else {
            throw SandboxError.failed("NotificationListHistory answered \(reply)")
        }
        return try entries.map { entry in
            guard let fields = entry.stringDictionary else {
                throw SandboxError.failed("a history entry is \(entry.signature), not a{sv}")
            }
            return DunstNotification(fields: fields)
        }
    }

    /// Closes every notification dunst shows (`dunstctl close-all`).
    package func closeAll() throws { try dunstctl("close-all") }

    /// Pauses or resumes dunst (`dunstctl set-paused`): paused, dunst holds notifications back
    /// (its do-not-disturb), and shows them all when resumed.
    package func setPaused(_ paused: Bool) throws { try dunstctl("set-paused", paused ? "true" : "false") }

    /// Whether dunst is paused (`dunstctl is-paused`).
    package func isPaused() throws -> Bool {
        let text = try dunstctl("is-paused")
        switch text {
        case "true": return true
        case "false": return false
        default: throw SandboxError.failed("dunstctl is-paused printed \(text.debugDescription)")
        }
    }

    /// Picks the action `key` in dunst's context menu, as a person does: runs `dunstctl context`,
    /// whose menu (lines like `#Stop (Wake up) [7,stop]`) goes to the sandbox's script, which picks
    /// the line ending in `,key]` (or `[id,key]` when `id` is given). Returns once dunst has sent
    /// `ActionInvoked`, with the notification id it was sent for.
    ///
    /// Throws `SandboxError.noSuchAction` (with the menu) when no line matches, and a timeout when
    /// dunst opens no menu (no notification with actions is shown).
    @discardableResult
    package func pickAction(_ key: String, notification id: UInt32? = nil, timeout: Duration = .seconds(30)) throws -> UInt32 {
        try pickLock.withLock { _ in
            let suffix = id.map { "[\($0),\(key)]" } ?? ",\(key)]"
            let invoked = try invokingAction(timeout: timeout, pick: suffix) {
                try dunstctl("context")
            }
            guard invoked.key == key else {
                throw SandboxError.failed("dunst invoked \(invoked.key.debugDescription) instead of \(key.debugDescription)")
            }
            return invoked.id
        }
    }

    /// Clicks the first notification shown, as a left click does (`dunstctl action 0`): dunst
    /// invokes its `default` action (or its only action). Returns the notification id and action key
    /// once dunst has sent `ActionInvoked`.
    @discardableResult
    package func invokeDefaultAction(timeout: Duration = .seconds(30)) throws -> (id: UInt32, key: String) {
        try pickLock.withLock { _ in
            try invokingAction(timeout: timeout, pick: nil) { try dunstctl("action", "0") }
        }
    }

    /// Watches for `ActionInvoked`, runs `trigger`, and waits for the signal. `pick` is the menu
    /// suffix for the script; with `nil` the script picks nothing if dunst opens its menu.
    private func invokingAction(
        timeout: Duration, pick suffix: String?, trigger: () throws -> Void
    ) throws -> (id: UInt32, key: String) {
        let files = dunstFiles
        let manager = FileManager.default
        try? manager.removeItem(at: files.pickResultURL)
        try? manager.removeItem(at: files.pickMenuURL)
        if let suffix {
            try suffix.write(to: files.pickSuffixURL, atomically: true, encoding: .utf8)
        } else {
            try? manager.removeItem(at: files.pickSuffixURL)
        }
        defer { try? manager.removeItem(at: files.pickSuffixURL) }

        // ActionInvoked goes only to the notification's sender: watch as a monitor.
        let watcher = try BusConnection(address: bus.address)
        defer { watcher.close() }
        _ = try watcher.call(
            "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.Monitoring", "BecomeMonitor",
            [
                .array(
                    elementSignature: "s",
                    [
                        .string("type='signal',interface='org.freedesktop.Notifications',member='ActionInvoked'")
                    ]), .uint32(0),
            ])

        try trigger()

        let deadline = ContinuousClock.now + timeout
        while true {
            let now = ContinuousClock.now
            if let result = try? String(contentsOf: files.pickResultURL, encoding: .utf8),
                result.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
            {
                let menu = (try? String(contentsOf: files.pickMenuURL, encoding: .utf8)) ?? ""
                if let suffix { throw SandboxError.noSuchAction(suffix: suffix, menu: menu) }
                throw SandboxError.failed("dunst opened its context menu instead of invoking an action; it offered:\n\(menu)")
            }
            guard now < deadline else {
                let menuShown = manager.fileExists(atPath: files.pickResultURL.path)
                throw SandboxError.timeout(
                    menuShown
                        ? "dunst to send ActionInvoked within \(timeout)"
                        : "dunst to act within \(timeout): it opened no menu and sent no ActionInvoked (is a notification with actions shown?)"
                )
            }
            guard let message = try watcher.receive(until: min(deadline, now + .milliseconds(20))) else { continue }
            if message.kind == .signal, message.member == "ActionInvoked", message.body.count == 2,
                case .uint32(let id) = message.body[0], let key = message.body[1].string
            {
                return (id, key)
            }
        }
    }
}
