import Foundation

/// dunst as the sandbox's real notification server: its configuration, the `dmenu` script that
/// picks context-menu lines for tests, and one running dunst process.
final class DunstServer: Sendable {
    /// The notification server's bus name.
    static let busName = "org.freedesktop.Notifications"

    /// The running dunst.
    let process: SandboxProcess

    /// Starts dunst with `files`' configuration and waits until it owns `org.freedesktop.Notifications`
    /// (and checks that the owner is this very process).
    init(
        executable: String, files: Files, environment: [String: String], outputFolder: URL, busAddress: String,
        timeout: Duration
    ) throws {
        process = try SandboxProcess(
            executable: executable, arguments: ["-config", files.configurationURL.path], environment: environment,
            outputFolder: outputFolder)
        do {
            let bus = try BusConnection(address: busAddress)
            defer { bus.close() }
            let owner = try bus.waitForName(Self.busName, owned: true, timeout: timeout) { [process] in
                if let status = process.exitStatus {
                    throw SandboxError.failed(
                        "dunst ended (\(status)) before taking \(Self.busName)\n\(process.outputs())")
                }
            }
            let ownerPID = try bus.processID(of: owner)
            guard ownerPID == process.pid else {
                throw SandboxError.failed(
                    "\(Self.busName) is owned by process \(ownerPID), not by the sandbox's dunst (\(process.pid))")
            }
        } catch {
            process.stop()
            throw error
        }
    }

    /// Stops dunst with `signal` (its whole process group, which holds any menu script it started),
    /// waits for it to end, then waits until the bus has released the name.
    func stop(signal: Int32, busAddress: String, timeout: Duration) throws {
        process.signal(signal)
        if (try? process.waitForExit(timeout: timeout)) == nil { process.kill() }
        process.stop()
        let bus = try BusConnection(address: busAddress)
        defer { bus.close() }
        try bus.waitForName(Self.busName, owned: false, timeout: timeout)
    }

    /// The files dunst runs with, written once per sandbox.
    struct Files: Sendable {
        /// `XDG_CONFIG_HOME/dunst/dunstrc`, also passed with `-config`.
        let configurationURL: URL
        /// The script set as dunst's `dmenu`.
        let pickScriptURL: URL
        /// Holds the suffix of the menu line to pick; absent: pick nothing.
        let pickSuffixURL: URL
        /// The script writes the menu it was shown here.
        let pickMenuURL: URL
        /// The script writes the line it picked here (an empty line when none matched), last.
        let pickResultURL: URL

        /// Writes the configuration under `configHome` and the script into `folder`; `extra` is
        /// appended to the configuration (for example rules or `[urgency_…]` sections).
        /// `notificationLimit`: see `configuration(dmenu:notificationLimit:)`.
        init(configHome: URL, folder: URL, extra: String, notificationLimit: Int = 0) throws {
            let manager = FileManager.default
            let configFolder = configHome.appendingPathComponent("dunst")
            try manager.createDirectory(at: configFolder, withIntermediateDirectories: true)
            try manager.createDirectory(at: folder, withIntermediateDirectories: true)
            configurationURL = configFolder.appendingPathComponent("dunstrc")
            pickScriptURL = folder.appendingPathComponent("pick-action")
            pickSuffixURL = folder.appendingPathComponent("pick-suffix")
            pickMenuURL = folder.appendingPathComponent("pick-menu")
            pickResultURL = folder.appendingPathComponent("pick-result")

            try Self.script(folder: folder.path).write(to: pickScriptURL, atomically: true, encoding: .utf8)
            try manager.setAttributes([.posixPermissions: 0o755], ofItemAtPath: pickScriptURL.path)
            try (Self.configuration(dmenu: pickScriptURL.path, notificationLimit: notificationLimit) + extra + "\n")
                .write(to: configurationURL, atomically: true, encoding: .utf8)
        }

        /// The dunstrc: a plain, predictable dunst whose context menu is the pick script.
        ///
        /// `notificationLimit` is how many bubbles dunst shows at once (0: all, so that tests can
        /// count what is displayed); the rest wait in its queue, answered but not drawn, as with
        /// dunst's own default of 20.
        static func configuration(dmenu: String, notificationLimit: Int = 0) -> String {
            """
            # dunst configuration written by Reveille's DesktopSandbox for tests.
            [global]
                monitor = 0
                follow = none
                width = 300
                height = 300
                origin = top-right
                offset = 10x10
                # 0: show every notification at once, as tests count what is displayed.
                notification_limit = \(notificationLimit)
                # Xvfb has no input, so the user always looks idle; never hold notifications for that.
                idle_threshold = 0
                show_indicators = no
                sticky_history = yes
                history_length = 100
                icon_position = off
                font = Monospace 8
                format = "<b>%s</b>\\n%b"
                # The context menu (dunstctl context) is the sandbox's script, not dmenu.
                dmenu = \(dmenu)
                browser = /bin/false
                mouse_left_click = do_action, close_current
                mouse_middle_click = close_current
                mouse_right_click = close_all

            """
        }

        /// The `dmenu` script: it reads the menu dunst offers (lines such as `#Stop (Wake up) [7,stop]`)
        /// and prints the first line ending in the suffix in `pick-suffix`, as a person picking it would.
        static func script(folder: String) -> String {
            let quoted = "'" + folder.replacingOccurrences(of: "'", with: "'\\''") + "'"
            return """
                #!/bin/sh
                # dunst's `dmenu` in Reveille's DesktopSandbox: picks the menu line that ends in the
                # suffix DesktopSandbox.pickAction wrote to pick-suffix (",snooze]" or "[7,snooze]").
                dir=\(quoted)
                menu=$(cat)
                suffix=$(cat "$dir/pick-suffix" 2>/dev/null)
                choice=''
                if [ -n "$suffix" ]; then
                    choice=$(printf '%s\\n' "$menu" | awk -v suffix="$suffix" \\
                        'length($0) >= length(suffix) && substr($0, length($0) - length(suffix) + 1) == suffix { print; exit }')
                fi
                printf '%s\\n' "$menu" > "$dir/pick-menu"
                printf '%s\\n' "$choice" > "$dir/pick-result.tmp"
                mv "$dir/pick-result.tmp" "$dir/pick-result"
                printf '%s\\n' "$choice"

                """
        }
    }
}
