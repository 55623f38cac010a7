import AlarmCore
import AlarmModel
import Foundation
import Testing
import TestRequirements
import TestSupport

/// What people read, in their language and clock: the real agent's notifications and the CLI's
/// tables under German, US English and GNOME's clock format, with the catalogs compiled from
/// `po/` and the glibc locales made by `localedef`, as on an installed system.
@Suite("Agent: the person's language and clock", .onItsOwnThread, .serialized, .requires(Built.unavailable), .timeLimit(.minutes(5)))
struct LanguageTests {
    /// A sandbox with dunst and the agent in `environment`.
    static func start(_ environment: [String: String]) async throws -> AgentFixture {
        try await AgentFixture.start(
            notificationServer: true, pacedBytesPerSecond: AlertingTests.pace, agentArguments: ["--ramp", "0"],
            agentEnvironment: environment)
    }

    @Test("Under LANG=de_DE.UTF-8 the countdown and the alert speak German: buttons, words and a 24-hour time")
    func germanAlert() async throws {
        let environment = try TranslationCatalogs.environment(lang: "de_DE.UTF-8")
        let fixture = try await Self.start(environment)
        defer { fixture.stop() }
        let monitor = try fixture.sandbox.monitorNotifyCalls()
        let added = try await fixture.run(Built.path("reveille"), ["timer", "3s", "--title", "Tee", "--snooze", "5m"])
        let id = try #require(UUID(uuidString: added.line), "\(added)")

        let countdown = try await monitor.waitForNotify(matching: { $0.summary == "Tee" && $0.urgency == .byte(0) })
        #expect(countdown.body.hasPrefix("noch 0:0"), "\(countdown.body)")
        #expect(countdown.body.hasSuffix(" · Tee"), "\(countdown.body)")
        #expect(countdown.actionLabels == ["pause": "Pause", "cancel": "Abbrechen"])

        let alert = try await monitor.waitForNotify(matching: { AlertingTests.isAlert($0, "Tee") })
        let due = try await DoNotDisturbDunstTests.scheduledAt(of: id, fixture)
        // What `date` prints in German for that minute (German's time pattern is %T: the 24-hour clock).
        #expect(alert.body == (try TranslationCatalogs.date("%R", at: due, locale: "de_DE.UTF-8", zone: nil)) + " · Tee")
        #expect(alert.actionLabels["stop"] == "Stopp")
        #expect(alert.actionLabels["repeat"] == "Wiederholen")
        #expect(alert.actionLabels["default"] == "Anzeigen")
        #expect(try await fixture.reveille("stop", id.uuidString).status == .exited(0))
        try await fixture.waitForSilence()
    }

    @Test("With LC_TIME=en_US.UTF-8 the alert's time is on the 12-hour clock, in English words")
    func twelveHourAlert() async throws {
        let environment = try TranslationCatalogs.environment(lang: "C.UTF-8", time: "en_US.UTF-8")
        let fixture = try await Self.start(environment)
        defer { fixture.stop() }
        let monitor = try fixture.sandbox.monitorNotifyCalls()
        let added = try await fixture.run(Built.path("reveille"), ["timer", "1s", "--title", "Tea"])
        let id = try #require(UUID(uuidString: added.line), "\(added)")
        let alert = try await monitor.waitForNotify(matching: { AlertingTests.isAlert($0, "Tea") })
        let due = try await DoNotDisturbDunstTests.scheduledAt(of: id, fixture)
        // What `date` prints in US English for that minute, as the desktop's 12-hour clock shows it
        // (the hour unpadded).
        let expected = try TranslationCatalogs.date("%-l:%M %p", at: due, locale: "en_US.UTF-8", zone: nil)
        #expect(expected.hasSuffix(" AM") || expected.hasSuffix(" PM"))
        #expect(alert.body == expected + " · Tea")
        #expect(alert.actionLabels["stop"] == "Stop")
        #expect(try await fixture.reveille("stop", id.uuidString).status == .exited(0))
        try await fixture.waitForSilence()
    }

    @Test("reveille list and show: 7:30 AM under LC_TIME=en_US.UTF-8; German headings, day names and 07:30 under de_DE")
    func cliTables() async throws {
        let fixture = try await AgentFixture.start()
        defer { fixture.stop() }
        let american = try TranslationCatalogs.environment(lang: "C.UTF-8", time: "en_US.UTF-8")
        let german = try TranslationCatalogs.environment(lang: "de_DE.UTF-8")
        let added = try await fixture.run(Built.path("reveille"), ["add", "7:30", "--title", "Work"], environment: american)
        let id = try #require(UUID(uuidString: added.line), "\(added)")

        let list = try await fixture.run(Built.path("reveille"), ["list"], environment: american)
        #expect(list.status == .exited(0), "\(list)")
        #expect(list.output.contains(" 7:30 AM "), "\(list.output)")
        let show = try await fixture.run(Built.path("reveille"), ["show", id.uuidString], environment: american)
        #expect(show.output.contains("once at 7:30 AM"), "\(show.output)")

        let inGerman = try await fixture.run(Built.path("reveille"), ["list"], environment: german)
        let lines = inGerman.output.split(separator: "\n").map(String.init)
        #expect(lines.first?.split(separator: " ") == ["ID", "ART", "ZUSTAND", "NÄCHSTER", "IN", "TITEL"], "\(inGerman.output)")
        let row = try #require(lines.dropFirst().first, "\(inGerman.output)")
        let day = try #require(row.split(separator: " ").dropFirst(3).first.map(String.init), "\(row)")
        // The C library's German day names, as `date +%a` prints them (Sunday 2026-11-29 on).
        let germanDays = try (0..<7).map { day in
            try TranslationCatalogs.date("%a", at: Date(timeIntervalSince1970: 1_795_953_600 + Double(day) * 86_400), locale: "de_DE.UTF-8")
        }
        #expect(germanDays == ["So", "Mo", "Di", "Mi", "Do", "Fr", "Sa"])
        #expect(germanDays.contains(day), "\(row)")
        #expect(row.contains("\(day) 07:30"), "\(row)")
        // Without a locale (the C locale), the table is as it always was.
        let plain = try await fixture.reveille("list")
        #expect(plain.output.hasPrefix("ID "), "\(plain.output)")
        #expect(plain.output.contains(" 07:30 "), "\(plain.output)")
    }

    @Test(
        "GNOME's clock-format, once set, decides the clock: 12h gives 7:30 AM in the C locale, 24h gives 07:30 in US English",
        .requires(DesktopDoubles.gsettingsUnavailable ?? DesktopDoubles.schemaMissing("org.gnome.desktop.interface")))
    func gnomeClockFormat() async throws {
        let fixture = try await AgentFixture.start()
        defer { fixture.stop() }
        try await DesktopDoubles.startDconf(in: fixture.sandbox)
        let plain = try TranslationCatalogs.environment(lang: "C.UTF-8")
        let american = try TranslationCatalogs.environment(lang: "C.UTF-8", time: "en_US.UTF-8")
        let added = try await fixture.run(Built.path("reveille"), ["add", "7:30", "--title", "Work"], environment: plain)
        #expect(added.status == .exited(0), "\(added)")

        try await DesktopDoubles.set("org.gnome.desktop.interface", "clock-format", "12h", in: fixture.sandbox)
        try await DesktopDoubles.waitFor("org.gnome.desktop.interface", "clock-format", "'12h'", in: fixture.sandbox)
        let twelve = try await fixture.run(Built.path("reveille"), ["list"], environment: plain)
        #expect(twelve.output.contains(" 7:30 AM "), "\(twelve.output)")
        #expect(twelve.error.isEmpty, "\(twelve.error)")

        try await DesktopDoubles.set("org.gnome.desktop.interface", "clock-format", "24h", in: fixture.sandbox)
        try await DesktopDoubles.waitFor("org.gnome.desktop.interface", "clock-format", "'24h'", in: fixture.sandbox)
        let twentyFour = try await fixture.run(Built.path("reveille"), ["list"], environment: american)
        #expect(twentyFour.output.contains(" 07:30 "), "\(twentyFour.output)")
        #expect(!twentyFour.output.contains(" AM "), "\(twentyFour.output)")
    }

    @Test(
        "In a Plasma session, the locale Plasma's Region & Language chose for times (plasmalocalerc, Plasma 5's plasma-localerc: [Formats] LC_TIME) decides the clock of the alert and of reveille list, read again after it changes"
    )
    func plasmaTimeLocale() async throws {
        let plasma = try TranslationCatalogs.environment(lang: "C.UTF-8").merging(["XDG_CURRENT_DESKTOP": "KDE"]) { $1 }
        let fixture = try await Self.start(plasma)
        defer { fixture.stop() }
        let configHome = fixture.sandbox.configHome
        func choose(_ locale: String, in file: String) throws {
            for old in ["plasmalocalerc", "plasma-localerc"] {
                try? FileManager.default.removeItem(at: configHome.appendingPathComponent(old))
            }
            try "[Formats]\nLANG=C.UTF-8\nLC_TIME=\(locale)\n".write(
                to: configHome.appendingPathComponent(file), atomically: true, encoding: .utf8)
        }
        let monitor = try fixture.sandbox.monitorNotifyCalls()

        /// The alert of a 1-second timer called `title`, and what `date +format` prints for the
        /// minute it rang under `LC_ALL=locale` (the made locales, this machine's zone).
        func ring(_ title: String, _ format: String, in locale: String) async throws -> (body: String, expected: String) {
            let added = try await fixture.run(Built.path("reveille"), ["timer", "1s", "--title", title], environment: plasma)
            let id = try #require(UUID(uuidString: added.line), "\(added)")
            let alert = try await monitor.waitForNotify(matching: { AlertingTests.isAlert($0, title) })
            let due = try await DoNotDisturbDunstTests.scheduledAt(of: id, fixture)
            #expect(try await fixture.reveille("stop", id.uuidString).status == .exited(0))
            try await fixture.waitForSilence()
            return (alert.body, try TranslationCatalogs.date(format, at: due, locale: locale, zone: nil) + " · " + title)
        }

        // The agent's environment says C (24 hours): the alert follows Plasma's choice of US English,
        // as the desktop's 12-hour clock shows it (the hour unpadded).
        try choose("en_US.UTF-8", in: "plasmalocalerc")
        let twelve = try await ring("Tea", "%-l:%M %p", in: "en_US.UTF-8")
        #expect(twelve.body == twelve.expected)
        #expect(twelve.body.contains(" AM · ") || twelve.body.contains(" PM · "), "\(twelve.body)")
        // Changed to British English (Plasma 5's file) while the agent runs: the next alert is on the
        // 24-hour clock (British English's time pattern is %T).
        try choose("en_GB.UTF-8", in: "plasma-localerc")
        let twentyFour = try await ring("Tee", "%R", in: "en_GB.UTF-8")
        #expect(twentyFour.body == twentyFour.expected)
        #expect(!twentyFour.body.contains(" AM ") && !twentyFour.body.contains(" PM "), "\(twentyFour.body)")

        let added = try await fixture.run(Built.path("reveille"), ["add", "7:30", "--title", "Work"], environment: plasma)
        #expect(added.status == .exited(0), "\(added)")
        let list24 = try await fixture.run(Built.path("reveille"), ["list"], environment: plasma)
        #expect(list24.output.contains(" 07:30 "), "\(list24.output)")
        try choose("en_US.UTF-8", in: "plasmalocalerc")
        let list12 = try await fixture.run(Built.path("reveille"), ["list"], environment: plasma)
        #expect(list12.output.contains(" 7:30 AM "), "\(list12.output)")
        // Outside a Plasma session the file is not Plasma's to speak for: the C locale's 24-hour clock.
        let elsewhere = try await fixture.run(
            Built.path("reveille"), ["list"], environment: plasma.merging(["XDG_CURRENT_DESKTOP": "XFCE"]) { $1 })
        #expect(elsewhere.output.contains(" 07:30 "), "\(elsewhere.output)")
    }
}
