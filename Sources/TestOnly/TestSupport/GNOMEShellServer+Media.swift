import Foundation

/// What GNOME Shell shows of MPRIS media players and a person's hand on them, read and done
/// through `eval(_:)` on the shell's own objects as GNOME Shell 43 names them: the calendar
/// menu's media section (`js/ui/mpris.js`, a `MediaMessage` card per player that `CanPlay`), the
/// lock screen, and a key pressed on a virtual keyboard.
extension GNOMEShellServer {
    /// A media card in the calendar menu (the date menu's message list).
    package struct MediaCard: Decodable, Sendable, Hashable {
        /// The track's title.
        package var title: String
        /// The artists, joined with ", ".
        package var body: String
        /// Whether the Play/Pause button shows Pause (the player is `Playing`).
        package var playing: Bool
        /// Whether the Next button can be pressed (`CanGoNext`).
        package var canGoNext: Bool
        /// Whether the card shows the track's art (`mpris:artUrl`), not the fallback icon.
        package var hasArt: Bool
        /// Whether the card is on screen (the menu is open).
        package var shown: Bool

        /// Describes a card.
        package init(title: String, body: String, playing: Bool, canGoNext: Bool, hasArt: Bool, shown: Bool) {
            self.title = title
            self.body = body
            self.playing = playing
            self.canGoNext = canGoNext
            self.hasArt = hasArt
            self.shown = shown
        }
    }

    /// The JavaScript that lists the media cards.
    static let mediaCardsScript = """
        Main.panel.statusArea.dateMenu._messageList._mediaSection._messages.map(m => ({
            title: m.titleLabel.text, body: m.bodyLabel.text,
            playing: m._playPauseButton.child.icon_name === 'media-playback-pause-symbolic',
            canGoNext: m._nextButton.reactive, hasArt: !m._icon.has_style_class_name('fallback'),
            shown: m.is_mapped() }))
        """

    /// The media cards the calendar menu holds (shown when it is open).
    package func mediaCards() throws -> [MediaCard] {
        try eval(Self.mediaCardsScript, as: [MediaCard].self)
    }

    /// Waits until the calendar menu holds media cards that satisfy `predicate`, and returns them.
    package func waitForMediaCards(
        _ what: String, timeout: Duration = .seconds(30), _ predicate: @escaping @Sendable ([MediaCard]) -> Bool
    ) async throws -> [MediaCard] {
        let deadline = ContinuousClock.now + timeout
        while true {
            let cards = try await offPool { [self] in try mediaCards() }
            if predicate(cards) { return cards }
            guard ContinuousClock.now < deadline else {
                throw SandboxError.timeout("waited \(timeout) for \(what); the cards are \(cards)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// How many media players the lock screen shows: `MediaMessage` cards anywhere in its dialog.
    package func lockScreenMediaPlayers() throws -> Int {
        try eval(
            """
            (() => {
                const MediaMessage = imports.ui.mpris.MediaMessage;
                const count = a => (a instanceof MediaMessage ? 1 : 0) + a.get_children().reduce((n, c) => n + count(c), 0);
                return Main.screenShield._dialog ? count(Main.screenShield._dialog) : 0;
            })()
            """, as: Int.self)
    }

    /// Opens the calendar menu (a click on the clock), without animation, and waits until it is open.
    package func openCalendar() async throws {
        try await offPool { [self] in try eval("Main.panel.statusArea.dateMenu.menu.open(false)") }
        _ = try await waitForEval("the calendar menu to open", "Main.panel.statusArea.dateMenu.menu.isOpen ? true : null", as: Bool.self)
    }

    /// Presses a button of the first media card, as a click does (the button's `clicked` handler,
    /// the shell's own): `playPause` or `next`.
    package func pressMediaCardButton(_ button: String) throws {
        let pressed = try eval(
            """
            (() => {
                const card = Main.panel.statusArea.dateMenu._messageList._mediaSection._messages[0];
                const button = card ? card[\(Self.literal("_" + button + "Button"))] : null;
                if (!button || !button.reactive) return false;
                button.emit('clicked', 1);
                return true;
            })()
            """, as: Bool.self)
        guard pressed else { throw SandboxError.failed("no media card with a \(button) button to press: \(try mediaCards())") }
    }

    /// Presses and releases the key `keyval` (a Clutter key name such as `AudioPlay`) on a virtual
    /// keyboard in the shell, as a keyboard's key reaches it: through the compositor's key
    /// bindings and grabs, locked or not.
    package func pressKey(_ keyval: String) throws {
        try eval(
            """
            (() => {
                const Clutter = imports.gi.Clutter;
                if (!global._reveilleKeyboard)
                    global._reveilleKeyboard = Clutter.get_default_backend().get_default_seat()
                        .create_virtual_device(Clutter.InputDeviceType.KEYBOARD_DEVICE);
                const time = imports.gi.GLib.get_monotonic_time();
                global._reveilleKeyboard.notify_keyval(time, Clutter[\(Self.literal("KEY_" + keyval))], Clutter.KeyState.PRESSED);
                global._reveilleKeyboard.notify_keyval(time + 20000, Clutter[\(Self.literal("KEY_" + keyval))], Clutter.KeyState.RELEASED);
                return true;
            })()
            """)
    }
}
