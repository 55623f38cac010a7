import AlarmModel

/// An image as the notification specification's `image-data` hint carries it: the D-Bus
/// structure `(iiibiiay)` of width, height, rowstride, has-alpha, bits per sample, channels and
/// the pixels, row by row, in RGB(A) byte order (the layout of a gdk-pixbuf).
package struct NotificationImage: Hashable, Sendable {
    /// Width in pixels.
    package var width: Int32
    /// Height in pixels.
    package var height: Int32
    /// Bytes from the start of one row to the start of the next.
    package var rowstride: Int32
    /// Whether each pixel has an alpha byte.
    package var hasAlpha: Bool
    /// Always 8.
    package var bitsPerSample: Int32
    /// 4 with alpha, otherwise 3.
    package var channels: Int32
    /// The pixels: `height` rows of `rowstride` bytes, each pixel R, G, B (and A), not premultiplied.
    package var data: [UInt8]

    /// The pixel at column `x`, row `y`, as R, G, B, A (A is 255 without alpha).
    package func pixel(x: Int, y: Int) -> ColorBytes {
        let start = y * Int(rowstride) + x * Int(channels)
        return ColorBytes(
            red: data[start], green: data[start + 1], blue: data[start + 2], opacity: hasAlpha ? data[start + 3] : 255)
    }
}

/// A notification's image where the server draws `image-data`: a disc in the alarm's tint colour
/// on a transparent square, and on it the glyph of the button the notification offers (the stop
/// square on an alert, the pause bars while a countdown runs, the play triangle while it is
/// paused) in the button's text colour, as AlarmKit draws a tinted button. Drawn in pure Swift,
/// with 4×4 samples a pixel for smooth edges.
package enum TintImage {
    /// What one image is drawn from: the same key always draws the same pixels.
    package struct Key: Hashable, Sendable {
        /// The disc's colour.
        package var tint: Color
        /// The glyph on it, if any.
        package var glyph: Glyph?
        /// The glyph's colour.
        package var glyphColor: Color

        /// Names the image of `disc(tint:glyph:glyphColor:)`.
        package init(tint: Color, glyph: Glyph?, glyphColor: Color) {
            self.tint = tint
            self.glyph = glyph
            self.glyphColor = glyphColor
        }

        /// The image, drawn now.
        package func draw() -> NotificationImage { TintImage.disc(tint: tint, glyph: glyph, glyphColor: glyphColor) }
    }

    /// A glyph drawn on the disc.
    package enum Glyph: Hashable, Sendable {
        /// Two upright bars.
        case pause
        /// A triangle pointing right.
        case play
        /// A square.
        case stop

        /// The glyph for an icon name of `SymbolIcons`, or `nil` for one that is not drawn.
        package init?(iconName: String) {
            switch iconName {
            case "media-playback-pause": self = .pause
            case "media-playback-start": self = .play
            case "media-playback-stop": self = .stop
            default: return nil
            }
        }
    }

    /// The side of the image in pixels: 48, the size notification servers draw an image at.
    package static let size = 48

    /// Samples a pixel across and down.
    static let samples = 4

    /// The image: a disc of `tint` filling a `size`×`size` square (with a pixel's margin) and,
    /// when given, `glyph` in `glyphColor` over its middle; RGBA, transparent around the disc.
    package static func disc(tint: Color, glyph: Glyph? = nil, glyphColor: Color = .white, size: Int = size) -> NotificationImage {
        let side = Double(size)
        let center = side / 2
        let radius = center - 1
        let tintBytes = tint.bytes
        let glyphBytes = glyphColor.bytes
        var data = [UInt8](repeating: 0, count: size * size * 4)
        let count = Double(samples * samples)
        for y in 0..<size {
            for x in 0..<size {
                // Premultiplied sums over the samples.
                var red = 0.0, green = 0.0, blue = 0.0, alpha = 0.0
                for sy in 0..<samples {
                    for sx in 0..<samples {
                        let px = Double(x) + (Double(sx) + 0.5) / Double(samples)
                        let py = Double(y) + (Double(sy) + 0.5) / Double(samples)
                        let dx = px - center, dy = py - center
                        guard dx * dx + dy * dy <= radius * radius else { continue }
                        // The glyph over the tint, "over" compositing.
                        var color = (Double(tintBytes.red), Double(tintBytes.green), Double(tintBytes.blue))
                        var opacity = Double(tintBytes.opacity) / 255
                        if let glyph, covers(glyph, x: dx / side, y: dy / side) {
                            let glyphOpacity = Double(glyphBytes.opacity) / 255
                            let under = opacity * (1 - glyphOpacity)
                            let total = glyphOpacity + under
                            if total > 0 {
                                color = (
                                    (Double(glyphBytes.red) * glyphOpacity + color.0 * under) / total,
                                    (Double(glyphBytes.green) * glyphOpacity + color.1 * under) / total,
                                    (Double(glyphBytes.blue) * glyphOpacity + color.2 * under) / total
                                )
                            }
                            opacity = total
                        }
                        red += color.0 * opacity
                        green += color.1 * opacity
                        blue += color.2 * opacity
                        alpha += opacity
                    }
                }
                let start = (y * size + x) * 4
                guard alpha > 0 else { continue }
                data[start] = byte(red / alpha)
                data[start + 1] = byte(green / alpha)
                data[start + 2] = byte(blue / alpha)
                data[start + 3] = byte(alpha / count * 255)
            }
        }
        return NotificationImage(
            width: Int32(size), height: Int32(size), rowstride: Int32(size * 4), hasAlpha: true, bitsPerSample: 8,
            channels: 4, data: data)
    }

    /// Whether `glyph` covers the point (`x`, `y`), measured from the image's centre in sides.
    static func covers(_ glyph: Glyph, x: Double, y: Double) -> Bool {
        switch glyph {
        case .pause:
            // Bars 0.12 wide, 0.40 high, 0.12 apart.
            return abs(y) <= 0.2 && (0.06...0.18).contains(abs(x))
        case .stop:
            return abs(x) <= 0.16 && abs(y) <= 0.16
        case .play:
            // From (-0.12, ±0.2) to (0.22, 0): its centre of area sits near the middle.
            guard x >= -0.12, x <= 0.22 else { return false }
            return abs(y) <= 0.2 * (0.22 - x) / 0.34
        }
    }

    private static func byte(_ value: Double) -> UInt8 {
        UInt8(min(max(value, 0), 255).rounded())
    }
}
