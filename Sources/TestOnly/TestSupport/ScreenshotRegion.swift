import Foundation

/// What one rectangle of a screenshot holds, compared with the same rectangle of another: read
/// from the PNG files by GdkPixbuf (`GNOMEShell/compare-region.js`, run with `gjs`), so a test can
/// tell that something is drawn there (not an even background) and that it was not there before.
package struct ScreenshotRegion: Decodable, Sendable, Hashable {
    /// How many pixels the rectangle holds (less when it runs off the screenshot).
    package var pixels: Int
    /// How many of them differ (by more than 24 in a colour channel) from the other screenshot.
    package var changed: Int
    /// How many distinct colours the first screenshot has in it.
    package var colours: Int
    /// The share of its most common colour (1 for an even area).
    package var dominant: Double
    /// How many of its pixels are within 6 in each channel of the colour asked for (0 when none was).
    package var matching: Int

    /// The share of pixels that changed.
    package var changedShare: Double { pixels == 0 ? 0 : Double(changed) / Double(pixels) }

    /// Compares the rectangle at (`x`, `y`) of size `width`×`height` of `screenshot` with the same
    /// rectangle of `other` (screenshots of the same screen), running `gjs` in `sandbox`;
    /// `counting` (`#rrggbb`) is the colour `matching` counts.
    package static func compare(
        _ screenshot: URL, with other: URL, x: Int, y: Int, width: Int, height: Int, counting colour: String? = nil,
        in sandbox: DesktopSandbox
    ) async throws -> ScreenshotRegion {
        let script = GNOMEShellServer.filesFolder.appendingPathComponent("compare-region.js").path
        let output = try await offPool {
            try sandbox.run(
                "gjs", [script, screenshot.path, other.path, "\(x)", "\(y)", "\(width)", "\(height)"] + (colour.map { [$0] } ?? []))
        }
        do {
            return try JSONDecoder().decode(ScreenshotRegion.self, from: Data(output.utf8))
        } catch {
            throw SandboxError.failed("compare-region.js printed \(output.debugDescription): \(error)")
        }
    }

    /// Compares `banner`'s rectangle of `screenshot` with the same rectangle of `other`.
    package static func compare(
        _ screenshot: URL, with other: URL, at banner: GNOMEShellServer.Banner, counting colour: String? = nil,
        in sandbox: DesktopSandbox
    ) async throws -> ScreenshotRegion {
        try await compare(
            screenshot, with: other, x: banner.x, y: banner.y, width: banner.width, height: banner.height, counting: colour,
            in: sandbox)
    }
}
