import AlarmCore
import AlarmModel
import Foundation
import Testing
import TestRequirements
import TestSupport

@testable import AlarmDesktop

/// The alarm's tint and its buttons' symbols as the real dunst receives them, through
/// `reveille-notify-probe`.
@Suite(
    "Tint and symbols with dunst", .onItsOwnThread, .serialized,
    .requires(sandboxMissing), .timeLimit(.minutes(5)))
struct TintNotificationTests {
    /// An image as the bus carries `image-data`.
    static func busValue(_ image: NotificationImage) -> BusValue {
        .structure([
            .int32(image.width), .int32(image.height), .int32(image.rowstride), .boolean(image.hasAlpha),
            .int32(image.bitsPerSample), .int32(image.channels), .array(elementSignature: "y", image.data.map { .byte($0) }),
        ])
    }

    @Test(
        "dunst lists icon-static: the countdown carries the tint disc as image-data (pause, then play), the alert the disc with the Stop glyph"
    )
    func tintAndSymbols() async throws {
        let sandbox = try DesktopSandbox()
        defer { sandbox.stop() }
        let capabilities = try sandbox.run(
            "dbus-send",
            [
                "--session", "--print-reply", "--dest=org.freedesktop.Notifications", "/org/freedesktop/Notifications",
                "org.freedesktop.Notifications.GetCapabilities",
            ])
        #expect(capabilities.contains("\"icon-static\""), "\(capabilities)")
        #expect(!capabilities.contains("x-kde-origin-name"))
        let monitor = try sandbox.monitorNotifyCalls()
        let probe = try await Probe(sandbox)

        // The countdown, orange: a disc in the tint with the Pause glyph, in white (the button's text colour).
        let id = UUID()
        probe.send("countdown", id.uuidString, "Tea", "42", "60", "#ff9500")
        let running = try await monitor.waitForNotify(matching: { $0.summary == "Counting down" && $0.returnedID != nil })
        #expect(running.appIcon == "io.github.reveille.Reveille")
        #expect(running.hints["image-path"] == nil, "image-data takes its place")
        let disc = TintImage.disc(tint: Color(hex: "#ff9500")!, glyph: .pause, glyphColor: .white)
        let received = try #require(running.hints["image-data"])
        #expect(received.signature == "(iiibiiay)")
        #expect(received == Self.busValue(disc))
        // The middle, between the bars, is the tint itself; a bar is white.
        if case .structure(let fields) = received, case .array(_, let bytes) = fields[6] {
            let pixel = { (x: Int, y: Int) in bytes[(y * 48 + x) * 4..<(y * 48 + x) * 4 + 4].map { $0 } }
            #expect(pixel(24, 24) == [.byte(255), .byte(149), .byte(0), .byte(255)])
            #expect(pixel(19, 24) == [.byte(255), .byte(255), .byte(255), .byte(255)])
            #expect(pixel(0, 0) == [.byte(0), .byte(0), .byte(0), .byte(0)])
        }
        try await sandbox.waitForDisplayedCount(1)

        // Paused: the Resume button's glyph on the same disc, in the same bubble.
        probe.send("paused", id.uuidString, "Tea", "40", "60", "#ff9500")
        let paused = try await monitor.waitForNotify(matching: { $0.summary == "Paused" })
        #expect(paused.replacesID == running.returnedID)
        #expect(paused.hints["image-data"] == Self.busValue(TintImage.disc(tint: Color(hex: "#ff9500")!, glyph: .play)))
        #expect(paused.hints["image-path"] == nil)

        // Another colour, another disc.
        let other = UUID()
        probe.send("countdown", other.uuidString, "Soup", "300", "600", "#34c759")
        let green = try await monitor.waitForNotify(matching: { $0.body.contains("Soup") })
        #expect(green.hints["image-data"] == Self.busValue(TintImage.disc(tint: .green, glyph: .pause)))
        try await sandbox.waitForDisplayedCount(2)
        probe.send("endCountdown", id.uuidString)
        probe.send("endCountdown", other.uuidString)
        try await sandbox.waitForDisplayedCount(0)

        // The alert: the tint disc (the accent colour here) with the Stop glyph, as image-data;
        // Reveille's icon is still its app_icon.
        let alarm = UUID()
        probe.send("alert", alarm.uuidString, "Wake up", "snooze")
        let alert = try await monitor.waitForNotify(matching: { $0.summary == "Wake up" && $0.returnedID != nil })
        #expect(alert.appIcon == "io.github.reveille.Reveille")
        #expect(alert.hints["image-path"] == nil, "\(alert.hints.keys.sorted())")
        #expect(alert.hints["image-data"] == Self.busValue(TintImage.disc(tint: .accentColor, glyph: .stop)))
        try await sandbox.waitForDisplayedCount(1)
        probe.send("endAlert", alarm.uuidString)
        try await sandbox.waitForDisplayedCount(0)
        await probe.stop()
    }
}
