import Foundation

/// Time-zone databases for tests, compiled from zic source by the system's `zic`.
package enum ZoneCompiler {
    /// The `zic` program: on the `PATH`, or where Debian keeps it.
    package static var zic: String? {
        Executables.find("zic") ?? (FileManager.default.isExecutableFile(atPath: "/usr/sbin/zic") ? "/usr/sbin/zic" : nil)
    }

    /// Compiles `source` (zic's input: `Rule` and `Zone` lines) into `directory`, which becomes a
    /// time-zone database (`TZDIR`) holding the zones the source names. Throws when zic refuses it.
    package static func compile(_ source: String, into directory: URL) throws {
        guard let zic else { throw TestEnvironmentError.missing("zic") }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let input = directory.appendingPathComponent("source.zi.tmp")
        try (source.hasSuffix("\n") ? source : source + "\n").write(to: input, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: input) }
        try Executables.run(zic, ["-d", directory.path, input.path])
    }

    /// The TZif bytes of one zone compiled from `source` (in a scratch folder that is removed).
    package static func tzif(_ source: String, zone: String) throws -> [UInt8] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("reveille-zic-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try compile(source, into: directory)
        return Array(try Data(contentsOf: directory.appendingPathComponent(zone)))
    }
}
