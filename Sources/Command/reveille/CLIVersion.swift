/// The version of the `reveille` command.
enum CLIVersion {
    /// The version string.
    static let current = "0.1.0"
}
