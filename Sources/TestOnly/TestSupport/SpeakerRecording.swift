import Foundation
import LinuxSystem
import Synchronization

/// What PipeWire's speakers (the null sink's monitor) play, read as it arrives, each piece stamped
/// with the wall-clock time it arrived: for timing sound at the sound server, such as how long
/// after a Stop call the sink still received the alarm.
///
/// `pw-record` writes raw 16-bit stereo at 48 kHz into a FIFO; a thread of this object blocks in
/// `read` on the other end. The recorder runs in the same graph cycle as the sink, so a piece
/// arrives within a pipe write of the sink receiving it.
package final class SpeakerRecording: Sendable {
    /// A piece as it arrived: the number of samples recorded once it was in, and when.
    package struct Piece: Sendable {
        /// Samples (both channels) recorded up to the end of this piece.
        package var end: Int
        /// When it arrived (wall clock).
        package var arrived: Date
    }

    private struct State {
        var samples: [Int16] = []
        var pieces: [Piece] = []
        var odd: UInt8?
    }

    private let state = Mutex(State())
    private let recorder: SandboxProcess
    private let fifo: URL

    /// Starts recording `pipewire`'s speakers.
    package init(_ pipewire: PipeWireServer) throws {
        let sandbox = pipewire.sandbox
        fifo = sandbox.root.appendingPathComponent("speakers-\(UUID().uuidString.prefix(8)).fifo")
        guard mkfifo(fifo.path, 0o600) == 0 else {
            throw SandboxError.failed("mkfifo \(fifo.path): \(String(cString: strerror(errno)))")
        }
        recorder = try sandbox.spawn(
            "sh",
            ["-c", "fifo=$1; shift; exec pw-record \"$@\" - > \"$fifo\"", "sh", fifo.path]
                + PipeWireServer.recorderArguments(target: pipewire.sinkName))
        let thread = Thread { [self] in readUntilEnd() }
        thread.name = "reveille-speakers"
        thread.start()
    }

    /// The samples recorded so far (interleaved stereo).
    package var samples: [Int16] { state.withLock { $0.samples } }

    /// The last sample whose magnitude is above `threshold`: its index and when its piece arrived.
    package func lastSound(above threshold: Int = 0) -> (index: Int, arrived: Date)? {
        state.withLock { state in
            guard let index = state.samples.lastIndex(where: { abs(Int($0)) > threshold }),
                let piece = state.pieces.first(where: { $0.end > index })
            else { return nil }
            return (index, piece.arrived)
        }
    }

    /// Ends the recording.
    package func stop() {
        recorder.kill()
        try? FileManager.default.removeItem(at: fifo)
    }

    /// The reading thread: blocks in `read` until the recorder ends.
    private func readUntilEnd() {
        guard let descriptor = try? FileDescriptor.open(fifo.path, .readOnly, options: [.closeOnExec]) else { return }
        defer { try? descriptor.close() }
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = (try? buffer.withUnsafeMutableBytes { bytes throws(Errno) in try descriptor.read(into: bytes) }) ?? 0
            guard count > 0 else { break }
            let arrived = Date()
            state.withLock { state in
                var bytes = ArraySlice(buffer[..<count])
                if let odd = state.odd, let first = bytes.first {
                    state.samples.append(Int16(bitPattern: UInt16(odd) | UInt16(first) << 8))
                    bytes = bytes.dropFirst()
                    state.odd = nil
                }
                var index = bytes.startIndex
                while index + 1 < bytes.endIndex {
                    state.samples.append(Int16(bitPattern: UInt16(bytes[index]) | UInt16(bytes[index + 1]) << 8))
                    index += 2
                }
                if index < bytes.endIndex { state.odd = bytes[index] }
                state.pieces.append(Piece(end: state.samples.count, arrived: arrived))
            }
        }
    }
}
