#if canImport(Glibc)
import Glibc
#endif

/// The events of an inotify watch (`IN_…`).
package struct InotifyEvents: OptionSet, Hashable, Sendable {
    /// The `IN_` bits.
    package let rawValue: UInt32
    /// The events with bits `rawValue`.
    package init(rawValue: UInt32) { self.rawValue = rawValue }

    /// `IN_CREATE`: an entry was created in the folder.
    package static let created = InotifyEvents(rawValue: UInt32(IN_CREATE))
    /// `IN_MOVED_TO`: an entry was moved into the folder.
    package static let movedTo = InotifyEvents(rawValue: UInt32(IN_MOVED_TO))
    /// `IN_CLOSE_WRITE`: a file open for writing was closed.
    package static let closedAfterWriting = InotifyEvents(rawValue: UInt32(IN_CLOSE_WRITE))
    /// `IN_DELETE`: an entry was deleted from the folder.
    package static let deleted = InotifyEvents(rawValue: UInt32(IN_DELETE))
    /// `IN_ATTRIB`: metadata changed.
    package static let attributesChanged = InotifyEvents(rawValue: UInt32(IN_ATTRIB))
    /// `IN_ONLYDIR` (when adding a watch): fails unless the path is a folder.
    package static let onlyDirectory = InotifyEvents(rawValue: UInt32(IN_ONLYDIR))
    /// `IN_Q_OVERFLOW` (reported): events were lost.
    package static let queueOverflow = InotifyEvents(rawValue: UInt32(IN_Q_OVERFLOW))
    /// `IN_IGNORED` (reported): the watch is gone (its folder was deleted or unmounted).
    package static let watchRemoved = InotifyEvents(rawValue: UInt32(IN_IGNORED))
}

extension FileDescriptor {
    /// Makes an inotify instance (`inotify_init1(2)`), close-on-exec and non-blocking.
    package static func inotify() throws(Errno) -> FileDescriptor {
        FileDescriptor(rawValue: try systemCall(.inotifyInit) { inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC)) })
    }

    /// Watches `path` for `events` on an inotify instance (`inotify_add_watch(2)`); returns the
    /// watch's number.
    @discardableResult
    package func addWatch(_ path: String, events: InotifyEvents) throws(Errno) -> Int32 {
        try systemCall(.inotifyAddWatch) { inotify_add_watch(rawValue, path, events.rawValue) }
    }
}
