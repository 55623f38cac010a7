@testable import AlarmDesktop
import Foundation
import Localization
import Testing
import TestSupport

/// The snooze choices' labels ("Snooze 5 min") in another language, looked up in the compiled
/// catalog by gettext itself, as the agent's `dgettext` looks them up under that locale.
@Suite("Translations: the snooze choices' labels")
struct SnoozeChoiceTranslationTests {
    /// `message` as gettext translates it under `lang`, from the catalogs compiled from `po/`.
    static func translated(_ message: String, lang: String) throws -> String {
        let environment = try TranslationCatalogs.environment(lang: lang)
        let (status, output) = try TranslationCatalogs.run(
            "env",
            [
                "-i", "LANG=\(lang)", "LOCPATH=\(environment["LOCPATH"] ?? "")",
                "TEXTDOMAINDIR=\(environment[Translation.directoryVariable] ?? "")",
                "gettext", "-d", Translation.domain, "--", message,
            ])
        guard status == 0 else { throw TranslationLookupFailed(message: message, output: output) }
        return output
    }

    struct TranslationLookupFailed: Error {
        let message: String
        let output: String
    }

    @Test("Under de_DE.UTF-8 the labels read “5 Min. schlummern” and “1 Std. 30 Min. schlummern”")
    func german() throws {
        var cache: [String: String] = [:]
        var failure: (any Error)?
        let german = { (message: String) -> String in
            if let known = cache[message] { return known }
            do {
                let text = try Self.translated(message, lang: "de_DE.UTF-8")
                cache[message] = text
                return text
            } catch {
                failure = error
                return message
            }
        }
        #expect(SnoozeChoices.label(seconds: 300, translate: german) == "5 Min. schlummern")
        #expect(SnoozeChoices.label(seconds: 5_400, translate: german) == "1 Std. 30 Min. schlummern")
        #expect(SnoozeChoices.label(seconds: 90, translate: german) == "1 Min. 30 Sek. schlummern")
        if let failure { throw failure }
        // Each of the label's texts has a German translation of its own.
        for message in ["Snooze %s", "%s h", "%s min", "%s s"] {
            #expect(cache[message] != nil && cache[message] != message, "\(message) → \(cache[message] ?? "not looked up")")
        }
    }
}
