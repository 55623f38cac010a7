import FoundationEssentials

extension POSIXError {
    /// The same error as Foundation's `POSIXError`, for code that throws those (`EIO` for a number
    /// Foundation does not know).
    package init(_ errno: Errno) {
        self.init(POSIXError.Code(rawValue: errno.rawValue) ?? .EIO)
    }
}
