import Foundation

/// Reveille's translations compiled for a test, and the glibc locales to read them in, made
/// without root: what a person's installed system has, in a temporary folder.
package enum TranslationCatalogs {
    /// The repository's `po` folder.
    package static let sourceFolder = URL(fileURLWithPath: #filePath)  // Sources/TestOnly/TestSupport/this file
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("po")

    /// The languages with a catalog (`po/LINGUAS`).
    package static func languages() throws -> [String] {
        let text = try String(contentsOf: sourceFolder.appendingPathComponent("LINGUAS"), encoding: .utf8)
        return text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
    }

    /// The catalogs compiled (`REVEILLE_LOCALEDIR`) and the locales `de_DE.UTF-8`, `en_GB.UTF-8`,
    /// `en_US.UTF-8` and `fr_FR.UTF-8` made (`LOCPATH`), once per test process, in a temporary folder.
    package static let installed: Result<(catalogs: String, locales: String), any Error> = Result {
        let root = Fixtures.temporaryDirectory("reveille-language")
        let catalogs = try compile(into: root.appendingPathComponent("locale"))
        let locales = try makeLocales(
            ["de_DE.UTF-8", "en_GB.UTF-8", "en_US.UTF-8", "fr_FR.UTF-8"], in: root.appendingPathComponent("locales"))
        return (catalogs.path, locales.path)
    }

    /// An environment in the locale `lang` (`de_DE.UTF-8`), with `LC_TIME` as given, that finds
    /// the installed catalogs and locales; nothing a parent set overrides them.
    package static func environment(lang: String, time: String = "") throws -> [String: String] {
        let (catalogs, locales) = try installed.get()
        return [
            "LANG": lang, "LC_TIME": time, "LC_ALL": "", "LC_MESSAGES": "", "LANGUAGE": "",
            "LOCPATH": locales, "REVEILLE_LOCALEDIR": catalogs,
        ]
    }

    /// The folder of the made locales, for `LOCPATH`.
    package static func localeFolder() throws -> String {
        try installed.get().locales
    }

    /// What `date +FORMAT` prints for `instant` under `LC_ALL=name`, with the made locales
    /// (`LOCPATH`: `locales`, or those made here), in the zone `TZ=zone` (this process's when `nil`):
    /// the C library's own text, an independent reference for Reveille's.
    package static func date(
        _ format: String, at instant: Date, locale name: String, zone: String? = "UTC", locales: String? = nil
    ) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Executables.find("date") ?? "/bin/date")
        process.arguments = ["-d", "@\(Int64(instant.timeIntervalSince1970.rounded(.down)))", "+" + format]
        var environment = ["LC_ALL": name, "LOCPATH": try locales ?? installed.get().locales, "PATH": "/usr/bin:/bin"]
        if let zone = zone ?? ProcessInfo.processInfo.environment["TZ"] { environment["TZ"] = zone }
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw SandboxError.failed("date +\(format) exited \(process.terminationStatus)") }
        return text.hasSuffix("\n") ? String(text.dropLast()) : text
    }

    /// Compiles every catalog with `msgfmt --check` into `folder/LANG/LC_MESSAGES/reveille.mo`
    /// (the layout of `share/locale`) and returns `folder`, for `REVEILLE_LOCALEDIR`.
    @discardableResult
    package static func compile(into folder: URL) throws -> URL {
        for language in try languages() {
            let target = folder.appendingPathComponent("\(language)/LC_MESSAGES")
            try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
            try runTool(
                "msgfmt",
                [
                    "--check", "-o", target.appendingPathComponent("reveille.mo").path,
                    sourceFolder.appendingPathComponent("\(language).po").path,
                ])
        }
        return folder
    }

    /// Makes the glibc locales `names` (such as `de_DE.UTF-8`) in `folder` with `localedef`, from
    /// the `locales` package's sources, and returns `folder`, for `LOCPATH`.
    @discardableResult
    package static func makeLocales(_ names: [String], in folder: URL) throws -> URL {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in names {
            let parts = name.split(separator: ".", maxSplits: 1).map(String.init)
            let charmap = parts.count > 1 ? parts[1] : "UTF-8"
            // localedef exits 1 for warnings it can ignore; the locale is made all the same.
            let status = try runTool(
                "localedef", ["--no-archive", "-c", "-i", parts[0], "-f", charmap, folder.appendingPathComponent(name).path],
                acceptingStatuses: [0, 1])
            guard FileManager.default.fileExists(atPath: folder.appendingPathComponent("\(name)/LC_MESSAGES").path) else {
                throw SandboxError.failed("localedef made no \(name) (status \(status))")
            }
        }
        return folder
    }

    /// Runs a program found on `PATH` (or a path) to its end, in `folder` (the repository by
    /// default); its status and what it wrote, standard output and error together.
    package static func run(_ program: String, _ arguments: [String], in folder: URL? = nil) throws -> (status: Int32, output: String) {
        guard let path = program.contains("/") ? program : Executables.find(program) else { throw SandboxError.missing([program]) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path, relativeTo: folder ?? sourceFolder.deletingLastPathComponent())
        process.arguments = arguments
        process.currentDirectoryURL = folder ?? sourceFolder.deletingLastPathComponent()
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }

    /// Runs a program found on `PATH` to its end; throws with its output unless it exits with
    /// one of `acceptingStatuses`.
    @discardableResult
    static func runTool(_ name: String, _ arguments: [String], acceptingStatuses: Set<Int32> = [0]) throws -> Int32 {
        let (status, text) = try run(name, arguments)
        guard acceptingStatuses.contains(status) else {
            throw SandboxError.failed("\(name) \(arguments.joined(separator: " ")) exited \(status): \(text)")
        }
        return status
    }
}
