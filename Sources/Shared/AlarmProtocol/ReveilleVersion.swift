/// Reveille's version: what `reveille --version` and `reveilled --version` print and the agent's
/// `Version` property (`reveille status`) says. Written here only; `scripts/install` and
/// `scripts/package` read it from the line below.
package enum ReveilleVersion {
    /// The version string.
    package static let current = "0.1.0"
}
