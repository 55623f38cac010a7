import FoundationEssentials

extension Dictionary where Key == FileAttributeKey, Value == Any {
    /// The file's size in bytes (`.size`); `nil` when it is missing.
    ///
    /// Foundation Essentials gives the size as `UInt`, where swift-corelibs-foundation gave an
    /// `NSNumber` that `as? Int` also read: `as? Int` alone is always `nil` in the installed program.
    package var fileSize: Int? {
        switch self[.size] {
        case let size as Int: size
        case let size as UInt: Int(exactly: size)
        case let size as Int64: Int(exactly: size)
        case let size as UInt64: Int(exactly: size)
        default: nil
        }
    }
}
