import Foundation

extension GNOMEShellServer {
    /// Opens the overview (without animation) and types `text` into its search entry, as a person
    /// typing there does: the entry's text changes and the shell's search controller asks every
    /// search provider.
    package func typeInOverviewSearch(_ text: String) throws {
        try eval(
            """
            (() => {
                Main.overview.show();
                Main.overview.searchEntry.grab_key_focus();
                Main.overview.searchEntry.set_text(\(Self.literal(text)));
                return true;
            })()
            """)
    }
}
