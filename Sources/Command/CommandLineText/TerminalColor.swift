import AlarmModel
/// How a terminal is sent colour: as 24-bit RGB or as the nearest entry of the 256-colour palette.
///
/// `reveille list` and `reveille watch` draw each alarm's id in the alarm's tint colour with these
/// SGR sequences, and end it with `ESC[39m` (the default foreground), so that other styles stay.
package enum TerminalColor: Hashable, Sendable {
    /// `ESC[38;2;R;G;Bm`: the terminal takes any RGB colour.
    case trueColor
    /// `ESC[38;5;Nm`: the nearest of the xterm 256-colour palette's 240 fixed colours (the 6×6×6
    /// cube, 16…231, and the grey ramp, 232…255); the first 16 are left out, since each terminal
    /// and theme draws them differently.
    case palette256

    /// The colour a terminal gets, or `nil` for none, from whether the output is a terminal and the
    /// environment:
    ///
    /// - none when the output is not a terminal (a file, a pipe: the text stays plain for scripts);
    /// - none when `NO_COLOR` is set and not empty (no-color.org);
    /// - none when `TERM` is `dumb`, empty or unset;
    /// - 24-bit when `COLORTERM` is `truecolor` or `24bit` (either case), as terminals that draw
    ///   RGB colour announce it;
    /// - otherwise the 256-colour palette, which terminals in use today draw.
    package static func detect(isTerminal: Bool, environment: [String: String]) -> TerminalColor? {
        guard isTerminal else { return nil }
        if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return nil }
        guard let term = environment["TERM"], !term.isEmpty, term != "dumb" else { return nil }
        switch environment["COLORTERM"]?.lowercased() {
        case "truecolor", "24bit": return .trueColor
        default: return .palette256
        }
    }

    /// The sequence that sets the foreground to `color` (its opacity is not drawn).
    package func foreground(_ color: Color) -> String {
        let bytes = color.bytes
        switch self {
        case .trueColor:
            return "\u{1B}[38;2;\(bytes.red);\(bytes.green);\(bytes.blue)m"
        case .palette256:
            return "\u{1B}[38;5;\(Self.paletteIndex(red: bytes.red, green: bytes.green, blue: bytes.blue))m"
        }
    }

    /// The sequence that puts the default foreground back.
    package static let defaultForeground = "\u{1B}[39m"

    /// `text` drawn in `color`, then the default foreground; `text` alone for a fully transparent
    /// colour (`Color.clear`), which has nothing to show.
    package func painting(_ text: String, in color: Color) -> String {
        guard color.bytes.opacity > 0 else { return text }
        return foreground(color) + text + Self.defaultForeground
    }

    /// The levels of the 256-colour palette's cube: entry `16 + 36 r + 6 g + b` is
    /// (`cubeLevels[r]`, `cubeLevels[g]`, `cubeLevels[b]`).
    static let cubeLevels: [Int] = [0, 95, 135, 175, 215, 255]

    /// The palette entry nearest to an RGB colour (by squared distance in RGB): the nearest cube
    /// colour, or the grey of the ramp (232…255: 8, 18, …, 238) nearest to the colour's mean
    /// when that one is closer.
    package static func paletteIndex(red: UInt8, green: UInt8, blue: UInt8) -> Int {
        let target = [Int(red), Int(green), Int(blue)]
        func nearestLevel(_ value: Int) -> Int {
            cubeLevels.indices.min { abs(cubeLevels[$0] - value) < abs(cubeLevels[$1] - value) }!
        }
        func distance(_ other: [Int]) -> Int { zip(target, other).reduce(0) { $0 + ($1.0 - $1.1) * ($1.0 - $1.1) } }
        let cube = target.map(nearestLevel)
        let cubeDistance = distance(cube.map { cubeLevels[$0] })
        let mean = target.reduce(0, +) / 3
        let greyStep = min(23, max(0, (mean - 3) / 10))
        let grey = 8 + 10 * greyStep
        // A tie keeps the cube, whose pure colours match exactly (0, 95, …).
        if distance([grey, grey, grey]) < cubeDistance { return 232 + greyStep }
        return 16 + 36 * cube[0] + 6 * cube[1] + cube[2]
    }
}
