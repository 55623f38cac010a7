import AlarmRecords

/// One alarm's change, as the engine reports it to whoever prepares ahead of the alerts
/// (`AlarmEngine.observeChanges(_:)`; the desktop presenter draws the tint images it will need).
package enum AlarmChange: Hashable, Sendable {
    /// The alarm is new or changed: its record now.
    case updated(AlarmRecord)
    /// The alarm is gone: its last record.
    case removed(AlarmRecord)
}
