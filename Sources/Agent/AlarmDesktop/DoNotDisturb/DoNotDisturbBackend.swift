/// One desktop's do-not-disturb: read it, be told when it changes (never by polling), and change
/// it, for the breakthrough to lift it while an alert rings and put it back after.
///
/// Implementations talk to the desktop (over D-Bus, or GSettings) and decide nothing: when to
/// lift and whether to restore is `Breakthrough`'s business.
package protocol DoNotDisturbBackend: AnyObject, Sendable {
    /// The desktop.
    var desktop: NotificationDesktop { get }
    /// The setting, as a person would look it up (`dunst paused`, `org.gnome.desktop.notifications show-banners`).
    var settingName: String { get }
    /// Reads the setting now.
    func read() async throws -> DoNotDisturbReading
    /// Starts watching: the stream yields whenever the setting (or what decides whether critical
    /// notifications show) may have changed; read again to learn the new value. Returns once the
    /// watch is in place, so a change after it returns is seen. The stream ends when `stop()` is called.
    func watch() async throws -> AsyncStream<Void>
    /// The value that turns do-not-disturb off, given the current one; `nil` when it cannot be
    /// changed from here (Plasma's `Inhibited` is read-only).
    func liftedValue(from value: DoNotDisturbValue) -> DoNotDisturbValue?
    /// Writes the setting, returning once the desktop has taken it.
    func write(_ value: DoNotDisturbValue) async throws
    /// Stops watching and lets go of what the backend holds.
    func stop()
}

/// Why a do-not-disturb setting could not be read or written.
package struct DoNotDisturbError: Error, Sendable, CustomStringConvertible {
    /// A sentence for the log and `reveille status`.
    package var description: String

    /// Creates an error.
    package init(_ description: String) { self.description = description }
}
