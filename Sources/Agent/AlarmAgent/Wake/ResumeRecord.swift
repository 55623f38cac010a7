import AlarmDesktop
import FoundationEssentials

/// The last resumes measured (`ResumeMeter`), kept in `resume-times.json` in the store's folder so
/// that the wake-ahead margin outlives the agent: replaced whole and durably after each
/// measurement, read when the agent starts.
struct ResumeRecord: Sendable {
    /// The file's name in the store's folder.
    static let fileName = "resume-times.json"

    /// The file.
    let url: URL
    /// Whether it is written: not in a read-only store's folder, where nothing is.
    let writable: Bool

    /// The record in `directory` (the store's folder), written only when `writable`.
    init(directory: URL, writable: Bool = true) {
        url = directory.appendingPathComponent(Self.fileName)
        self.writable = writable
    }

    /// The file's form: `{"resumes": [{"wokenAt": "…", "seconds": 0.34}]}`.
    private struct Contents: Codable {
        var resumes: [ResumeMeter.Resume]
    }

    /// The resumes on disk, oldest first; none when there is no file or it cannot be read.
    func load() -> [ResumeMeter.Resume] {
        guard let data = try? Data(contentsOf: url) else { return [] }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return (try? decoder.decode(Contents.self, from: data).resumes) ?? []
    }

    /// Writes `resumes` durably (nothing when not `writable`).
    func save(_ resumes: [ResumeMeter.Resume]) throws {
        guard writable else { return }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        try DurableFile.replace(url, with: try encoder.encode(Contents(resumes: resumes)))
    }
}
