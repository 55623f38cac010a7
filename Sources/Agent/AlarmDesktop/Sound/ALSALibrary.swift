import CALSA
import LinuxSystem
import Synchronization

/// alsa-lib, loaded while a sound device or the mixer is in use and unloaded when the last user
/// is done.
///
/// An agent waiting for its next alarm then keeps none of alsa-lib resident: neither its code
/// (0.6 MB) nor the configuration it parsed and the plugins it loaded for the last device (the
/// PipeWire client library among them, 1.3 MB). Each device opened reads the configuration again,
/// as the first one always did. Call the functions by their alsa-lib names on a library from
/// `acquire()` (`alsa.snd_pcm_writei(…)`), and `release()` it once for each `acquire()`.
@dynamicMemberLookup
struct ALSALibrary: @unchecked Sendable {  // Immutable: the function addresses, and a handle only dlclose is given.
    /// The loaded functions.
    private let functions: reveille_alsa

    /// The function `keyPath` names, as loaded.
    subscript<Function>(dynamicMember keyPath: KeyPath<reveille_alsa, Function>) -> Function {
        functions[keyPath: keyPath]
    }

    /// alsa-lib's message for an error code (`snd_strerror`).
    func message(_ code: Int32) -> String {
        functions.snd_strerror(code).map { String(cString: $0) } ?? "error \(code)"
    }

    /// How many users hold the library, and the copy they use.
    private static let users = Mutex<(count: Int, library: ALSALibrary?)>((0, nil))

    /// alsa-lib for one more user: the first loads it (`dlopen`, with alsa-lib's own messages
    /// silenced: Reveille says what failed itself).
    ///
    /// - Throws: `ALSALibraryError` with the loader's message when the library cannot be loaded
    ///   (the package depends on it).
    static func acquire() throws(ALSALibraryError) -> ALSALibrary {
        try users.withLock { (users) throws(ALSALibraryError) -> ALSALibrary in
            if let library = users.library {
                users.count += 1
                return library
            }
            var result: Int32 = 0
            let functions = reveille_alsa_load(&result)
            guard result == 0 else { throw ALSALibraryError(reason: String(cString: reveille_alsa_load_error())) }
            let library = ALSALibrary(functions: functions)
            users = (1, library)
            return library
        }
    }

    /// One user is done. After the last: frees the configuration alsa-lib parsed and the plugins
    /// it loaded (`snd_config_update_free_global`), unloads alsa-lib, and gives the freed memory
    /// back to the system. Under the lock, so no other user is acquiring it meanwhile.
    static func release() {
        users.withLock { users in
            guard let library = users.library else { return }
            users.count -= 1
            guard users.count == 0 else { return }
            users.library = nil
            _ = library.functions.snd_config_update_free_global()
            reveille_alsa_unload(library.functions)
            Memory.returnFreeMemory()
        }
    }
}

/// alsa-lib could not be loaded.
struct ALSALibraryError: Error, Sendable, CustomStringConvertible {
    /// The loader's message (`dlerror`).
    let reason: String

    var description: String { "alsa-lib could not be loaded: \(reason)" }
}
