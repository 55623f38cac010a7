import FoundationEssentials

/// Where the agent finds the files installed beside it: under its own prefix (`<prefix>/share`
/// for a program in `<prefix>/bin`), in the XDG data folders, or, for a program built in a
/// checkout (`.build/<triple>/debug/reveilled`), in the checkout.
package enum InstalledFiles {
    /// Reveille's icon as `scripts/install` puts it into the hicolor theme, below a data folder.
    package static let iconPath = "icons/hicolor/scalable/apps/io.github.reveille.Reveille.svg"
    /// The icon in a checkout.
    package static let checkoutIconPath = "desktop/icons/io.github.reveille.Reveille.svg"

    /// `XDG_DATA_HOME` (default `~/.local/share`) and `XDG_DATA_DIRS` (default
    /// `/usr/local/share:/usr/share`), in lookup order, from `environment`.
    package static func dataFolders(environment: [String: String]) -> (home: URL?, directories: [URL]) {
        let home = environment["HOME"].map { URL(fileURLWithPath: $0) }
        let dataHome =
            environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? home?.appendingPathComponent(".local/share")
        let directories = (environment["XDG_DATA_DIRS"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/share:/usr/share")
            .split(separator: ":").map { URL(fileURLWithPath: String($0)) }
        return (dataHome, directories)
    }

    /// `<prefix>/share` for the program `executable` in `<prefix>/bin` (symbolic links followed).
    package static func prefixShare(of executable: URL) -> URL {
        executable.resolvingSymlinksInPath().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("share")
    }

    /// The checkout `executable` was built in: the nearest of its four closest folders above its own
    /// that holds `Package.swift` and `relativePath`; `nil` for an installed program.
    package static func checkout(of executable: URL, holding relativePath: String) -> URL? {
        var ancestor = executable.resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<4 {
            ancestor.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: ancestor.appendingPathComponent(relativePath).path),
                FileManager.default.fileExists(atPath: ancestor.appendingPathComponent("Package.swift").path)
            {
                return ancestor
            }
        }
        return nil
    }

    /// Reveille's icon file (the art a media player shows), looked for as an icon theme is: under
    /// the program's own prefix, then `XDG_DATA_HOME` and `XDG_DATA_DIRS`, then in the checkout;
    /// `nil` when none is there.
    package static func appIcon(executable: URL, environment: [String: String]) -> URL? {
        let (home, directories) = dataFolders(environment: environment)
        let installed = ([prefixShare(of: executable), home].compactMap { $0 } + directories).map { $0.appendingPathComponent(iconPath) }
        let fromCheckout = checkout(of: executable, holding: checkoutIconPath).map { $0.appendingPathComponent(checkoutIconPath) }
        return (installed + [fromCheckout].compactMap { $0 }).first { FileManager.default.fileExists(atPath: $0.path) }
    }
}
