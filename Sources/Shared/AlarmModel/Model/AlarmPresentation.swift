import FoundationEssentials

/// What a person sees of an alarm while it alerts, counts down and is paused, as in AlarmKit.
public struct AlarmPresentation: Codable, Hashable, Sendable {
    /// The alert: title, Stop, and an optional secondary button.
    public var alert: Alert
    /// The countdown shown while a timer, pre-alert or snooze runs; `nil` shows none.
    public var countdown: Countdown?
    /// What is shown while the countdown is paused; `nil` shows none.
    public var paused: Paused?

    /// Creates a presentation with an alert and, when given, a countdown and a paused view, as
    /// AlarmKit's `init(alert:countdown:paused:)` (both default to none): `(alert:)`,
    /// `(alert:countdown:)`, `(alert:paused:)` and `(alert:countdown:paused:)` all read as Apple's do.
    public init(alert: Alert, countdown: Countdown? = nil, paused: Paused? = nil) {
        self.alert = alert
        self.countdown = countdown
        self.paused = paused
    }

    /// The alert a person sees while the alarm rings.
    public struct Alert: Codable, Hashable, Sendable {
        /// The title; the notification's summary.
        public var title: LocalizedStringResource
        /// The button that stops the alarm.
        public var stopButton: AlarmButton
        /// The second button: snooze or repeat (`.countdown`), or open the app (`.custom`).
        public var secondaryButton: AlarmButton?
        /// What the secondary button does.
        public var secondaryButtonBehavior: SecondaryButtonBehavior?

        /// Creates an alert.
        public init(
            title: LocalizedStringResource,
            stopButton: AlarmButton = .stopButton,
            secondaryButton: AlarmButton? = nil,
            secondaryButtonBehavior: SecondaryButtonBehavior? = nil
        ) {
            self.title = title
            self.stopButton = stopButton
            self.secondaryButton = secondaryButton
            self.secondaryButtonBehavior = secondaryButtonBehavior
        }

        /// What the secondary button of an alert does.
        public enum SecondaryButtonBehavior: String, Codable, Hashable, Sendable {
            /// Starts the `postAlert` countdown (snooze, repeat); the alarm alerts again at its end.
            case countdown
            /// Runs the app's own secondary intent (on Linux: activates the app's action).
            case custom
        }
    }

    /// The countdown a person sees while a timer, a pre-alert or a snooze runs.
    public struct Countdown: Codable, Hashable, Sendable {
        /// The title shown above the time left.
        public var title: LocalizedStringResource
        /// The button that pauses the countdown.
        public var pauseButton: AlarmButton?

        /// Creates a countdown presentation.
        public init(title: LocalizedStringResource, pauseButton: AlarmButton? = nil) {
            self.title = title
            self.pauseButton = pauseButton
        }
    }

    /// What a person sees while a countdown is paused.
    public struct Paused: Codable, Hashable, Sendable {
        /// The title shown with the time left.
        public var title: LocalizedStringResource
        /// The button that resumes the countdown.
        public var resumeButton: AlarmButton

        /// Creates a paused presentation.
        public init(title: LocalizedStringResource, resumeButton: AlarmButton) {
            self.title = title
            self.resumeButton = resumeButton
        }
    }
}

/// A button on an alarm's alert or countdown: a label, its colour and an icon name.
public struct AlarmButton: Codable, Hashable, Sendable {
    /// The label.
    public var text: LocalizedStringResource
    /// The label's colour, where the desktop can show one.
    public var textColor: Color
    /// An icon name (SF Symbols names on Apple's systems; a freedesktop icon name here).
    public var systemImageName: String

    /// Creates a button.
    public init(text: LocalizedStringResource, textColor: Color, systemImageName: String) {
        self.text = text
        self.textColor = textColor
        self.systemImageName = systemImageName
    }

    /// Creates a button with only a label: white text and no icon.
    ///
    /// Not in Apple's AlarmKit, whose only initializer is `init(text:textColor:systemImageName:)`;
    /// it is here for code written from the AlarmKit guide Xcode's assistant ships, which creates
    /// buttons as `AlarmButton(label: "Taken")`.
    public init(label: LocalizedStringResource) {
        self.init(text: label, textColor: .white, systemImageName: "")
    }
}

extension AlarmButton {
    /// "Stop", which ends the alert.
    public static let stopButton = AlarmButton(text: "Stop", textColor: .white, systemImageName: "stop.circle")
    /// "Snooze", which starts the `postAlert` countdown.
    public static let snoozeButton = AlarmButton(text: "Snooze", textColor: .white, systemImageName: "zzz")
    /// "Repeat", which restarts a timer for its `postAlert` duration.
    public static let repeatButton = AlarmButton(
        text: "Repeat", textColor: .white, systemImageName: "repeat.circle")
    /// "Open", which opens the app that scheduled the alarm.
    public static let openAppButton = AlarmButton(
        text: "Open", textColor: .white, systemImageName: "arrow.right.circle.fill")
    /// "Pause", which pauses a countdown.
    public static let pauseButton = AlarmButton(text: "Pause", textColor: .white, systemImageName: "pause.fill")
    /// "Resume", which resumes a paused countdown.
    public static let resumeButton = AlarmButton(text: "Resume", textColor: .white, systemImageName: "play.fill")
}

/// A colour for an alarm's tint and button labels, standing in for SwiftUI's `Color`.
///
/// Stored and sent as sRGB components; the common named colours match SwiftUI's light-mode values.
public struct Color: Codable, Hashable, Sendable, CustomStringConvertible {
    /// Red, 0 to 1.
    public var red: Double
    /// Green, 0 to 1.
    public var green: Double
    /// Blue, 0 to 1.
    public var blue: Double
    /// Opacity, 0 to 1.
    public var opacity: Double

    /// Creates a colour from sRGB components.
    public init(red: Double, green: Double, blue: Double, opacity: Double = 1) {
        self.red = red
        self.green = green
        self.blue = blue
        self.opacity = opacity
    }

    /// The colour as `#rrggbb` (or `#rrggbbaa` when not opaque).
    public var description: String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = [UInt8(ascii: "#")]
        text.reserveCapacity(9)
        for component in opacity < 1 ? [red, green, blue, opacity] : [red, green, blue] {
            let byte = component.isNaN ? 0 : Int((min(max(component, 0), 1) * 255).rounded())
            text.append(digits[byte >> 4])
            text.append(digits[byte & 0xF])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Reads `#rrggbb` or `#rrggbbaa` (ASCII hex digits, either case); `nil` for anything else.
    ///
    /// Only ASCII digits count: `Character.isHexDigit` also accepts fullwidth forms such as `０`,
    /// which no hex parser reads.
    public init?(hex text: String) {
        let bytes = Array(text.utf8)
        guard bytes.first == UInt8(ascii: "#"), bytes.count == 7 || bytes.count == 9 else { return nil }
        var values: [Double] = []
        for index in stride(from: 1, to: bytes.count, by: 2) {
            guard let high = Self.hexValue(bytes[index]), let low = Self.hexValue(bytes[index + 1]) else { return nil }
            values.append(Double(high * 16 + low) / 255)
        }
        self.init(red: values[0], green: values[1], blue: values[2], opacity: values.count == 4 ? values[3] : 1)
    }

    /// The value of an ASCII hex digit, or `nil`.
    private static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(byte - UInt8(ascii: "a")) + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): Int(byte - UInt8(ascii: "A")) + 10
        default: nil
        }
    }

    private init(_ red: Int, _ green: Int, _ blue: Int) {
        self.init(red: Double(red) / 255, green: Double(green) / 255, blue: Double(blue) / 255)
    }

    /// Red.
    public static let red = Color(255, 59, 48)
    /// Orange.
    public static let orange = Color(255, 149, 0)
    /// Yellow.
    public static let yellow = Color(255, 204, 0)
    /// Green.
    public static let green = Color(52, 199, 89)
    /// Mint.
    public static let mint = Color(0, 199, 190)
    /// Teal.
    public static let teal = Color(48, 176, 199)
    /// Cyan.
    public static let cyan = Color(50, 173, 230)
    /// Blue.
    public static let blue = Color(0, 122, 255)
    /// Indigo.
    public static let indigo = Color(88, 86, 214)
    /// Purple.
    public static let purple = Color(175, 82, 222)
    /// Pink.
    public static let pink = Color(255, 45, 85)
    /// Brown.
    public static let brown = Color(162, 132, 94)
    /// Gray.
    public static let gray = Color(142, 142, 147)
    /// White.
    public static let white = Color(255, 255, 255)
    /// Black.
    public static let black = Color(0, 0, 0)
    /// Fully transparent.
    public static let clear = Color(red: 0, green: 0, blue: 0, opacity: 0)
    /// The desktop's accent colour; Reveille uses blue.
    public static let accentColor = Color.blue
}
