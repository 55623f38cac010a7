import CLibNotify
import FoundationEssentials
import Synchronization

/// One boolean GSettings key, read, written and watched on a GLib thread of its own.
///
/// The schema is looked up first (`g_settings_schema_source_lookup`, then
/// `g_settings_schema_has_key`): `g_settings_new` aborts the process when a schema is missing, and a
/// desktop that is not installed must never abort the agent. Changes come as `changed::KEY`
/// signals on the thread's `GMainContext` (from dconf's `Notify`, or the keyfile backend's file
/// monitor): nothing is polled.
final class GSettingsSwitch: Sendable {
    /// The schema id, such as `org.gnome.desktop.notifications`.
    let schema: String
    /// The key, such as `show-banners`.
    let key: String
    private let thread = GLibThread()
    private let state: SwitchState

    /// Whether `schema` is installed and has `key` (without creating settings, so without aborting).
    static func isInstalled(schema: String, key: String) -> Bool {
        guard let source = g_settings_schema_source_get_default(),
            let found = g_settings_schema_source_lookup(source, schema, 1)
        else { return false }
        defer { g_settings_schema_unref(found) }
        return g_settings_schema_has_key(found, key) != 0
    }

    /// Creates the settings object for `schema` on a new thread; `nil` when the schema or key is
    /// not installed.
    init?(schema: String, key: String) {
        guard Self.isInstalled(schema: schema, key: key) else { return nil }
        self.schema = schema
        self.key = key
        let state = SwitchState(schema: schema, key: key)
        self.state = state
        thread.start(name: "reveille-gset", setUp: { state.start() }, tearDown: { state.finish() })
    }

    deinit { thread.quit() }

    /// The key's value now.
    func read() async -> Bool {
        await withCheckedContinuation { continuation in
            thread.invoke { [state] in continuation.resume(returning: state.read()) }
        }
    }

    /// Writes the key and waits until the backend has stored it (`g_settings_sync`); false when
    /// it is not writable.
    func write(_ value: Bool) async -> Bool {
        await withCheckedContinuation { continuation in
            thread.invoke { [state] in continuation.resume(returning: state.write(value)) }
        }
    }

    /// A tick on each `changed::KEY`, from now until `stop()`.
    func changes() async -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            thread.invoke { [state] in
                state.watchers.withLock { $0.append(continuation) }
                done.resume()
            }
        }
        return stream
    }

    /// Ends the change streams and the thread.
    func stop() {
        for continuation in state.watchers.withLock({ watchers in
            defer { watchers = [] }; return watchers
        }) {
            continuation.finish()
        }
        thread.quit()
    }
}

/// The settings object and its signal handler; touched only on the `GSettingsSwitch`'s thread
/// (the watcher list, also read by `stop()`, is behind a mutex).
private final class SwitchState: @unchecked Sendable {  // safe: the GSettings pointer is used on its GLib thread only
    let schema: String
    let key: String
    var settings: OpaquePointer?
    var handler: gulong = 0
    let watchers = Mutex<[AsyncStream<Void>.Continuation]>([])

    init(schema: String, key: String) {
        self.schema = schema
        self.key = key
    }

    /// `g_settings_new_full` with the looked-up schema, the `changed::KEY` handler, and a first
    /// read (GSettings only signals changes of a key read since the handler was connected).
    func start() {
        guard let source = g_settings_schema_source_get_default(),
            let found = g_settings_schema_source_lookup(source, schema, 1)
        else { return }
        defer { g_settings_schema_unref(found) }
        guard let created = g_settings_new_full(found, nil, nil) else { return }
        settings = OpaquePointer(created)
        let box = Unmanaged.passRetained(WeakSwitch(self)).toOpaque()
        handler = reveille_settings_connect_changed(
            created, "changed::" + key,
            { _, _, data in
                Unmanaged<WeakSwitch>.fromOpaque(data!).takeUnretainedValue().state?.changed()
            }, box,
            { data, _ in Unmanaged<WeakSwitch>.fromOpaque(data!).release() })
        _ = read()
    }

    func finish() {
        guard let settings else { return }
        let pointer = UnsafeMutablePointer<GSettings>(settings)
        if handler != 0 { g_signal_handler_disconnect(pointer, handler) }
        handler = 0
        g_object_unref(pointer)
        self.settings = nil
    }

    func read() -> Bool {
        guard let settings else { return false }
        return g_settings_get_boolean(UnsafeMutablePointer<GSettings>(settings), key) != 0
    }

    func write(_ value: Bool) -> Bool {
        guard let settings else { return false }
        let written = g_settings_set_boolean(UnsafeMutablePointer<GSettings>(settings), key, value ? 1 : 0) != 0
        g_settings_sync()
        return written
    }

    func changed() {
        for continuation in watchers.withLock({ $0 }) { continuation.yield() }
    }
}

/// The state, weakly, for the signal handler's `user_data`.
private final class WeakSwitch {
    weak var state: SwitchState?
    init(_ state: SwitchState) { self.state = state }
}
