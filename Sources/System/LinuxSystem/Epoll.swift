import CLinux

#if canImport(Glibc)
import Glibc
#endif

/// One descriptor that became ready, as `epoll_wait(2)` reports it: the token it was added with.
package struct ReadyDescriptor: Sendable, Equatable {
    /// The number given to `addInterest(in:token:)` for the descriptor.
    package var token: UInt64
}

extension FileDescriptor {
    /// Makes an epoll instance (`epoll_create1(2)`), close-on-exec: one descriptor that waits for
    /// many.
    package static func epoll() throws(Errno) -> FileDescriptor {
        FileDescriptor(rawValue: try systemCall(.epollCreate) { epoll_create1(Int32(EPOLL_CLOEXEC)) })
    }

    /// Adds `descriptor` to this epoll instance, to be reported with `token` while it is readable
    /// (`epoll_ctl(EPOLL_CTL_ADD)`, level-triggered: a descriptor not read empty is reported again).
    package func addInterest(inReadable descriptor: FileDescriptor, token: UInt64) throws(Errno) {
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.u64 = token
        try systemCall(.epollControl) { epoll_ctl(rawValue, EPOLL_CTL_ADD, descriptor.rawValue, &event) }
    }

    /// Takes `descriptor` out of this epoll instance (`epoll_ctl(EPOLL_CTL_DEL)`).
    package func removeInterest(in descriptor: FileDescriptor) throws(Errno) {
        try systemCall(.epollControl) { epoll_ctl(rawValue, EPOLL_CTL_DEL, descriptor.rawValue, nil) }
    }

    /// Waits, for good, until at least one descriptor of this epoll instance is ready, and returns
    /// the ready ones (`epoll_wait(2)` with no timeout, up to `maximum` at once; retried after a
    /// signal).
    package func waitForReady(maximum: Int = 16) throws(Errno) -> [ReadyDescriptor] {
        var events = [epoll_event](repeating: epoll_event(), count: max(1, maximum))
        let count = try events.withUnsafeMutableBufferPointer { buffer throws(Errno) in
            try systemCall(.epollWait) { epoll_wait(rawValue, buffer.baseAddress, Int32(buffer.count), -1) }
        }
        return events.prefix(Int(count)).map { ReadyDescriptor(token: $0.data.u64) }
    }
}
