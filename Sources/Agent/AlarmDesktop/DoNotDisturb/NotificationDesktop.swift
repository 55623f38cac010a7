/// Which desktop's notification server shows alerts, and so where its do-not-disturb lives.
///
/// Found from `GetServerInformation` (the server's name and vendor) and, when the name says
/// nothing known, from the interfaces and bus names the server offers (see `ServerDetector`).
package enum NotificationDesktop: String, Sendable, Hashable, Codable, CaseIterable {
    /// GNOME Shell: GSettings `org.gnome.desktop.notifications show-banners`.
    case gnome
    /// KDE Plasma: the server's `Inhibited` property.
    case plasma
    /// xfce4-notifyd: xfconf `xfce4-notifyd` `/do-not-disturb`.
    case xfce
    /// dunst: `org.dunstproject.cmd0` `paused` (or `pauseLevel`).
    case dunst
    /// mako: its modes (`do-not-disturb`).
    case mako
    /// SwayNotificationCenter: `GetDnd`, `SubscribeV2`.
    case swaync
    /// Cinnamon: GSettings `org.cinnamon.desktop.notifications display-notifications`.
    case cinnamon
    /// MATE: GSettings `org.mate.NotificationDaemon do-not-disturb`.
    case mate
    /// Budgie (Raven): budgie-daemon's `GetDoNotDisturb`; critical notifications show during it.
    case budgie
    /// A server Reveille does not know: its do-not-disturb is not read.
    case other

    /// The desktop a server's `GetServerInformation` name and vendor name, or `nil` when neither
    /// says (the detector then looks at the interfaces the server offers).
    package static func from(serverName name: String, vendor: String) -> NotificationDesktop? {
        let name = name.lowercased()
        let vendor = vendor.lowercased()
        switch true {
        case name == "dunst": return .dunst
        case name == "mako": return .mako
        case name.contains("swaync") || name.contains("swaynotificationcenter"): return .swaync
        case name.contains("xfce"): return .xfce
        case name == "plasma" || vendor == "kde": return .plasma
        case name == "gnome-shell": return .gnome
        case name.contains("cinnamon"): return .cinnamon
        case vendor == "mate" || name.contains("mate-notification"): return .mate
        case name.contains("budgie") || name == "raven" || vendor.contains("budgie"): return .budgie
        default: return nil
        }
    }

    /// How a person calls it, for `reveille status`.
    package var displayName: String {
        switch self {
        case .gnome: "GNOME"
        case .plasma: "KDE Plasma"
        case .xfce: "XFCE"
        case .dunst: "dunst"
        case .mako: "mako"
        case .swaync: "SwayNotificationCenter"
        case .cinnamon: "Cinnamon"
        case .mate: "MATE"
        case .budgie: "Budgie"
        case .other: "this server"
        }
    }
}
