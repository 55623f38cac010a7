import AlarmCore
import AlarmModel
@testable import AlarmDesktop
import Foundation
import Localization
import Testing
import TestRequirements
import TestSupport

/// The translations are complete: every text the sources mark is in the template, and every
/// language translates every one of them, with the same placeholders.
@Suite("Translations: complete, checked, found")
struct TranslationCatalogTests {
    /// The texts in `po/reveille.pot` (its `msgid` lines, the header left out).
    static func templateCount() throws -> Int {
        let template = try String(contentsOf: TranslationCatalogs.sourceFolder.appendingPathComponent("reveille.pot"), encoding: .utf8)
        return template.split(separator: "\n").filter { $0.hasPrefix("msgid ") && $0 != "msgid \"\"" }.count
    }

    @Test("po/reveille.pot holds exactly the texts the sources and desktop entries mark (scripts/update-translations --check)")
    func templateIsCurrent() throws {
        let (status, output) = try TranslationCatalogs.run("scripts/update-translations", ["--check"])
        #expect(status == 0, "\(output)")
        #expect(try Self.templateCount() >= 30)
    }

    @Test("German, French, Spanish and Brazilian Portuguese translate every text, none fuzzy, placeholders intact (msgfmt --check)")
    func everyLanguageComplete() throws {
        let languages = try TranslationCatalogs.languages()
        #expect(Set(["de", "fr", "es", "pt_BR"]).isSubset(of: languages), "\(languages)")
        let count = try Self.templateCount()
        for language in languages {
            let file = TranslationCatalogs.sourceFolder.appendingPathComponent("\(language).po").path
            let (status, output) = try TranslationCatalogs.run("msgfmt", ["--check", "--statistics", "-o", "/dev/null", file])
            #expect(status == 0, "\(language): \(output)")
            #expect(output.contains("\(count) translated message"), "\(language): \(output) (the template has \(count))")
            #expect(!output.contains("fuzzy") && !output.contains("untranslated"), "\(language): \(output)")
        }
    }

    @Test("AlarmKit's own button labels are in the catalogs, to be translated when an alarm shows them")
    func standardButtons() {
        let buttons: [AlarmButton] = [.stopButton, .snoozeButton, .repeatButton, .openAppButton, .pauseButton, .resumeButton]
        for button in buttons {
            #expect(NotificationContent.standardButtonLabels.contains(button.text.key), "\(button.text.key)")
        }
    }

    @Test("The catalogs are found in REVEILLE_LOCALEDIR, or in share/locale beside the program's bin folder")
    func catalogFolder() {
        #expect(
            Translation.catalogDirectory(environment: ["REVEILLE_LOCALEDIR": "/opt/x/locale"], executable: "/usr/bin/reveilled")
                == "/opt/x/locale")
        #expect(Translation.catalogDirectory(environment: [:], executable: "/usr/bin/reveilled") == "/usr/share/locale")
        #expect(Translation.catalogDirectory(environment: [:], executable: "/home/a/.local/bin/reveille") == "/home/a/.local/share/locale")
    }
}
