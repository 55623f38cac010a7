import CSndFile
import FoundationEssentials
import LinuxSystem

/// Decoding sound files with libsndfile (WAV, FLAC, Ogg Vorbis, Ogg Opus, MP3 with libsndfile 1.1+).
///
/// The library is loaded for each decode and unloaded after it (`Library`), so that an idle agent
/// keeps neither libsndfile nor its codecs resident.
package enum SoundFile {
    /// The most channels Reveille plays (7.1).
    static let maximumChannels = 8
    /// The longest sound Reveille keeps in memory: 10 minutes (it loops; longer files are cut).
    static let maximumSeconds = 600

    /// Decodes the whole file at `path` to interleaved 16-bit frames.
    ///
    /// Opens it (see `open`), reads with `sf_readf_short` until it returns 0 (so formats whose frame
    /// count is only an estimate, such as MP3, are read whole), and closes it with `sf_close`.
    /// Floating-point files are scaled to the 16-bit range by libsndfile.
    ///
    /// - Throws: `SoundError` saying why: no such file, not a regular file, libsndfile's message
    ///   (`sf_strerror`), or no audio.
    package static func decode(path: String) throws(SoundError) -> DecodedSound {
        try read(path: path, upTo: nil)
    }

    /// Checks that the file at `path` is a sound Reveille can play, decoding only its first frames
    /// (a scheduling-time check that stays fast for long files).
    ///
    /// - Throws: the `SoundError` `decode(path:)` would throw.
    package static func check(path: String) throws(SoundError) {
        _ = try read(path: path, upTo: chunkFrames)
    }

    private static let chunkFrames = 4_096

    /// Opens the file (`open` without blocking, `fstat`: a regular file only) and decodes it with
    /// `sf_open_fd(fd, SFM_READ, &info)` (libsndfile detects the format from the
    /// contents), checks its layout, and reads up to `limit` frames (`nil`: up to `maximumSeconds`).
    private static func read(path: String, upTo limit: Int?) throws(SoundError) -> DecodedSound {
        // Opened without blocking (a FIFO would wait for a writer for good), then checked to be a
        // regular file on the descriptor itself, so nothing can swap the file in between.
        let descriptor: FileDescriptor
        do {
            descriptor = try FileDescriptor.open(path, .readOnly, options: [.nonBlocking, .closeOnExec])
        } catch {
            throw error == .noSuchFile || error == .notADirectory
                ? .fileNotFound(path: path) : .undecodable(path: path, reason: error.description)
        }
        // Closed here, after libsndfile is done with it (it is told not to close it: SF_FALSE).
        defer { try? descriptor.close() }
        guard (try? descriptor.fileType()) == .regular else { throw .notAFile(path: path) }
        let library = try Library(path: path)
        defer { library.unload() }
        var info = SF_INFO()
        guard let file = library.openFile(descriptor.rawValue, &info) else {
            throw .undecodable(path: path, reason: library.message(nil))
        }
        defer { library.close(file) }
        let channels = Int(info.channels)
        let rate = Int(info.samplerate)
        guard channels > 0, channels <= maximumChannels else {
            throw .unsupported(path: path, reason: "\(channels) channels")
        }
        guard rate >= 1_000, rate <= 384_000 else { throw .unsupported(path: path, reason: "sample rate \(rate) Hz") }

        let limit = limit ?? maximumSeconds * rate
        var samples: [Int16] = []
        samples.reserveCapacity(min(max(Int(info.frames), 0), limit) * channels)
        var chunk = [Int16](repeating: 0, count: chunkFrames * channels)
        while samples.count / channels < limit {
            let read = chunk.withUnsafeMutableBufferPointer { buffer in
                library.readFrames(file, into: buffer.baseAddress, count: chunkFrames)
            }
            if read <= 0 { break }
            samples.append(contentsOf: chunk[0..<(Int(read) * channels)])
        }
        if library.failed(file), samples.isEmpty {
            throw .undecodable(path: path, reason: library.message(file))
        }
        guard !samples.isEmpty else { throw .unsupported(path: path, reason: "no audio in the file") }
        return DecodedSound(samples: samples, channels: channels, sampleRate: rate)
    }

    /// libsndfile, loaded for one decode (`dlopen`, `dlsym`) and unloaded by `unload()`.
    private struct Library {
        /// The library's functions.
        private let functions: reveille_sndfile

        /// Loads libsndfile.
        ///
        /// - Throws: `SoundError.undecodable` naming `path`, with the loader's message, when the
        ///   library is missing (the package depends on it).
        init(path: String) throws(SoundError) {
            var functions = reveille_sndfile()
            guard reveille_sndfile_load(&functions) == 0 else {
                throw .undecodable(path: path, reason: "libsndfile could not be loaded: \(String(cString: reveille_sndfile_load_error()))")
            }
            self.functions = functions
        }

        /// Opens a sound from an open file (`sf_open_fd` for reading; the descriptor stays open).
        func openFile(_ descriptor: Int32, _ info: inout SF_INFO) -> OpaquePointer? {
            reveille_sf_open_fd(functions, descriptor, Int32(SFM_READ), &info, 0)
        }

        /// Reads up to `count` frames into `frames` (`sf_readf_short`); how many it read.
        func readFrames(_ file: OpaquePointer, into frames: UnsafeMutablePointer<Int16>?, count: Int) -> Int {
            Int(reveille_sf_readf_short(functions, file, frames, sf_count_t(count)))
        }

        /// Whether reading `file` failed (`sf_error`).
        func failed(_ file: OpaquePointer) -> Bool {
            reveille_sf_error(functions, file) != 0
        }

        /// libsndfile's message for `file`'s last error, or for the last failed open (`nil`).
        func message(_ file: OpaquePointer?) -> String {
            String(cString: reveille_sf_strerror(functions, file))
        }

        /// Closes `file` (`sf_close`).
        func close(_ file: OpaquePointer) {
            _ = reveille_sf_close(functions, file)
        }

        /// Unloads the library (it stays loaded while another decode holds it).
        func unload() {
            reveille_sndfile_unload(functions)
        }
    }
}
