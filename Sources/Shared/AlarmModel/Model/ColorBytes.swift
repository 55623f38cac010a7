/// A colour's components as 8-bit values, for what draws it: a terminal's escape sequence, an
/// image's pixels.
public struct ColorBytes: Hashable, Sendable {
    /// Red, 0 to 255.
    public var red: UInt8
    /// Green, 0 to 255.
    public var green: UInt8
    /// Blue, 0 to 255.
    public var blue: UInt8
    /// Opacity, 0 (transparent) to 255 (opaque).
    public var opacity: UInt8

    /// Creates the bytes of a colour.
    public init(red: UInt8, green: UInt8, blue: UInt8, opacity: UInt8 = 255) {
        (self.red, self.green, self.blue, self.opacity) = (red, green, blue, opacity)
    }
}

extension Color {
    /// The components as bytes, rounded as `description` writes them (`#ff9500` is 255, 149, 0);
    /// a component below 0 or above 1 is clamped, and one that is not a number counts as 0.
    public var bytes: ColorBytes {
        func byte(_ component: Double) -> UInt8 {
            component.isNaN ? 0 : UInt8((min(max(component, 0), 1) * 255).rounded())
        }
        return ColorBytes(red: byte(red), green: byte(green), blue: byte(blue), opacity: byte(opacity))
    }
}
