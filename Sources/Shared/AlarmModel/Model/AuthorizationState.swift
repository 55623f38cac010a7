import FoundationEssentials

extension AlarmManager {
    /// Whether an app may schedule alarms, as AlarmKit's `AlarmManager.AuthorizationState`.
    public enum AuthorizationState: String, Codable, Hashable, Sendable, CaseIterable {
        /// The person has not been asked yet.
        case notDetermined
        /// The person said no.
        case denied
        /// The person allowed it.
        case authorized
    }
}

/// A person's answer about one app, as the agent stores it.
public struct AppAuthorization: Hashable, Sendable {
    /// The longest app identity the agent stores an answer for, in UTF-8 bytes.
    public static let maximumAppLength = 4_096

    /// The app's identity (a Flatpak or desktop app id, or an executable path).
    public var app: String
    /// The answer.
    public var state: AlarmManager.AuthorizationState
    /// When it was given.
    public var decidedAt: Date

    /// Creates an answer.
    public init(app: String, state: AlarmManager.AuthorizationState, decidedAt: Date) {
        self.app = app
        self.state = state
        self.decidedAt = decidedAt
    }
}
