import AgentRuntime
import FoundationEssentials
import LinuxSystem
import Synchronization

/// Reports changes of one entry of a folder, through inotify: the file naming the system time zone
/// (`/etc/localtime`), or the system bus's socket coming back.
///
/// The file is often one that is replaced rather than changed (a symbolic link that tools replace
/// by renaming a new one over it, a socket a restarted daemon makes anew), so the watch is on its
/// folder, for entries of its name being created, moved in, written, deleted or changed in their
/// attributes. Nothing is polled: the inotify descriptor is read when the kernel says it is
/// readable (on the agent's event loop).
package final class FileEntryWatcher: Sendable {
    /// The watched file.
    package let path: String
    /// One element for each batch of events about the file, in order; it finishes when `stop()` is
    /// called or the folder goes away. Several events in quick succession (a link deleted, then
    /// created) may come as one element or as several.
    package let changes: AsyncStream<Void>

    private let descriptor: FileDescriptor
    private let name: [UInt8]
    private let continuation: AsyncStream<Void>.Continuation
    private let watch = Mutex<EventLoop.Watch?>(nil)

    /// The events that mean the entry may be another file now.
    private static let mask: InotifyEvents = [.created, .movedTo, .closedAfterWriting, .deleted, .attributesChanged]

    /// Starts watching `path`'s folder for changes of `path`. Throws a `POSIXError` when inotify
    /// cannot be set up or the folder cannot be watched (it does not exist, or no inotify watches
    /// are left).
    package init(path: String) throws {
        let url = URL(fileURLWithPath: path)
        self.path = path
        name = Array(url.lastPathComponent.utf8)
        (changes, continuation) = AsyncStream.makeStream(of: Void.self)
        do {
            descriptor = try FileDescriptor.inotify()
        } catch {
            throw POSIXError(error)
        }
        do {
            try descriptor.addWatch(url.deletingLastPathComponent().path, events: Self.mask.union(.onlyDirectory))
        } catch {
            try? descriptor.close()
            throw POSIXError(error)
        }
        let descriptor = self.descriptor
        do {
            let watch = try EventLoop.shared.watchReadable(descriptor) { [weak self] in self?.readEvents() }
            self.watch.withLock { $0 = watch }
        } catch {
            try? descriptor.close()
            throw POSIXError(error)
        }
    }

    /// Stops watching and finishes `changes`.
    package func stop() {
        // The descriptor is closed once, by whoever takes the watch: after it no longer runs.
        if let watch = watch.withLock({ $0.take() }) {
            watch.cancel()
            try? descriptor.close()
        }
        continuation.finish()
    }

    deinit { stop() }

    /// Reads every queued event; yields once when any is about the file, finishes when the watch
    /// is gone (`IN_IGNORED`: the folder was deleted or unmounted).
    private func readEvents() {
        var mentioned = false
        var ended = false
        // Large enough for many events with names up to NAME_MAX; aligned for the event header.
        var buffer = [UInt64](repeating: 0, count: 4096 / 8)
        while true {
            let count = (try? buffer.withUnsafeMutableBytes { bytes throws(Errno) in try descriptor.read(into: bytes) }) ?? 0
            guard count > 0 else { break }
            buffer.withUnsafeBytes { bytes in
                var offset = 0
                // struct inotify_event: int wd; uint32_t mask, cookie, len; char name[len].
                while offset + 16 <= count {
                    let mask = InotifyEvents(rawValue: bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self))
                    let length = Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                    let nameBytes = bytes[(offset + 16)..<min(count, offset + 16 + length)].prefix { $0 != 0 }
                    if mask.contains(.queueOverflow) {
                        mentioned = true  // events were lost: the file may have changed
                    } else if mask.contains(.watchRemoved) {
                        ended = true
                    } else if Array(nameBytes) == name {
                        mentioned = true
                    }
                    offset += 16 + length
                }
            }
        }
        if mentioned { continuation.yield() }
        if ended { stop() }
    }
}
