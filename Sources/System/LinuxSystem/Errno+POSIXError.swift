import Foundation

extension POSIXError {
    /// The same error as Foundation's `POSIXError`, for code that throws those (`EIO` for a number
    /// Foundation does not know).
    package init(_ errno: Errno) {
        self.init(POSIXErrorCode(rawValue: errno.rawValue) ?? .EIO)
    }
}
