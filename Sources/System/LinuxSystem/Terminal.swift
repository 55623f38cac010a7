#if canImport(Glibc)
import Glibc
#endif

/// A terminal's modes (`struct termios`), as read by `terminalModes()`.
package struct TerminalModes {
    /// The C structure.
    fileprivate var modes: termios

    /// These modes made raw (`cfmakeraw`: keys arrive one by one, unechoed, Ctrl-C as a byte),
    /// still turning `\n` into `\r\n` on output when `keepingOutputProcessing` (`OPOST`).
    package func raw(keepingOutputProcessing: Bool) -> TerminalModes {
        var raw = modes
        cfmakeraw(&raw)
        if keepingOutputProcessing { raw.c_oflag |= tcflag_t(OPOST) }
        return TerminalModes(modes: raw)
    }
}

/// When `setTerminalModes` takes effect.
package enum TerminalModeChange: Sendable {
    /// `TCSANOW`: at once.
    case now
    /// `TCSAFLUSH`: once output is written, discarding unread input.
    case afterFlushingInput
}

extension FileDescriptor {
    /// The modes of the terminal open on this descriptor (`tcgetattr(3)`); `.notATerminal` when it
    /// is not one.
    package func terminalModes() throws(Errno) -> TerminalModes {
        var modes = termios()
        _ = try systemCall(.terminalGetAttributes) { tcgetattr(rawValue, &modes) }
        return TerminalModes(modes: modes)
    }

    /// The size of the terminal open on this descriptor, in character cells (`ioctl(TIOCGWINSZ)`);
    /// `.notATerminal` when it is not one. A terminal that does not know its size says 0.
    package func terminalSize() throws(Errno) -> (columns: Int, rows: Int) {
        var size = winsize()
        _ = try systemCall(.terminalSize) { ioctl(rawValue, UInt(TIOCGWINSZ), &size) }
        return (Int(size.ws_col), Int(size.ws_row))
    }

    /// Sets the modes of the terminal open on this descriptor (`tcsetattr(3)`).
    package func setTerminalModes(_ modes: TerminalModes, _ change: TerminalModeChange) throws(Errno) {
        var modes = modes.modes
        let action = change == .now ? TCSANOW : TCSAFLUSH
        _ = try systemCall(.terminalSetAttributes) { tcsetattr(rawValue, action, &modes) }
    }
}
