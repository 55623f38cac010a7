import Localization
import Testing

/// Filling a translated message's placeholders.
@Suite("Message placeholders")
struct MessageFormatTests {
    @Test("%s and %d take the arguments in order; %N$s names one; %% is a percent sign")
    func fills() {
        #expect(MessageFormat.fill("To stop it: reveille stop %s", ["0a1b2c3d"]) == "To stop it: reveille stop 0a1b2c3d")
        #expect(MessageFormat.fill("%s of %d", ["3", "5"]) == "3 of 5")
        #expect(MessageFormat.fill("%2$s, then %1$s", ["first", "second"]) == "second, then first")
        #expect(MessageFormat.fill("100%% at %s", ["7:30"]) == "100% at 7:30")
        #expect(MessageFormat.fill("„%s“ erlauben?", ["Uhr"]) == "„Uhr“ erlauben?")
    }

    @Test("A placeholder without its argument, or one it does not know, stays as written")
    func leavesTheRest() {
        #expect(MessageFormat.fill("%s and %s", ["one"]) == "one and %s")
        #expect(MessageFormat.fill("%x %5$s %", ["a"]) == "%x %5$s %")
        #expect(MessageFormat.fill("no placeholders", ["unused"]) == "no placeholders")
        // An argument is text, never read as a template itself.
        #expect(MessageFormat.fill("%s", ["%s%d%%"]) == "%s%d%%")
    }
}

/// Messages without a translation come back whole.
@Suite("Untranslated messages")
struct UntranslatedMessageTests {
    @Test("A message no catalog has is returned as it was given, long or short, many times over")
    func returnedWhole() {
        // dgettext hands back the very pointer it was given for an unknown message: the text must
        // be copied before Swift frees its temporary C string (which crashed the agent once).
        for index in 0..<2_000 {
            let message = "An untranslated message, long enough for the heap: \(index) " + String(repeating: "x", count: index % 97)
            #expect(Translation.text(message) == message)
            #expect(
                Translation.plural(message, message + " (many)", count: index, String(index))
                    == (index == 1 ? message : message + " (many)"))
        }
    }
}
