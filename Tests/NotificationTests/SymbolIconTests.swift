import AlarmCore
import AlarmModel
import AlarmRecords
import CLibNotify
import Foundation
import Testing
import TestRequirements
import TestSupport

@testable import AlarmDesktop

/// Where GNOME's Adwaita icon theme is installed (Debian's `adwaita-icon-theme`, which GNOME Shell
/// and GTK depend on).
let adwaita = URL(fileURLWithPath: "/usr/share/icons/Adwaita")

/// Nil when the Adwaita theme is installed, otherwise what is missing.
let adwaitaMissing: String? =
    FileManager.default.fileExists(atPath: adwaita.appendingPathComponent("index.theme").path)
    ? nil : "the Adwaita icon theme is not installed (apt-get install adwaita-icon-theme; gnome-shell depends on it)"

/// The icon names buttons' SF Symbols get, and the images the notifications carry.
@Suite("Symbols and tint in notifications", .onItsOwnThread)
struct SymbolIconTests {
    // MARK: The table

    @Test("The SF Symbols AlarmKit apps give their buttons map to freedesktop icon names")
    func table() {
        let expected = [
            "stop.circle": "media-playback-stop", "stop.fill": "media-playback-stop", "stop": "media-playback-stop",
            "zzz": "appointment-soon", "repeat": "media-playlist-repeat", "repeat.circle": "media-playlist-repeat",
            "arrow.clockwise": "view-refresh", "pause": "media-playback-pause", "pause.fill": "media-playback-pause",
            "pause.circle": "media-playback-pause", "play": "media-playback-start", "play.fill": "media-playback-start",
            "play.circle": "media-playback-start", "arrow.right.circle.fill": "go-next", "alarm": "alarm-symbolic",
            "alarm.fill": "alarm-symbolic", "timer": "appointment-soon", "clock": "appointment-soon",
            "bell": "preferences-system-notifications", "bell.fill": "preferences-system-notifications",
            "xmark": "window-close", "xmark.circle": "window-close", "checkmark": "object-select-symbolic",
        ]
        for (symbol, name) in expected {
            #expect(SymbolIcons.iconName(forSymbol: symbol) == name, "\(symbol)")
        }
        // Every button of the model has an icon.
        for button in [AlarmButton.stopButton, .snoozeButton, .repeatButton, .openAppButton, .pauseButton, .resumeButton] {
            #expect(SymbolIcons.iconName(forSymbol: button.systemImageName) != nil, "\(button.systemImageName)")
        }
    }

    @Test("Every icon name of the table is an icon the installed Adwaita theme has", .requires(adwaitaMissing))
    func namesExistInAdwaita() throws {
        // Adwaita 43 installs `NAME.png` (full colour, under legacy/), `NAME.svg` (symbolic, scalable)
        // and `NAME.symbolic.png` (symbolic, at fixed sizes).
        var installed: Set<String> = []
        let files = try #require(FileManager.default.enumerator(at: adwaita, includingPropertiesForKeys: nil))
        for case let file as URL in files {
            let name = file.lastPathComponent
            for suffix in [".symbolic.png", ".png", ".svg"] where name.hasSuffix(suffix) {
                installed.insert(String(name.dropLast(suffix.count)))
                break
            }
        }
        #expect(installed.count > 100, "the theme's icons were read")
        for name in Set(SymbolIcons.table.values).sorted() {
            #expect(installed.contains(name), "\(name) is not in \(adwaita.path)")
        }
    }

    @Test("A name not in the table, or empty, falls back to Reveille's icon; .fill, .circle, .square are dropped")
    func fallback() {
        for symbol in ["", "swift", "bell.slash", "stop.slash", "figure.run", "/etc/passwd", "file:///tmp/x.png", ".", "stop."] {
            #expect(SymbolIcons.iconName(forSymbol: symbol) == nil, "\(symbol)")
        }
        #expect(SymbolIcons.iconName(forSymbol: "play.square.fill") == "media-playback-start")
        #expect(SymbolIcons.iconName(forSymbol: "bell.circle.fill") == "preferences-system-notifications")
        #expect(SymbolIcons.iconName(forSymbol: "fill") == nil)
        // A name of the table given as an icon name stays.
        #expect(SymbolIcons.iconName(forSymbol: "media-playback-stop") == "media-playback-stop")
        #expect(SymbolIcons.iconName(forSymbol: "media-playback-stop-symbolic") == nil)
    }

    // MARK: What the server can do

    @Test("image-data for icon-static or icon-multi; the image beside the app's icon only on Plasma")
    func imageSupport() {
        let dunst = NotificationContent.ImageSupport(capabilities: ["actions", "body", "body-hyperlinks", "body-markup", "icon-static"])
        #expect(dunst == .init(drawsImageData: true, keepsAppIcon: false))
        let plasma = NotificationContent.ImageSupport(
            capabilities: ["body", "body-hyperlinks", "body-markup", "body-images", "icon-static", "actions", "x-kde-origin-name"])
        #expect(plasma == .init(drawsImageData: true, keepsAppIcon: true))
        #expect(NotificationContent.ImageSupport(capabilities: ["icon-multi"]).drawsImageData)
        #expect(!NotificationContent.ImageSupport(capabilities: ["body-images", "body"]).drawsImageData)
        #expect(NotificationContent.ImageSupport(capabilities: []) == .none)
    }

    // MARK: The content

    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func record(
        tint: Color = .accentColor, stop: AlarmButton = .stopButton, pause: AlarmButton? = .pauseButton,
        resume: AlarmButton? = .resumeButton, phase: AlarmRecord.Phase? = nil
    ) -> AlarmRecord {
        let presentation = AlarmPresentation(
            alert: .init(title: "Tea", stopButton: stop), countdown: .init(title: "Counting down", pauseButton: pause),
            paused: resume.map { .init(title: "Paused", resumeButton: $0) })
        return AlarmRecord(
            id: UUID(uuidString: "0A1B2C3D-0000-4000-8000-000000000000")!, owner: "test",
            definition: AlarmDefinition(
                schedule: nil, countdownDuration: .init(preAlert: 60, postAlert: 300), presentation: presentation,
                tintColor: tint),
            phase: phase ?? .alerting(.init(scheduledAt: now, startedAt: now, timesOutAt: nil)), anchor: now)
    }

    static func countdown(
        _ record: AlarmRecord, paused: Bool = false, images: NotificationContent.ImageSupport = .none
    ) throws -> NotificationContent {
        try #require(NotificationContent.countdown(record, remaining: 30, duration: 60, paused: paused, hasActions: true, images: images))
    }

    @Test(
        "The alert's image is the tint disc with the Stop glyph where the server draws image-data; the Stop symbol beside the icon where it shows only that"
    )
    func alertHints() {
        // GNOME Shell, dunst and Plasma draw image-data: the alert shows the alarm's tint as the
        // countdown does, with the Stop button's glyph in its text colour.
        let plasma = NotificationContent.ImageSupport(drawsImageData: true, keepsAppIcon: true)
        let dunst = NotificationContent.ImageSupport(drawsImageData: true, keepsAppIcon: false)
        for images in [plasma, dunst] {
            let alert = NotificationContent.alert(Self.record(tint: .orange), hasActions: true, images: images)
            #expect(alert.icon == "io.github.reveille.Reveille")
            #expect(alert.hints["image-data"] == .image(TintImage.disc(tint: .orange, glyph: .stop, glyphColor: .white)))
            #expect(alert.hints["image-path"] == nil, "image-data instead")
        }
        // An app's own Stop button: its text colour; a symbol with no glyph draws the disc alone.
        let custom = AlarmButton(text: "Done", textColor: .black, systemImageName: "checkmark.circle.fill")
        #expect(
            NotificationContent.alert(Self.record(tint: .mint, stop: custom), hasActions: true, images: dunst).hints["image-data"]
                == .image(TintImage.disc(tint: .mint, glyphColor: .black)))
        // A transparent tint draws nothing: no image.
        let clear = NotificationContent.alert(
            Self.record(tint: Color(red: 0, green: 0, blue: 0, opacity: 0)), hasActions: true, images: dunst)
        #expect(clear.hints["image-data"] == nil && clear.hints["image-path"] == nil)
        // A server that shows an image beside the app's icon but draws no image data: the Stop symbol.
        let besideOnly = NotificationContent.ImageSupport(drawsImageData: false, keepsAppIcon: true)
        #expect(
            NotificationContent.alert(Self.record(), hasActions: true, images: besideOnly).hints["image-path"]
                == .string("media-playback-stop"))
        #expect(
            NotificationContent.alert(Self.record(stop: custom), hasActions: true, images: besideOnly).hints["image-path"]
                == .string("object-select-symbolic"))
        // Unknown symbol: no image, Reveille's icon alone.
        let unknown = AlarmButton(text: "Done", textColor: .black, systemImageName: "swift")
        #expect(NotificationContent.alert(Self.record(stop: unknown), hasActions: true, images: besideOnly).hints["image-path"] == nil)
        // A server not known yet (the default), or one that draws no image: none is sent.
        let hints = NotificationContent.alert(Self.record(), hasActions: true, images: .none).hints
        #expect(hints["image-path"] == nil && hints["image-data"] == nil)
        #expect(
            NotificationContent.alert(Self.record(), hasActions: true).hints.keys.sorted()
                == ["SWAYNC_BYPASS_DND", "category", "desktop-entry", "resident", "suppress-sound", "urgency"])
    }

    @Test("The tint images drawn ahead are the ones the alert and the countdown show, and are dropped with their alarms")
    func tintImagesAhead() async throws {
        let dunst = NotificationContent.ImageSupport(drawsImageData: true, keepsAppIcon: false)
        let record = Self.record(tint: .orange)
        #expect(
            NotificationContent.tintImageKeys(for: record) == [
                TintImage.Key(tint: .orange, glyph: .stop, glyphColor: .white),
                TintImage.Key(tint: .orange, glyph: .pause, glyphColor: .white),
                TintImage.Key(tint: .orange, glyph: .play, glyphColor: .white),
            ])
        let cache = TintImageCache()
        cache.prepare([.updated(record)])
        try await waitUntil("the images to be drawn") { cache.isComplete ? () : nil }
        let drawn = NotificationContent.alert(record, hasActions: true, images: dunst, tintImages: cache)
        #expect(drawn == NotificationContent.alert(record, hasActions: true, images: dunst))
        let countdown = NotificationContent.countdown(
            record, remaining: 30, duration: 60, paused: false, hasActions: true, images: dunst, tintImages: cache)
        #expect(countdown?.hints["image-data"] == .image(TintImage.disc(tint: .orange, glyph: .pause)))
        cache.prepare([.removed(record)])
        #expect(cache.isComplete)
    }

    @Test("With a folder, the tint images drawn ahead are PNG files that the alert and the countdown name; a file goes with its image")
    func tintImageFiles() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reveille-tint-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let stale = folder.appendingPathComponent("tint-00000000-none-ffffffff.png")
        try Data([1, 2, 3]).write(to: stale)
        let dunst = NotificationContent.ImageSupport(drawsImageData: true, keepsAppIcon: false)
        let record = Self.record(tint: .orange)
        let cache = TintImageCache(folder: folder)
        #expect(!FileManager.default.fileExists(atPath: stale.path), "an earlier agent's file is removed")
        // Before it is drawn, the alert carries the pixels.
        let early = NotificationContent.alert(record, hasActions: true, images: dunst, tintImages: cache)
        #expect(early.hints["image-data"] == .image(TintImage.disc(tint: .orange, glyph: .stop)))
        cache.prepare([.updated(record)])
        try await waitUntil("the images to be drawn") { cache.isComplete ? () : nil }
        let stop = TintImage.Key(tint: .orange, glyph: .stop, glyphColor: .white)
        let file = folder.appendingPathComponent("tint-ff9500ff-stop-ffffffff.png")
        #expect(cache.fileURI(for: stop) == file.absoluteString)
        let alert = NotificationContent.alert(record, hasActions: true, images: dunst, tintImages: cache)
        #expect(alert.hints["image-path"] == .string(file.absoluteString))
        #expect(alert.hints["image-data"] == nil, "the file instead of the pixels")
        #expect(try PNGFileReader.pixels(of: file) == TintImage.disc(tint: .orange, glyph: .stop).data)
        let countdown = NotificationContent.countdown(
            record, remaining: 30, duration: 60, paused: false, hasActions: true, images: dunst, tintImages: cache)
        let pause = folder.appendingPathComponent("tint-ff9500ff-pause-ffffffff.png")
        #expect(countdown?.hints["image-path"] == .string(pause.absoluteString))
        #expect(try PNGFileReader.pixels(of: pause) == TintImage.disc(tint: .orange, glyph: .pause).data)
        cache.prepare([.removed(record)])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty, "the files go with their alarm")
        #expect(cache.fileURI(for: stop) == nil)
    }

    @Test("A PNG file of an image of each kind reads back, through zlib and its CRCs, to the same pixels")
    func pngFiles() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reveille-png-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let disc = TintImage.disc(tint: .green, glyph: .play)
        let opaque = NotificationImage(
            width: 3, height: 2, rowstride: 12, hasAlpha: false, bitsPerSample: 8, channels: 3,
            data: [255, 0, 0, 0, 255, 0, 0, 0, 255, 9, 9, 9, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9, 9])
        for (name, image, expected) in [
            ("disc", disc, disc.data), ("opaque", opaque, [255, 0, 0, 0, 255, 0, 0, 0, 255, 1, 2, 3, 4, 5, 6, 7, 8, 9]),
        ] {
            let file = folder.appendingPathComponent("\(name).png")
            try Data(PNGImage.encode(image)).write(to: file)
            #expect(try PNGFileReader.pixels(of: file) == expected, "\(name)")
        }
    }

    @Test("The countdown's image is its button's symbol: Pause running, Resume paused (image-path)")
    func countdownSymbols() throws {
        let running = try Self.countdown(Self.record())
        #expect(running.icon == "io.github.reveille.Reveille")
        #expect(running.hints["image-path"] == .string("media-playback-pause"))
        #expect(running.hints["image-data"] == nil)
        #expect(try Self.countdown(Self.record(), paused: true).hints["image-path"] == .string("media-playback-start"))
        // The app's own buttons.
        let restart = AlarmButton(text: "Go on", textColor: .white, systemImageName: "arrow.clockwise")
        #expect(try Self.countdown(Self.record(resume: restart), paused: true).hints["image-path"] == .string("view-refresh"))
        // Paused without a paused presentation: the standard Resume button (as its action's label).
        #expect(try Self.countdown(Self.record(resume: nil), paused: true).hints["image-path"] == .string("media-playback-start"))
        // No pause button, or one whose symbol has no icon: no image.
        #expect(try Self.countdown(Self.record(pause: nil)).hints["image-path"] == nil)
        let odd = AlarmButton(text: "Hold", textColor: .white, systemImageName: "tortoise")
        #expect(try Self.countdown(Self.record(pause: odd)).hints["image-path"] == nil)
    }

    @Test("Where the server draws image-data, the countdown's image is a disc in the tint with the button's glyph")
    func countdownTint() throws {
        let dunst = NotificationContent.ImageSupport(drawsImageData: true, keepsAppIcon: false)
        let running = try Self.countdown(Self.record(tint: .orange), images: dunst)
        #expect(running.hints["image-path"] == nil, "image-data instead")
        #expect(running.hints["image-data"] == .image(TintImage.disc(tint: .orange, glyph: .pause, glyphColor: .white)))
        let paused = try Self.countdown(Self.record(tint: .orange), paused: true, images: dunst)
        #expect(paused.hints["image-data"] == .image(TintImage.disc(tint: .orange, glyph: .play, glyphColor: .white)))
        // The button's text colour draws the glyph; a symbol without a glyph leaves the disc plain.
        let black = AlarmButton(text: "Pause", textColor: .black, systemImageName: "pause.circle")
        #expect(
            try Self.countdown(Self.record(tint: .mint, pause: black), images: dunst).hints["image-data"]
                == .image(TintImage.disc(tint: .mint, glyph: .pause, glyphColor: .black)))
        #expect(
            try Self.countdown(Self.record(tint: .mint, pause: nil), images: dunst).hints["image-data"]
                == .image(TintImage.disc(tint: .mint)))
        // A transparent tint has nothing to draw: the symbol, by name.
        let clear = try Self.countdown(Self.record(tint: .clear), images: dunst)
        #expect(clear.hints["image-data"] == nil)
        #expect(clear.hints["image-path"] == .string("media-playback-pause"))
    }

    // MARK: The image

    @Test("The tint image: 48×48 RGBA, the tint's own bytes inside the disc, transparent outside, smooth at the edge")
    func imageBytes() {
        let image = TintImage.disc(tint: Color(hex: "#ff9500")!)
        #expect(image.width == 48 && image.height == 48 && image.rowstride == 192)
        #expect(image.hasAlpha && image.bitsPerSample == 8 && image.channels == 4)
        #expect(image.data.count == 48 * 192)
        let orange = ColorBytes(red: 255, green: 149, blue: 0, opacity: 255)
        #expect(image.pixel(x: 24, y: 24) == orange)
        #expect(image.pixel(x: 1, y: 24) == orange)
        #expect(image.pixel(x: 46, y: 24) == orange)
        #expect(Array(image.data[0..<4]) == [0, 0, 0, 0], "the corner is transparent")
        #expect(image.pixel(x: 47, y: 24) == ColorBytes(red: 0, green: 0, blue: 0, opacity: 0))
        #expect(image.pixel(x: 24, y: 0).opacity == 0)
        var edge = 0
        for y in 0..<48 {
            for x in 0..<48 {
                let pixel = image.pixel(x: x, y: y)
                // Symmetric about the centre.
                #expect(image.pixel(x: 47 - x, y: y) == pixel && image.pixel(x: y, y: x) == pixel)
                if pixel.opacity > 0 {
                    #expect(pixel.red == 255 && pixel.green == 149 && pixel.blue == 0, "(\(x), \(y))")
                }
                if pixel.opacity > 0 && pixel.opacity < 255 { edge += 1 }
            }
        }
        #expect(edge > 40, "the edge is smoothed")

        // A half-transparent tint: half the alpha.
        #expect(
            TintImage.disc(tint: Color(red: 0, green: 0, blue: 1, opacity: 0.5)).pixel(x: 24, y: 24)
                == ColorBytes(red: 0, green: 0, blue: 255, opacity: 128))
    }

    @Test("The glyphs: pause bars, the play triangle, the stop square, in the glyph's colour")
    func glyphs() {
        let tint = ColorBytes(red: 0, green: 122, blue: 255, opacity: 255)
        let white = ColorBytes(red: 255, green: 255, blue: 255, opacity: 255)
        let pause = TintImage.disc(tint: .blue, glyph: .pause)
        #expect(pause.pixel(x: 24, y: 24) == tint, "between the bars")
        #expect(pause.pixel(x: 19, y: 24) == white)
        #expect(pause.pixel(x: 28, y: 24) == white)
        #expect(pause.pixel(x: 19, y: 10) == tint, "above the bars")
        let play = TintImage.disc(tint: .blue, glyph: .play)
        #expect(play.pixel(x: 24, y: 24) == white)
        #expect(play.pixel(x: 12, y: 24) == tint, "left of the triangle")
        #expect(play.pixel(x: 34, y: 30) == tint, "beside its point")
        let stop = TintImage.disc(tint: .blue, glyph: .stop, glyphColor: .black)
        #expect(stop.pixel(x: 24, y: 24) == ColorBytes(red: 0, green: 0, blue: 0, opacity: 255))
        #expect(stop.pixel(x: 24, y: 40) == tint)
        #expect(TintImage.Glyph(iconName: "media-playback-pause") == .pause)
        #expect(TintImage.Glyph(iconName: "view-refresh") == nil)
    }

    @Test("image-data goes to libnotify as a GVariant of type (iiibiiay) carrying the pixels")
    func variant() throws {
        let image = TintImage.disc(tint: .orange, glyph: .pause)
        let variant = try #require(PresenterState.variant(image))
        let sunk = g_variant_ref_sink(variant)
        defer { g_variant_unref(sunk) }
        #expect(String(cString: g_variant_get_type_string(sunk)) == "(iiibiiay)")
        #expect(g_variant_n_children(sunk) == 7)
        let width = g_variant_get_child_value(sunk, 0)
        defer { g_variant_unref(width) }
        #expect(g_variant_get_int32(width) == 48)
        let pixels = g_variant_get_child_value(sunk, 6)
        defer { g_variant_unref(pixels) }
        var count: gsize = 0
        let bytes = try #require(g_variant_get_fixed_array(pixels, &count, 1))
        #expect(Array(UnsafeBufferPointer(start: bytes.assumingMemoryBound(to: UInt8.self), count: Int(count))) == image.data)
    }
}
