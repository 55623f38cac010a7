internal import CLinux
import FoundationEssentials

/// Reveille's messages in the person's language, from its gettext catalogs (`reveille.mo`).
///
/// The catalogs are the desktop's convention: `po/LANG.po` in the repository, compiled to
/// `share/locale/LANG/LC_MESSAGES/reveille.mo` beside the programs' `bin` folder (or in
/// `REVEILLE_LOCALEDIR`), chosen by glibc from the environment (`LANGUAGE`, `LC_ALL`,
/// `LC_MESSAGES`, `LANG`) as every GNOME and KDE program's are. A message without a translation,
/// or any message under the C locale, is the English text itself.
///
/// Every translatable text is written at its call as a literal to `text`, `format`, `plural` or
/// `marked`, so that `scripts/update-translations` finds it, and the translation tests check that
/// each language translates each one.
package enum Translation {
    /// The gettext domain: the catalogs' file name.
    package static let domain = "reveille"

    /// The variable that names the folder holding the catalogs, instead of `../share/locale`.
    package static let directoryVariable = "REVEILLE_LOCALEDIR"

    /// The folder holding `LANG/LC_MESSAGES/reveille.mo`: `REVEILLE_LOCALEDIR`, or `share/locale`
    /// beside the folder of this program (`/usr/bin` → `/usr/share/locale`).
    package static func catalogDirectory(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        executable: String? = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
    ) -> String {
        if let folder = environment[directoryVariable], !folder.isEmpty { return folder }
        let program = URL(fileURLWithPath: executable ?? CommandLine.arguments[0])
        return program.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("share/locale").standardizedFileURL.path
    }

    /// Binds the domain once: the messages' locale from the environment (`setlocale(LC_MESSAGES, "")`,
    /// only that category: numbers and dates stay as the program formats them), the catalog folder,
    /// and UTF-8 as the text's encoding.
    private static let bound: Bool = {
        _ = setlocale(LC_MESSAGES, "")
        _ = bindtextdomain(domain, catalogDirectory())
        _ = bind_textdomain_codeset(domain, "UTF-8")
        return true
    }()

    /// `message` in the person's language (`dgettext`).
    package static func text(_ message: String) -> String {
        guard !message.isEmpty, bound else { return message }
        // Without a translation, dgettext returns the pointer it was given: the message's own
        // C string, which lives only inside withCString. The text is copied out before it ends.
        return message.withCString { pointer in
            dgettext(domain, pointer).map { String(cString: $0) } ?? message
        }
    }

    /// `message` in the person's language with its placeholders filled (see `MessageFormat`).
    package static func format(_ message: String, _ arguments: String...) -> String {
        MessageFormat.fill(text(message), arguments)
    }

    /// The form of `singular`/`plural` for `count` in the person's language (`dngettext`), its
    /// placeholders filled with `arguments` (see `MessageFormat`).
    package static func plural(_ singular: String, _ plural: String, count: Int, _ arguments: String...) -> String {
        let fallback = count == 1 ? singular : plural
        guard bound else { return MessageFormat.fill(fallback, arguments) }
        // As in `text`: the pointer may be one of the arguments' own, copied out before they end.
        let chosen = singular.withCString { one in
            plural.withCString { many in
                dngettext(domain, one, many, UInt(clamping: max(0, count))).map { String(cString: $0) } ?? fallback
            }
        }
        return MessageFormat.fill(chosen, arguments)
    }

    /// `message`, unchanged: marks a text that is translated later with `text` (a label that arrives
    /// at run time, such as an app's button saying "Stop"), so that the catalogs carry it (gettext's `N_`).
    package static func marked(_ message: String) -> String { message }
}
