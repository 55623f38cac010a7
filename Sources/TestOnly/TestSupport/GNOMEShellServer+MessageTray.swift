import Foundation

/// What GNOME Shell shows of notifications (its banner, its lock screen) and a person's hand on
/// them, read and done through `eval(_:)` on the shell's own objects (`Main.messageTray`,
/// `Main.screenShield`), as GNOME Shell 43 names them.
extension GNOMEShellServer {
    /// A notification banner on screen.
    package struct Banner: Decodable, Sendable, Hashable {
        /// The notification's title (the summary).
        package var title: String
        /// The body text.
        package var body: String
        /// The shell's urgency: 3 is critical.
        package var urgency: Int
        /// The labels of the buttons, in order (`Stop`, `Snooze`).
        package var buttons: [String]
        /// The name of the icon the banner shows (a themed icon's name, or a file's path).
        package var icon: String?
        /// The file the shell's icon theme finds for that icon at 48 pixels, if any.
        package var iconFile: String?
        /// The notification source's title: the app's name when the shell found its desktop entry.
        package var source: String
        /// The app's desktop entry id when the shell found it, such as `io.github.reveille.Reveille.desktop`.
        package var app: String?
        /// Where the banner is on the screen, in pixels.
        package var x: Int
        /// See `x`.
        package var y: Int
        /// See `x`.
        package var width: Int
        /// See `x`.
        package var height: Int
    }

    /// The JavaScript that reads the banner shown (fully slid in), or `null`.
    static let bannerScript = """
        (() => {
            const tray = Main.messageTray;
            if (tray._notificationState !== 2 || !tray._banner || !tray._notification) return null;
            const n = tray._notification;
            const [x, y] = tray._bannerBin.get_transformed_position();
            const [width, height] = tray._bannerBin.get_transformed_size();
            const buttons = tray._banner._buttonBox ? tray._banner._buttonBox.get_children().map(b => b.label) : [];
            const icon = n.gicon ? (n.gicon.get_names ? n.gicon.get_names()[0] : n.gicon.to_string()) : null;
            let iconFile = null;
            if (n.gicon) {
                // The lookup St's texture cache makes (GtkIconTheme's rules, the shell's theme).
                const theme = new imports.gi.Gtk.IconTheme();
                theme.set_custom_theme(imports.gi.St.Settings.get().gtk_icon_theme);
                const info = theme.lookup_by_gicon(n.gicon, 48, 0);
                iconFile = info ? info.get_filename() : null;
            }
            return { title: n.title, body: n.bannerBodyText ?? '', urgency: n.urgency, buttons, icon, iconFile,
                source: n.source.title, app: n.source.app ? n.source.app.get_id() : null,
                x: Math.round(x), y: Math.round(y), width: Math.round(width), height: Math.round(height) };
        })()
        """

    /// The JavaScript that describes the message tray, for failure messages.
    package static let trayScript = """
        ({ state: Main.messageTray._notificationState, shown: Main.messageTray._notification?.title ?? null,
           queue: Main.messageTray._notificationQueue.map(n => n.title), overview: Main.overview.visible,
           mode: Main.sessionMode.currentMode,
           sources: Main.messageTray.getSources().map(s => [s.title, s.notifications.map(n => [n.title, n.urgency, n.acknowledged])]) })
        """

    /// The banner on screen now, fully shown, or `nil`.
    package func banner() throws -> Banner? {
        try eval(Self.bannerScript, as: Banner?.self)
    }

    /// Waits until the shell shows a banner titled `title`, fully slid in, and returns it.
    package func waitForBanner(titled title: String, timeout: Duration = .seconds(30)) async throws -> Banner {
        let code = "(() => { const b = \(Self.bannerScript); return b && b.title === \(Self.literal(title)) ? b : null; })()"
        return try await waitForEval(
            "a banner titled \(title.debugDescription)", code, as: Banner.self, timeout: timeout, detail: Self.trayScript)
    }

    /// Presses the banner's button labelled `label`, as a click does: the button's `clicked`
    /// signal runs the shell's own handler (the action's callback, which sends `ActionInvoked`,
    /// then whatever the shell does with the banner). Throws when the banner shown has no such button.
    package func pressBannerButton(_ label: String) throws {
        let pressed = try eval(
            """
            (() => {
                const banner = Main.messageTray._banner;
                const button = banner && banner._buttonBox
                    ? banner._buttonBox.get_children().find(b => b.label === \(Self.literal(label))) : null;
                if (!button) return false;
                button.emit('clicked', 1);
                return true;
            })()
            """, as: Bool.self)
        guard pressed else {
            throw SandboxError.failed(
                "the shell shows no banner with a \(label.debugDescription) button (banner: \(String(describing: try? banner())))")
        }
    }

    /// Waits until no banner titled `title` is on screen.
    package func waitForNoBanner(titled title: String, timeout: Duration = .seconds(30)) async throws {
        let code = """
            (() => { const n = Main.messageTray._notification;
                return n && n.title === \(Self.literal(title)) ? null : true; })()
            """
        _ = try await waitForEval("the banner \(title.debugDescription) to go", code, as: Bool.self, timeout: timeout)
    }

    /// The notifications the shell holds (its message list), by title: what a person finds in the
    /// calendar's notification list.
    package func notificationTitles() throws -> [String] {
        try eval("Main.messageTray.getSources().flatMap(s => s.notifications.map(n => n.title))", as: [String].self)
    }

    // MARK: The lock screen

    /// What the lock screen shows of one app's notifications (its notification section).
    package struct LockScreenSource: Decodable, Sendable, Hashable {
        /// The app's name, as shown.
        package var title: String
        /// The lines shown under it when the shell shows details (notification titles and bodies);
        /// empty when it shows only the app and a count.
        package var lines: [String]
        /// How many notifications it counts as unseen.
        package var unseen: Int
        /// Whether it is shown with the critical style.
        package var critical: Bool
    }

    /// The lock screen as it is now.
    package struct LockScreen: Decodable, Sendable, Hashable {
        /// Whether the screen shield is up (`org.gnome.ScreenSaver` active).
        package var active: Bool
        /// Whether the screen is locked.
        package var locked: Bool
        /// Whether the shield is faded to black (the screen "off" until a person or a notification wakes it).
        package var dark: Bool
        /// The notification section: the sources shown.
        package var sources: [LockScreenSource]
        /// Whether any banner is on screen over it.
        package var banner: Bool
        /// The buttons the notification section offers (their labels, or style classes), scroll
        /// bars left out.
        package var buttons: [String]
    }

    /// The JavaScript that reads the lock screen (see `LockScreen`).
    package static let lockScreenScript = """
        (() => {
            const shield = Main.screenShield;
            const box = shield._dialog ? shield._dialog._notificationsBox : null;
            const sources = [];
            // Buttons a person could press (a scroll bar's handles are not).
            const buttons = a => a instanceof imports.gi.St.ScrollBar ? []
                : (a instanceof imports.gi.St.Button && a.visible ? [a.label || a.style_class || 'button'] : [])
                    .concat(a.get_children().flatMap(buttons));
            if (box && box.visible) {
                for (const [source, obj] of box._sources) {
                    if (!obj.sourceBox.visible) continue;
                    const labels = obj.sourceBox.get_children().flatMap(c => c.get_children ? c.get_children() : [])
                        .filter(c => c.clutter_text).map(c => c.clutter_text.get_text());
                    sources.push({ title: source.title, lines: obj.detailed ? labels.slice(1) : [],
                        unseen: source.unseenCount, critical: !!obj.hasCriticalNotification });
                }
            }
            return { active: shield.active, locked: shield.locked,
                dark: shield._shortLightbox.active || shield._longLightbox.active, sources,
                banner: Main.messageTray._notificationState !== 0, buttons: box ? buttons(box) : [] };
        })()
        """

    /// Reads the lock screen: whether it is up and dark, and its notification section.
    package func lockScreen() throws -> LockScreen {
        try eval(Self.lockScreenScript, as: LockScreen.self)
    }

    /// Locks the screen as the lock menu item does (`Main.screenShield.lock`, without animation),
    /// and returns once the shell says it is active (`org.gnome.ScreenSaver` `ActiveChanged(true)`
    /// follows).
    package func lock(timeout: Duration = .seconds(30)) async throws {
        try await offPool { [self] in try eval("Main.screenShield.lock(false)") }
        _ = try await waitForEval(
            "the screen to lock", "Main.screenShield.active && Main.screenShield.locked ? true : null", as: Bool.self, timeout: timeout)
    }

    /// Unlocks the screen, as a person's password does (`Main.screenShield.deactivate`), and
    /// returns once the shell is back in the person's session.
    package func unlock(timeout: Duration = .seconds(30)) async throws {
        try await offPool { [self] in try eval("Main.screenShield.deactivate(false)") }
        _ = try await waitForEval(
            "the screen to unlock", "Main.sessionMode.currentMode === 'user' && !Main.screenShield.active ? true : null",
            as: Bool.self, timeout: timeout)
    }

    /// `text` as a JavaScript string literal.
    package static func literal(_ text: String) -> String {
        let data = try! JSONSerialization.data(withJSONObject: [text], options: [.withoutEscapingSlashes])
        return String(String(decoding: data, as: UTF8.self).dropFirst().dropLast())
    }
}
