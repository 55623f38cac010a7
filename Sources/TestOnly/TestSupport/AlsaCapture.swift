import Foundation

/// ALSA's `default` device captured to a file, with no sound hardware and no sound server.
///
/// A self-contained ALSA configuration (it does not include the system's `alsa.conf`, so nothing
/// in `/etc/alsa/conf.d` can replace the device) is written to `configurationURL`; programs started
/// with `ALSA_CONFIG_PATH` set to it play to a `file` PCM over a `null` slave:
///
/// - Unpaced (the default): the file plugin writes straight to `captureURL`. The null slave takes
///   samples as fast as the player writes them. Each time a program opens the device and sets its
///   parameters, alsa-lib starts a new file (`truncate false`): the first stream goes to
///   `captureURL`, the next ones to `captureURL.0001`, `.0002`… `capturedData` joins them in order.
/// - Paced (`pacedBytesPerSecond`): the file plugin pipes the stream to `pv -L <rate>`, which
///   appends to `captureURL` at that rate, so the capture grows in real time. A player runs ahead of
///   the file by at most a pipe's buffer (64 KiB) plus 4 KiB.
///
/// The file plugin keeps up to one ALSA buffer (the player's buffer size) before writing it out;
/// the rest is written when the player drains, drops or closes the device. A player killed with
/// SIGKILL loses that last buffer. Control devices (`ctl`, mixers) do not exist, as on a machine
/// without a sound card.
package struct AlsaCapture: Sendable {
    /// The configuration file, for `ALSA_CONFIG_PATH`.
    package let configurationURL: URL
    /// The file the first stream is captured to (paced: all streams).
    package let captureURL: URL
    /// The pacing rate, if any.
    package let pacedBytesPerSecond: Int?

    /// Writes the configuration into `folder`; `pacedBytesPerSecond` paces the capture through `pv`
    /// (found at `pvPath`).
    init(folder: URL, pacedBytesPerSecond: Int?, pvPath: String?) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        configurationURL = folder.appendingPathComponent("asound.conf")
        captureURL = folder.appendingPathComponent("capture.raw")
        self.pacedBytesPerSecond = pacedBytesPerSecond
        try Self.configuration(capture: captureURL.path, pacedBytesPerSecond: pacedBytesPerSecond, pvPath: pvPath)
            .write(to: configurationURL, atomically: true, encoding: .utf8)
    }

    /// The configuration text.
    static func configuration(capture: String, pacedBytesPerSecond: Int?, pvPath: String?) -> String {
        let target: String
        if let rate = pacedBytesPerSecond {
            // 4 KiB pv buffer: the file trails the player by little more than the pipe's buffer.
            target = "|\(pvPath ?? "pv") -q -B 4096 -L \(rate) >> \(shellQuoted(capture))"
        } else {
            target = capture
        }
        return """
            # ALSA configuration written by Reveille's DesktopSandbox for tests.
            # Self-contained: ALSA_CONFIG_PATH points here, so the system's alsa.conf (and
            # everything it includes) is not read. Only what is below exists.

            # "default" records what is played to a file; the null slave discards it.
            pcm.!default {
                type file
                slave.pcm { type null }
                file "\(alsaQuoted(target))"
                format "raw"
                # A new file for each stream (capture.raw, capture.raw.0001, ...), never overwritten.
                truncate false
            }

            # "null" for programs that ask for it by name.
            pcm.null {
                type null
            }

            """
    }

    private static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    private static func alsaQuoted(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
    }

    /// The capture files that exist, in the order the streams were opened.
    package var captureFiles: [URL] {
        let manager = FileManager.default
        var files: [URL] = []
        if manager.fileExists(atPath: captureURL.path) { files.append(captureURL) }
        for index in 1...9999 {
            let next = URL(fileURLWithPath: captureURL.path + String(format: ".%04d", index))
            guard manager.fileExists(atPath: next.path) else { break }
            files.append(next)
        }
        return files
    }

    /// How many bytes were captured, over all streams.
    package var capturedByteCount: Int {
        captureFiles.reduce(0) { total, url in
            total + ((try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0)
        }
    }

    /// Everything captured, streams joined in order.
    package func capturedData() -> Data {
        captureFiles.reduce(into: Data()) { data, url in data.append((try? Data(contentsOf: url)) ?? Data()) }
    }

    /// The captured samples read as little-endian signed 16-bit integers (interleaved channels), the
    /// format of `S16_LE` streams.
    package func capturedSamples() -> [Int16] {
        let data = capturedData()
        return stride(from: 0, to: data.count - 1, by: 2).map { offset in
            Int16(bitPattern: UInt16(data[data.startIndex + offset]) | UInt16(data[data.startIndex + offset + 1]) << 8)
        }
    }

    /// Deletes what was captured so far (streams still open keep writing to their unlinked file).
    package func removeCaptures() {
        for url in captureFiles { try? FileManager.default.removeItem(at: url) }
    }
}
