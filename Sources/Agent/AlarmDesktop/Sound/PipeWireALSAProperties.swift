import FoundationEssentials
import Synchronization
import AlarmModel

#if canImport(Glibc)
import Glibc
#endif

/// The stream properties pipewire-alsa gives the next PCM this process opens: its `PIPEWIRE_ALSA`
/// environment variable, which the plugin reads (`getenv`) in `snd_pcm_open` and applies to the
/// stream's node (pipewire-alsa 0.3.65 and 1.4 alike; its configuration arguments carry only a role
/// and a node name, not the application or the media name).
///
/// The variable is process-wide, so opens that set it are serialised here, each restoring the value
/// the process started with. Writing the environment while other threads may read it is safe with
/// glibc in the way it is done here: once the variable exists, `setenv` replaces one pointer in the
/// environment array and never frees the strings it replaced, so a concurrent `getenv` sees the old
/// value or the new one. Only its creation (the first open, when the process did not have the
/// variable) grows the array; the agent creates it early (`prepare()`), before it has an alert.
/// A value the person set for the process is kept: their properties are applied after Reveille's.
package enum PipeWireALSAProperties {
    /// The variable pipewire-alsa reads.
    package static let variable = "PIPEWIRE_ALSA"

    /// The value the process started with (nil: none), read once.
    private static let original: String? = ProcessInfo.processInfo.environment[variable]
    /// Serialises the opens that set the variable.
    private static let lock = Mutex(())

    /// Creates the variable (with the value the process started with, or an empty object), so that
    /// later opens only replace it. Call it early, while the process has one thread.
    package static func prepare() {
        lock.withLock { _ in _ = setenv(variable, original ?? "{ }", 1) }
    }

    /// Runs `open` with `PIPEWIRE_ALSA` holding `identity`'s properties (then the process's own),
    /// and puts the process's value back after it.
    package static func opening<Result>(as identity: SoundStreamIdentity, _ open: () throws -> Result) rethrows -> Result {
        try lock.withLock { _ in
            setenv(variable, combined(identity.pipeWireProperties, with: original), 1)
            defer { setenv(variable, original ?? "{ }", 1) }
            return try open()
        }
    }

    /// Reveille's properties followed by the ones in `own` (an SPA-JSON object), so the person's win.
    static func combined(_ properties: String, with own: String?) -> String {
        guard let own = own?.trimmingWhitespace(), own.hasPrefix("{"), own.hasSuffix("}"),
            own.count > 2
        else { return properties }
        return String(properties.dropLast()) + own.dropFirst().dropLast() + " }"
    }
}
