import AlarmKit
import AlarmModel
import Foundation
import Testing
import TestRequirements
import TestSupport

/// The alarm's tint on the alert, as a person sees it: the real agent rings alarms of two tints,
/// dunst draws the alerts under Xvfb with its icon on, and a screenshot of the screen (GDK's, of
/// the root window) is read pixel by pixel where dunst draws the image.
@Suite(
    "Agent: the tint on the alert", .onItsOwnThread, .serialized,
    .requires(Built.unavailable ?? Screenshots.unavailable), .timeLimit(.minutes(5)))
struct AlertTintTests {
    /// dunst draws the image of Reveille's notifications at the left of the bubble (the sandbox's
    /// dunstrc turns icons off for everything else).
    static let iconRule = """
        [reveille-images]
            appname = Reveille
            icon_position = left
        """

    /// Rings an alarm tinted `tint` and returns the screenshot in which dunst shows its alert.
    static func ring(
        _ title: String, tint: Color, client: AgentClient, fixture: AgentFixture, monitor: NotifyMonitor
    ) async throws -> Screenshots.Screenshot {
        var definition = Fixtures.definition(.fixed(Date().addingTimeInterval(1.5)), title: title)
        definition.tintColor = tint
        _ = try await client.schedule(id: UUID(), definition: definition)
        let alert = try await monitor.waitForNotify(matching: { AlertingTests.isAlert($0, title) && $0.returnedID != nil })
        // The disc drawn ahead, named as a file: dunst reads it from there.
        let hex = [tint.bytes.red, tint.bytes.green, tint.bytes.blue].map { String(format: "%02x", $0) }.joined()
        #expect(
            alert.hints["image-path"]?.string?.hasSuffix("/reveille/tint/tint-\(hex)ff-stop-ffffffff.png") == true,
            "\(alert.hints["image-path"].map { "\($0)" } ?? "no image-path")")
        #expect(alert.hints["image-data"] == nil)
        try await fixture.sandbox.waitForDisplayedCount(1)
        // dunst draws the bubble after it answers: the screenshot is taken again until the bubble is on it.
        return try await waitUntil("dunst to draw the alert of \(title)", every: .milliseconds(200)) {
            let shot = try await Screenshots.take(fixture.sandbox, named: "alert-tint-\(title.lowercased())")
            // dunst's critical bubble: its background, #900000.
            return shot.points(near: Color(hex: "#900000")!).count > 1_000 ? shot : nil
        }
    }

    @Test(
        "The alert shows the alarm's tint where dunst draws its image: orange for an orange alarm, green for a green one, never the other")
    func tintOnAlert() async throws {
        let fixture = try await AgentFixture.start(notificationServer: true, dunstConfiguration: Self.iconRule)
        defer { fixture.stop() }
        try await fixture.authorizeTestProcess()
        let client = try fixture.client()
        defer { client.connection.close() }
        let monitor = try fixture.sandbox.monitorNotifyCalls()

        for (title, tint, other) in [("Orange", Color.orange, Color.green), ("Green", Color.green, Color.orange)] {
            let shot = try await Self.ring(title, tint: tint, client: client, fixture: fixture, monitor: monitor)
            let tinted = shot.points(near: tint)
            // A 32-pixel disc (dunst scales the 48-pixel image to its icon size), less its glyph.
            #expect(tinted.count >= 300, "\(tinted.count) pixels of \(title)'s tint on the screen (.build/screenshots/dunst)")
            #expect(shot.points(near: other).isEmpty, "\(title)'s alert shows the other alarm's tint")
            // All in one place, the size of an icon: the image at the left of the bubble.
            if let minX = tinted.map(\.x).min(), let maxX = tinted.map(\.x).max(), let minY = tinted.map(\.y).min(),
                let maxY = tinted.map(\.y).max()
            {
                #expect(maxX - minX < 50 && maxY - minY < 50, "the tint spans x \(minX)...\(maxX), y \(minY)...\(maxY)")
                #expect(maxX < shot.width - 200, "the tint is at the bubble's left, where its image goes (x \(minX)...\(maxX))")
            }
            try await offPool { try fixture.sandbox.pickAction("stop") }
            try await fixture.sandbox.waitForDisplayedCount(0)
        }
    }
}

/// Screenshots of a sandbox's X display, as a person would see it, read pixel by pixel.
enum Screenshots {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Scripts/screenshot.py").path

    /// Where the screenshots are kept for a person to look at: `.build/screenshots/dunst`.
    static let kept = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent(".build/screenshots/dunst")

    /// Why screenshots cannot be taken here, or `nil`.
    static var unavailable: String? {
        ["x86_64", "aarch64"].contains {
            FileManager.default.fileExists(atPath: "/usr/lib/\($0)-linux-gnu/girepository-1.0/Gdk-3.0.typelib")
        }
            ? nil : "GDK 3's introspection data is not installed (gir1.2-gtk-3.0; scripts/install-deps --tests installs it)"
    }

    /// A screenshot's pixels.
    struct Screenshot {
        var width: Int
        var height: Int
        var rowstride: Int
        var channels: Int
        var pixels: [UInt8]

        /// Every pixel within 6 of `color` in each channel, in the top right of the screen, where
        /// dunst shows its bubbles.
        func points(near color: Color) -> [(x: Int, y: Int)] {
            let target = color.bytes
            var found: [(x: Int, y: Int)] = []
            for y in 0..<min(height, 300) {
                for x in (width / 2)..<width {
                    let start = y * rowstride + x * channels
                    if abs(Int(pixels[start]) - Int(target.red)) <= 6, abs(Int(pixels[start + 1]) - Int(target.green)) <= 6,
                        abs(Int(pixels[start + 2]) - Int(target.blue)) <= 6
                    {
                        found.append((x, y))
                    }
                }
            }
            return found
        }
    }

    /// Takes a screenshot of the sandbox's display, keeps it in `kept` as `name`.png, and returns
    /// its pixels.
    static func take(_ sandbox: DesktopSandbox, named name: String) async throws -> Screenshot {
        try FileManager.default.createDirectory(at: kept, withIntermediateDirectories: true)
        let png = kept.appendingPathComponent("\(name).png")
        let raw = sandbox.home.appendingPathComponent("\(name).rgb")
        let output = try await offPool { try sandbox.run(Built.systemPython, [script, png.path, raw.path], timeout: .seconds(30)) }
        let numbers = output.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        guard numbers.count == 4 else { throw TestEnvironmentError.failed("screenshot.py printed \(output.debugDescription)") }
        return Screenshot(
            width: numbers[0], height: numbers[1], rowstride: numbers[2], channels: numbers[3], pixels: Array(try Data(contentsOf: raw)))
    }
}
