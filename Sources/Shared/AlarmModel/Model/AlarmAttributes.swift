import FoundationEssentials

/// App-defined data carried with an alarm, as AlarmKit's `AlarmMetadata`.
public protocol AlarmMetadata: Codable, Hashable, Sendable {}

/// The presentation, metadata and tint of an alarm, as AlarmKit's `AlarmAttributes`.
public struct AlarmAttributes<Metadata: AlarmMetadata>: Codable, Hashable, Sendable {
    /// What a person sees while the alarm alerts, counts down and is paused.
    public var presentation: AlarmPresentation
    /// The app's own data for this alarm.
    public var metadata: Metadata?
    /// The colour the desktop tints the alarm with, where it can.
    public var tintColor: Color

    /// Creates alarm attributes.
    public init(presentation: AlarmPresentation, metadata: Metadata? = nil, tintColor: Color) {
        self.presentation = presentation
        self.metadata = metadata
        self.tintColor = tintColor
    }
}

/// Metadata for alarms that carry none.
public struct EmptyAlarmMetadata: AlarmMetadata {
    /// Creates empty metadata.
    public init() {}
}
