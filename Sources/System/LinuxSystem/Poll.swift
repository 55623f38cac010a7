#if canImport(Glibc)
import Glibc
#endif

/// The events `poll(2)` waits for and reports (`POLLIN`, …).
package struct PollEvents: OptionSet, Hashable, Sendable {
    /// The `POLL` bits.
    package let rawValue: Int16
    /// The events with bits `rawValue`.
    package init(rawValue: Int16) { self.rawValue = rawValue }

    /// `POLLIN`: there is something to read.
    package static let readable = PollEvents(rawValue: Int16(POLLIN))
    /// `POLLOUT`: a write would not block.
    package static let writable = PollEvents(rawValue: Int16(POLLOUT))
    /// `POLLERR`: an error condition (reported whether asked for or not).
    package static let error = PollEvents(rawValue: Int16(POLLERR))
    /// `POLLHUP`: hung up (reported whether asked for or not).
    package static let hangUp = PollEvents(rawValue: Int16(POLLHUP))
    /// `POLLNVAL`: the descriptor is not open (reported whether asked for or not).
    package static let invalid = PollEvents(rawValue: Int16(POLLNVAL))
}

/// One descriptor for `poll`: what to wait for, and what happened. The same memory as a C
/// `struct pollfd`, so that a C library can fill an array of them (`withUnsafeCPollDescriptors`).
package struct PollDescriptor: Sendable {
    /// The `struct pollfd` itself; its only stored property.
    private var entry: pollfd

    /// Waits for `events` on `descriptor`.
    package init(_ descriptor: FileDescriptor, events: PollEvents) {
        entry = pollfd(fd: descriptor.rawValue, events: events.rawValue, revents: 0)
    }

    /// An entry with no descriptor (-1: ignored by `poll`), for a C library to fill.
    package init() { entry = pollfd(fd: -1, events: 0, revents: 0) }

    /// The descriptor.
    package var descriptor: FileDescriptor { FileDescriptor(rawValue: entry.fd) }
    /// What to wait for.
    package var events: PollEvents { PollEvents(rawValue: entry.events) }
    /// What `poll` found: empty when nothing happened on this descriptor.
    package var returnedEvents: PollEvents { PollEvents(rawValue: entry.revents) }
}

extension FileDescriptor {
    /// Waits until one of `descriptors` (its first `count`; all when nil) has one of its events or
    /// `timeoutMilliseconds` have passed (`poll(2)`; -1 waits for good, 0 not at all), setting each
    /// one's `returnedEvents`; returns how many have some. A retry after a signal waits only for
    /// what is left of the timeout.
    @discardableResult
    package static func poll(
        _ descriptors: inout [PollDescriptor], count: Int? = nil, timeoutMilliseconds: Int32
    ) throws(Errno) -> Int {
        let count = min(max(count ?? descriptors.count, 0), descriptors.count)
        let deadline = timeoutMilliseconds > 0 ? ClockID.monotonic.nanoseconds + UInt64(timeoutMilliseconds) * 1_000_000 : nil
        let result: Result<Int32, Errno> = descriptors.withUnsafeCPollDescriptors { entries in
            Result { () throws(Errno) in
                var retried = false
                return try systemCall(.poll) {
                    var timeout = timeoutMilliseconds
                    if retried, let deadline {
                        let now = ClockID.monotonic.nanoseconds
                        timeout = now >= deadline ? 0 : Int32((deadline - now + 999_999) / 1_000_000)
                    }
                    retried = true
                    return Glibc.poll(entries.baseAddress, nfds_t(count), timeout)
                }
            }
        }
        return Int(try result.get())
    }
}

extension Array where Element == PollDescriptor {
    /// Runs `body` with the entries as C `struct pollfd`s, for a C library that fills or reads
    /// them (ALSA's `snd_pcm_poll_descriptors`).
    package mutating func withUnsafeCPollDescriptors<Result>(_ body: (UnsafeMutableBufferPointer<pollfd>) -> Result) -> Result {
        withUnsafeMutableBufferPointer { buffer in
            buffer.withMemoryRebound(to: pollfd.self) { body($0) }
        }
    }
}
