import AlarmModel
import AlarmRecords
import FoundationEssentials
import Localization

/// What a notification carries, built from an alarm record: pure data, no libnotify.
///
/// `NotificationPresenter` turns it into `notify_notification_new` / `notify_notification_update`,
/// `notify_notification_set_hint`, `notify_notification_add_action` and friends; tests and the
/// presenter share this one description of summary, body, actions and hints.
package struct NotificationContent: Hashable, Sendable {
    /// One action: its key on the bus and its label.
    package struct Action: Hashable, Sendable {
        /// The key (`default`, `stop`, `snooze`, …).
        package var key: String
        /// The label shown.
        package var label: String
    }

    /// A hint value, typed as it goes on the bus.
    package enum Hint: Hashable, Sendable {
        /// `y`.
        case byte(UInt8)
        /// `b`.
        case boolean(Bool)
        /// `s`.
        case string(String)
        /// `i`.
        case int32(Int32)
        /// `(iiibiiay)`: an image's pixels (`image-data`).
        case image(NotificationImage)
    }

    /// What the notification server does with a notification's image, from its capabilities.
    ///
    /// The image goes in the hints `image-data` (pixels) or `image-path` (an icon name or a
    /// `file://` URI). The specification's "Icons and Images": "An implementation which only
    /// displays one image or icon must choose which one to display using the following order:
    /// image-data, image-path, app_icon parameter"; one that shows both shows `app_icon` and the
    /// image. GNOME Shell (43, its `notificationDaemon.js`) and dunst show one, so an image takes
    /// the place of Reveille's icon there; KDE Plasma shows the app's icon in the notification's
    /// header and the image beside the text.
    package struct ImageSupport: Hashable, Sendable {
        /// The server draws `image-data`: it lists `icon-static` ("Supports display of exactly 1
        /// frame of any given image array") or `icon-multi` ("The server will render an animation
        /// of all the frames in a given image array"), the capabilities the specification defines
        /// for image data. (`body-images` is about images in the body's markup, `<img>`.)
        package var drawsImageData: Bool
        /// The server shows an image beside the app's icon, not in its place: KDE Plasma, known by
        /// the capability `x-kde-origin-name` only Plasma lists.
        package var keepsAppIcon: Bool

        /// A server that draws neither (or is not known yet).
        package static let none = ImageSupport(drawsImageData: false, keepsAppIcon: false)

        /// Says it outright.
        package init(drawsImageData: Bool, keepsAppIcon: Bool) {
            self.drawsImageData = drawsImageData
            self.keepsAppIcon = keepsAppIcon
        }

        /// From the capabilities the server lists (`GetCapabilities`).
        package init(capabilities: Set<String>) {
            self.init(
                drawsImageData: capabilities.contains("icon-static") || capabilities.contains("icon-multi"),
                keepsAppIcon: capabilities.contains(NotificationContent.originHint))
        }
    }

    /// `summary` (plain text; the specification gives it no markup).
    package var summary: String
    /// `body`, with markup escaped.
    package var body: String
    /// `app_icon`.
    package var icon: String
    /// The actions, in order.
    package var actions: [Action]
    /// The hints; `urgency` is always a byte.
    package var hints: [String: Hint]
    /// `expire_timeout` in milliseconds; 0 never expires.
    package var expireTimeout: Int32
}

/// The response a person gave through a notification, delivered to `onAction`.
///
/// Its `rawValue` names it in logs: the case's name (`stop`, `secondary`, …), or the action key
/// of a snooze choice (`snooze-300`).
package enum NotificationResponse: Hashable, Sendable, RawRepresentable {
    /// The `stop` action.
    case stop
    /// The `snooze` / `repeat` action (`.countdown`), or `open` (`.custom`).
    case secondary
    /// A click on the bubble itself (`default`).
    case `default`
    /// A person closed the alert's bubble (reason 2, later than the suppression window): the agent
    /// should stop the alarm, as the X on a ringing alarm does.
    case dismissed
    /// The server closed the alert right after it was posted (do-not-disturb on Budgie, Cinnamon,
    /// MATE): not a request; keep ringing.
    case suppressed
    /// The countdown's `pause` action.
    case pause
    /// The paused countdown's `resume` action.
    case resume
    /// The countdown's `cancel` action.
    case cancel
    /// One of the snooze choices (`snooze-<seconds>`, see `SnoozeChoices`): snooze for that many
    /// seconds instead of the alarm's own snooze length. Only a configured choice is delivered.
    case snooze(seconds: Int)

    /// The case's name, or the snooze choice's action key.
    package var rawValue: String {
        switch self {
        case .stop: "stop"
        case .secondary: "secondary"
        case .default: "default"
        case .dismissed: "dismissed"
        case .suppressed: "suppressed"
        case .pause: "pause"
        case .resume: "resume"
        case .cancel: "cancel"
        case .snooze(let seconds): SnoozeChoices.actionKey(seconds: seconds)
        }
    }

    /// The response `rawValue` names; `snooze-<seconds>` with any positive whole number.
    package init?(rawValue: String) {
        switch rawValue {
        case "stop": self = .stop
        case "secondary": self = .secondary
        case "default": self = .default
        case "dismissed": self = .dismissed
        case "suppressed": self = .suppressed
        case "pause": self = .pause
        case "resume": self = .resume
        case "cancel": self = .cancel
        default:
            guard rawValue.hasPrefix(SnoozeChoices.actionKeyPrefix),
                let seconds = Int(rawValue.dropFirst(SnoozeChoices.actionKeyPrefix.count)), seconds > 0,
                SnoozeChoices.actionKey(seconds: seconds) == rawValue
            else { return nil }
            self = .snooze(seconds: seconds)
        }
    }
}

extension NotificationContent {
    /// The app name sent with every notification.
    package static let appName = "Reveille"
    /// The desktop entry (and app id).
    package static let desktopEntry = "io.github.reveille.Reveille"
    /// The icon (the desktop entry's): Reveille's own, installed into the hicolor theme
    /// (`desktop/icons/io.github.reveille.Reveille.svg`). No icon theme has an `alarm-clock`, which
    /// GNOME Shell showed as a broken image.
    package static let icon = "io.github.reveille.Reveille"
    /// The alert's category.
    package static let alertCategory = "x-reveille.alarm"
    /// The countdown's category.
    package static let countdownCategory = "x-reveille.countdown"

    /// The secondary action's key for an alert: `snooze` or `repeat` (`.countdown`; `repeat` for a
    /// timer or when the button says Repeat), `open` (`.custom`), or `nil` when there is none.
    package static func secondaryKey(for alert: AlarmPresentation.Alert, isTimer: Bool) -> String? {
        guard let button = alert.secondaryButton else { return nil }
        switch alert.secondaryButtonBehavior {
        case .countdown:
            return button == .repeatButton || (isTimer && button != .snoozeButton) ? "repeat" : "snooze"
        case .custom:
            return "open"
        case nil:
            return nil
        }
    }

    /// Whether a ringing alarm is offered the person's snooze choices: when its secondary action
    /// is Snooze (`snooze`: a secondary button that counts down, `.countdown`, and is not a timer's
    /// Repeat).
    ///
    /// Not for an alarm with no secondary button (its app or person gave it no snooze), nor with
    /// `.custom` (Open: the app decided what its second button does), nor a timer's Repeat (it
    /// starts the timer over; "Snooze 5 min" would be another thing beside it). The engine would
    /// snooze any ringing alarm for a chosen length; the notification offers it only where the
    /// alarm says it snoozes.
    package static func offersSnoozeChoices(_ record: AlarmRecord) -> Bool {
        secondaryKey(for: record.definition.presentation.alert, isTimer: record.definition.isTimer) == "snooze"
    }

    /// Whether the server shows the snooze choices: it must show more than two actions besides
    /// the bubble's own `default`.
    ///
    /// - dunst and mako put every action in a context menu (`dunstctl context`, `makoctl menu`);
    ///   xfce4-notifyd, SwayNotificationCenter and KDE Plasma draw a button for each.
    /// - GNOME Shell draws at most three buttons and drops the rest without a word: 43.9's
    ///   `js/ui/messageTray.js` has `MAX_NOTIFICATION_BUTTONS = 3`, and `NotificationBanner.addButton`
    ///   returns without adding one once `this._buttonBox.get_n_children() >= MAX_NOTIFICATION_BUTTONS`;
    ///   on its main branch the same limit is in `js/ui/messageList.js` (`_addAction`). Its
    ///   `notificationDaemon.js` makes no button of `default`, so Stop and Snooze are two of the
    ///   three, and two or more choices would be cut off: GNOME Shell gets none.
    /// - Any other server (Cinnamon, MATE, Budgie, one not known by name: `nil`) gets none either,
    ///   as what it shows is not known.
    package static func showsSnoozeChoices(_ desktop: NotificationDesktop?) -> Bool {
        switch desktop {
        case .dunst?, .mako?, .xfce?, .swaync?, .plasma?: true
        case .gnome?, .cinnamon?, .mate?, .budgie?, .other?, nil: false
        }
    }

    /// The first part of an alarm's id that `reveille stop` takes (8 hex digits, lowercase).
    package static func idPrefix(_ id: UUID) -> String { String(id.lowercasedText().prefix(8)) }

    /// The alert notification of a ringing alarm.
    ///
    /// Its icon is Reveille's own. Where the server draws `image-data` (`images.drawsImageData`),
    /// its image is the alarm's tint: a disc in the tint colour with the Stop button's glyph in the
    /// button's text colour (`TintImage`), as the countdown shows it, so a person tells whose alarm
    /// rings by its colour (GNOME Shell and dunst show it in the place of Reveille's icon; the
    /// summary and "Reveille" still name it). Where the server draws no image data but shows an
    /// image beside the icon (`images.keepsAppIcon`), the image is the Stop button's symbol
    /// (`systemImageName`, mapped by `SymbolIcons`, as `image-path`). The disc comes from
    /// `tintImages`, drawn there before the alert's instant; without it, it is drawn here.
    ///
    /// - Parameters:
    ///   - record: the alarm.
    ///   - hasActions: whether the server draws actions (`actions` capability) and is there at all;
    ///     when not, the body says how to stop the alarm from a terminal.
    ///   - timeZone: the zone the alarm's time is shown in.
    ///   - timeStyle: how the person reads times (12- or 24-hour, from the locale or GNOME).
    ///   - images: what the server does with an image.
    ///   - snoozeChoices: the snooze lengths the person chose; see `offersSnoozeChoices`.
    ///   - desktop: the notification server (from its `GetServerInformation` name), `nil` when not
    ///     known; the snooze choices are offered only where it shows them (`showsSnoozeChoices`).
    ///   - tintImages: the tint images drawn ahead of time, or `nil` to draw the image here.
    package static func alert(
        _ record: AlarmRecord, hasActions: Bool, timeZone: ZoneRules = .current, timeStyle: TimeStyle = .standard,
        images: ImageSupport = .none, snoozeChoices: SnoozeChoices = .none, desktop: NotificationDesktop? = nil,
        tintImages: TintImageCache? = nil
    ) -> NotificationContent {
        let alert = record.definition.presentation.alert
        var lines: [String] = []
        let time = alertTimeText(record, timeZone: timeZone, style: timeStyle)
        let label = record.definition.title
        lines.append(label.isEmpty ? time : "\(time) · \(label)")
        if !hasActions {
            lines.append(Translation.format("To stop it: reveille stop %s", idPrefix(record.id)))
        }
        // `default` is a click on the bubble; servers do not draw its label.
        var actions = [
            Action(key: "default", label: Translation.text("Show")),
            Action(key: "stop", label: Translation.text(alert.stopButton.text.key)),
        ]
        if let key = secondaryKey(for: alert, isTimer: record.definition.isTimer), let button = alert.secondaryButton {
            actions.append(Action(key: key, label: Translation.text(button.text.key)))
        }
        if hasActions, showsSnoozeChoices(desktop), offersSnoozeChoices(record) {
            actions += snoozeChoices.actions
        }
        var hints: [String: Hint] = [
            "urgency": .byte(2),
            "resident": .boolean(true),
            "suppress-sound": .boolean(true),
            "desktop-entry": .string(desktopEntry),
            "category": .string(alertCategory),
            "SWAYNC_BYPASS_DND": .boolean(true),
        ]
        if let (name, image) = buttonImage(
            tint: record.definition.tintColor, button: alert.stopButton, images: images, symbolAlone: images.keepsAppIcon,
            tintImages: tintImages)
        {
            hints[name] = image
        }
        return NotificationContent(
            summary: displayTitle(of: record.definition),
            body: Markup.escape(lines.joined(separator: "\n")),
            icon: icon,
            actions: actions,
            hints: hints,
            expireTimeout: 0)
    }

    /// The hint naming the image: an icon name or a URI.
    package static let imagePathHint = "image-path"
    /// The hint carrying the image's pixels.
    package static let imageDataHint = "image-data"

    /// The countdown notification of a running (`paused == false`) or paused countdown with
    /// `remaining` seconds left of `duration`; `nil` when the alarm has no presentation for it.
    ///
    /// Its image shows the button it offers: Pause while it runs, Resume while paused. Where the
    /// server draws `image-data` (`images.drawsImageData`), that is a disc in the alarm's tint
    /// colour with the button's glyph in the button's text colour (`TintImage`); elsewhere it is
    /// the button's symbol, mapped by `SymbolIcons`, as `image-path`; when neither applies there is
    /// no image and Reveille's icon shows. The disc comes from `tintImages` when given.
    package static func countdown(
        _ record: AlarmRecord, remaining: TimeInterval, duration: TimeInterval, paused: Bool, hasActions: Bool,
        images: ImageSupport = .none, tintImages: TintImageCache? = nil
    ) -> NotificationContent? {
        let presentation = record.definition.presentation
        guard let countdown = presentation.countdown else { return nil }
        let summary: String
        var actions: [Action] = []
        if paused {
            summary = Translation.text(presentation.paused?.title.key ?? countdown.title.key)
            actions.append(
                Action(key: "resume", label: Translation.text(presentation.paused?.resumeButton.text.key ?? Translation.marked("Resume"))))
        } else {
            summary = Translation.text(countdown.title.key)
            if let pause = countdown.pauseButton { actions.append(Action(key: "pause", label: Translation.text(pause.text.key))) }
        }
        actions.append(Action(key: "cancel", label: Translation.text("Cancel")))
        let left = DurationFormat.countdown(remaining)
        var body = paused ? Translation.format("Paused · %s left", left) : Translation.format("%s left", left)
        let label = record.definition.title
        if !label.isEmpty { body += " · \(label)" }
        if !hasActions { body += "\n" + Translation.format("To cancel it: reveille cancel %s", idPrefix(record.id)) }
        // The bar agrees with the text: both count the whole seconds left (rounded up), so a
        // refresh that lands a little after a second's boundary shows the same bar as one on it.
        let shownRemaining = TimeInterval(DurationFormat.wholeSeconds(remaining))
        let progress = duration > 0 ? Int32(max(0, min(100, ((duration - shownRemaining) / duration * 100).rounded()))) : 0
        var hints: [String: Hint] = [
            "urgency": .byte(0),
            "transient": .boolean(true),
            "suppress-sound": .boolean(true),
            "desktop-entry": .string(desktopEntry),
            "category": .string(countdownCategory),
            "value": .int32(progress),
        ]
        let button: AlarmButton? = paused ? (presentation.paused?.resumeButton ?? .resumeButton) : countdown.pauseButton
        if let (name, image) = buttonImage(
            tint: record.definition.tintColor, button: button, images: images, symbolAlone: true, tintImages: tintImages)
        {
            hints[name] = image
        }
        return NotificationContent(
            summary: summary.isEmpty ? Translation.text("Timer") : summary,
            body: Markup.escape(body),
            icon: icon,
            actions: actions,
            hints: hints,
            expireTimeout: 0)
    }

    /// The image hint of a notification that offers `button`, for an alarm tinted `tint`.
    ///
    /// Where the server draws `image-data` and the tint is not transparent: the tint disc with the
    /// button's glyph (`tintImageKey`): its PNG file as `image-path` when `tintImages` wrote it
    /// ahead (a `file://` URI, far less to carry over the bus than the pixels), else its pixels
    /// as `image-data`, from `tintImages` or drawn now. Otherwise, when `symbolAlone` allows it,
    /// the button's symbol as `image-path`; `nil` when there is neither.
    static func buttonImage(
        tint: Color, button: AlarmButton?, images: ImageSupport, symbolAlone: Bool, tintImages: TintImageCache?
    ) -> (name: String, hint: Hint)? {
        if images.drawsImageData, let key = tintImageKey(tint: tint, button: button) {
            if let file = tintImages?.fileURI(for: key) { return (imagePathHint, .string(file)) }
            return (imageDataHint, .image(tintImages?.image(for: key) ?? key.draw()))
        }
        guard symbolAlone, let symbol = button.flatMap({ SymbolIcons.iconName(forSymbol: $0.systemImageName) }) else { return nil }
        return (imagePathHint, .string(symbol))
    }

    /// The tint image of a notification that offers `button` (its glyph, in its text colour, on
    /// a disc of `tint`); `nil` for a transparent tint, which draws nothing.
    static func tintImageKey(tint: Color, button: AlarmButton?) -> TintImage.Key? {
        guard tint.bytes.opacity > 0 else { return nil }
        let symbol = button.flatMap { SymbolIcons.iconName(forSymbol: $0.systemImageName) }
        return TintImage.Key(tint: tint, glyph: symbol.flatMap(TintImage.Glyph.init(iconName:)), glyphColor: button?.textColor ?? .white)
    }

    /// Every tint image `record`'s notifications can show: its alert's (the Stop button), and its
    /// countdown's while running (Pause) and while paused (Resume).
    package static func tintImageKeys(for record: AlarmRecord) -> Set<TintImage.Key> {
        let presentation = record.definition.presentation
        var buttons: [AlarmButton?] = [presentation.alert.stopButton]
        if let countdown = presentation.countdown {
            buttons += [countdown.pauseButton, presentation.paused?.resumeButton ?? .resumeButton]
        }
        return Set(buttons.compactMap { tintImageKey(tint: record.definition.tintColor, button: $0) })
    }

    /// The hint Plasma shows beside the app's name in a notification's header, for a server that
    /// advertises it among its capabilities.
    package static let originHint = "x-kde-origin-name"

    /// This content naming the app that set `record` in `originHint` ("Reveille · Clocks" in
    /// Plasma's header), so a person sees whose alarm rings; unchanged for their own alarms.
    package func namingOrigin(of record: AlarmRecord) -> NotificationContent {
        guard let origin = AlarmOwner.displayName(of: record.owner) else { return self }
        var named = self
        named.hints[Self.originHint] = .string(origin)
        return named
    }

    /// The notification that an alarm's alerts were missed: they came while nothing could ring
    /// (the computer was off or asleep, or the agent was not running) and beyond the grace window.
    package static func missed(_ record: AlarmRecord, count: Int) -> NotificationContent {
        note(
            record,
            body: count == 1
                ? Translation.text("It was due while Reveille could not ring, and is past.")
                : Translation.plural(
                    "It was due %s time while Reveille could not ring.", "It was due %s times while Reveille could not ring.",
                    count: count, String(count)))
    }

    /// The notification that an alert rang until the ring time-out and nobody answered.
    package static func timedOut(
        _ record: AlarmRecord, timeZone: ZoneRules = .current, timeStyle: TimeStyle = .standard
    ) -> NotificationContent {
        note(
            record,
            body: Translation.format("It rang at %s and nobody answered.", alertTimeText(record, timeZone: timeZone, style: timeStyle)))
    }

    /// An alarm's title as the person reads it: its own, or "Alarm" / "Timer" in their language.
    package static func displayTitle(of definition: AlarmDefinition) -> String {
        guard definition.title.isEmpty else { return definition.title }
        return definition.isTimer ? Translation.text("Timer") : Translation.text("Alarm")
    }

    /// The labels of AlarmKit's own buttons (`AlarmButton.stopButton` and the rest), which arrive
    /// as an alarm's data and are translated when shown: marked here so the catalogs carry them.
    static let standardButtonLabels = [
        Translation.marked("Stop"), Translation.marked("Snooze"), Translation.marked("Repeat"),
        Translation.marked("Open"), Translation.marked("Pause"), Translation.marked("Resume"),
    ]

    /// A normal-urgency note about a missed alarm.
    private static func note(_ record: AlarmRecord, body: String) -> NotificationContent {
        NotificationContent(
            summary: Translation.format("Missed: %s", displayTitle(of: record.definition)),
            body: Markup.escape(body),
            icon: icon, actions: [],
            hints: [
                "urgency": .byte(1), "desktop-entry": .string(desktopEntry), "category": .string(alertCategory),
                "suppress-sound": .boolean(true),
            ],
            expireTimeout: -1)
    }

    /// The time an alert is for, as its notification shows it (`07:30`, `7:30 AM`): the instant
    /// it was scheduled for while it rings, otherwise its anchor.
    package static func alertTimeText(_ record: AlarmRecord, timeZone: ZoneRules = .current, style: TimeStyle) -> String {
        var when = record.anchor
        if case .alerting(let ringing) = record.phase { when = ringing.scheduledAt }
        return timeText(when, timeZone: timeZone, style: style)
    }

    /// The time of day in the zone, in the person's style (`07:30`, `7:30 AM`), by the zone's
    /// `ZoneRules`, as the alarm's instant was computed.
    static func timeText(_ date: Date, timeZone: ZoneRules, style: TimeStyle) -> String {
        let (hour, minute) = timeZone.clockTime(of: date)
        return style.clockText(hour: hour, minute: minute)
    }
}
