import FoundationEssentials

/// An action of the app's own that an alarm runs when it is stopped, or from its secondary
/// button: AlarmKit's `stopIntent` and `secondaryIntent`.
///
/// On Linux an intent is an action the app exports through `org.freedesktop.Application` on its
/// desktop entry's bus name. The agent calls `ActivateAction(applicationAction, [alarm id], …)`.
/// By default the action's name is the intent type's name (`StopIntent` → `StopIntent`).
public protocol LiveActivityIntent: Sendable {
    /// The name of the app's action to activate.
    var applicationAction: String { get }
}

extension LiveActivityIntent {
    /// The intent type's name.
    public var applicationAction: String { String(describing: Self.self) }
}

/// The action the agent runs for `.openAppButton` and `.custom` buttons without an intent:
/// `org.freedesktop.Application.Activate`, which opens the app.
public struct OpenAppIntent: LiveActivityIntent {
    /// Creates the intent.
    public init() {}
    /// The reserved name the agent maps to `Activate`.
    public var applicationAction: String { ApplicationActionName.activate }
}

/// Rules for names of `org.freedesktop.Application` actions.
public enum ApplicationActionName {
    /// The reserved name that means `Activate` (open the app) rather than an action.
    public static let activate = "activate"

    /// Whether a name is a desktop app id that is also a bus name: two or more dot-separated
    /// elements of letters, digits, `_` and `-`, not starting with a digit, at most 255 bytes.
    public static func isValidApplicationID(_ name: String) -> Bool {
        let elements = name.split(separator: ".", omittingEmptySubsequences: false)
        return name.utf8.count <= 255 && elements.count >= 2
            && elements.allSatisfy { element in
                guard let first = element.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
                return element.unicodeScalars.allSatisfy { isASCIILetterOrDigit($0) || $0 == "_" || $0 == "-" }
            }
    }

    /// Whether a name is a usable action name: 1 to 255 letters, digits, `-`, `_` or `.`.
    public static func isValid(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 255
            && name.unicodeScalars.allSatisfy { isASCIILetterOrDigit($0) || "-_.".unicodeScalars.contains($0) }
    }

    /// Whether a character is an ASCII letter or digit.
    static func isASCIILetterOrDigit(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
    }
}
