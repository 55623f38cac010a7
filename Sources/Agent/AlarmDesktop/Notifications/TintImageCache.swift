import AlarmModel
import AlarmPresentation
import AlarmRecords
import FoundationEssentials
import Synchronization

/// The tint images of the alarms the agent keeps, drawn ahead of time, so that an alert's
/// notification takes its image from here instead of drawing it at the instant it must go out.
///
/// `prepare(_:)` hears each stored change (from the engine's change observer, which must be
/// quick): it counts which images the alarms will need (`NotificationContent.tintImageKeys`) and
/// draws the missing ones on a task of its own, off the engine and off the presenter's thread; an
/// image no alarm needs any more is dropped. `image(for:)` answers from the drawn images, and
/// draws one that is not there yet (an alarm due the moment it was set) itself.
///
/// With a folder, each image drawn ahead is also written there as a PNG file, which
/// `fileURI(for:)` names: a notification that names the file (`image-path`) carries about 600
/// bytes over the bus where one with the pixels (`image-data`) carries 9.8 KB, at the alert's
/// instant and at every update of a countdown. A file is removed with its image, and the files an
/// earlier agent left are removed when the cache is made.
package final class TintImageCache: Sendable {
    private struct State {
        /// The images each alarm needs.
        var keys: [UUID: Set<TintImage.Key>] = [:]
        /// How many alarms need each image.
        var uses: [TintImage.Key: Int] = [:]
        /// The images drawn, of those needed.
        var images: [TintImage.Key: NotificationImage] = [:]
        /// The `file://` URIs of the images written to the folder, of those drawn.
        var files: [TintImage.Key: String] = [:]
        /// Whether a task is drawing the missing ones.
        var drawing = false

        /// An image needed and not drawn yet.
        var missing: TintImage.Key? { uses.keys.first { images[$0] == nil } }
    }

    private let state = Mutex(State())
    /// Where the images are written as PNG files; `nil`: nowhere.
    private let folder: URL?

    /// An empty cache; with `folder`, one that writes its images there (made if missing, emptied
    /// of earlier files; `nil` when it cannot be made).
    package init(folder: URL? = nil) {
        self.folder = folder.flatMap(Self.prepared)
    }

    /// The folder for the agent's tint images: `$XDG_RUNTIME_DIR/reveille/tint`, or `nil` without
    /// a runtime folder.
    package static func runtimeFolder(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL? {
        guard let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") else { return nil }
        return URL(fileURLWithPath: runtime).appendingPathComponent("reveille").appendingPathComponent("tint")
    }

    /// `folder` made (owner only) and emptied of the PNG files an earlier agent wrote, or `nil`
    /// when it cannot be made.
    private static func prepared(_ folder: URL) -> URL? {
        let files = FileManager.default
        do {
            try files.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            for name in try files.contentsOfDirectory(atPath: folder.path) where name.hasSuffix(".png") {
                try? files.removeItem(at: folder.appendingPathComponent(name))
            }
            return folder
        } catch {
            return nil
        }
    }

    /// Notes what `changes` need, and starts drawing what is missing; returns at once.
    package func prepare(_ changes: [AlarmChange]) {
        let startsDrawing = state.withLock { state -> Bool in
            for change in changes {
                let (id, needed): (UUID, Set<TintImage.Key>) =
                    switch change {
                    case .updated(let record): (record.id, NotificationContent.tintImageKeys(for: record))
                    case .removed(let record): (record.id, [])
                    }
                let before = state.keys[id] ?? []
                guard needed != before else { continue }
                state.keys[id] = needed.isEmpty ? nil : needed
                for key in needed.subtracting(before) { state.uses[key, default: 0] += 1 }
                for key in before.subtracting(needed) {
                    let left = (state.uses[key] ?? 1) - 1
                    state.uses[key] = left > 0 ? left : nil
                    if left <= 0 {
                        state.images[key] = nil
                        // Under the lock: a drawing that writes the same key again comes after.
                        if state.files.removeValue(forKey: key) != nil { removeFile(of: key) }
                    }
                }
            }
            guard !state.drawing, state.missing != nil else { return false }
            state.drawing = true
            return true
        }
        if startsDrawing { Task.detached(priority: .utility) { [self] in drawMissing() } }
    }

    /// The image for `key`: the one drawn ahead, or drawn now.
    package func image(for key: TintImage.Key) -> NotificationImage {
        if let image = state.withLock({ $0.images[key] }) { return image }
        let image = key.draw()
        state.withLock { state in
            if state.uses[key] != nil { state.images[key] = image }
        }
        return image
    }

    /// The `file://` URI of `key`'s image written ahead, or `nil` when it is not (yet) written.
    package func fileURI(for key: TintImage.Key) -> String? {
        state.withLock { $0.files[key] }
    }

    /// The PNG file of `key`'s image in `folder`, named after the key (its colours and glyph).
    static func file(for key: TintImage.Key, in folder: URL) -> URL {
        func hex(_ color: Color) -> String {
            let bytes = color.bytes
            return [bytes.red, bytes.green, bytes.blue, bytes.opacity].map { byte in
                let digits = String(byte, radix: 16)
                return digits.count == 1 ? "0" + digits : digits
            }.joined()
        }
        let glyph = key.glyph.map { "\($0)" } ?? "none"
        return folder.appendingPathComponent("tint-\(hex(key.tint))-\(glyph)-\(hex(key.glyphColor)).png")
    }

    /// Removes the PNG file of `key`'s image from the folder.
    private func removeFile(of key: TintImage.Key) {
        guard let folder else { return }
        try? FileManager.default.removeItem(at: Self.file(for: key, in: folder))
    }

    /// Whether every image the alarms need is drawn (for tests).
    package var isComplete: Bool { state.withLock { $0.missing == nil } }

    /// Draws the missing images one by one, outside the lock, until none is missing.
    private func drawMissing() {
        while let key = state.withLock({ state -> TintImage.Key? in
            guard let key = state.missing else {
                state.drawing = false
                return nil
            }
            return key
        }) {
            let image = key.draw()
            // Written before it is kept, so that a file is named only once it is whole (written
            // to a temporary name, then renamed).
            let uri = folder.flatMap { folder -> String? in
                let file = Self.file(for: key, in: folder)
                guard (try? Data(PNGImage.encode(image)).write(to: file, options: .atomic)) != nil else { return nil }
                return file.absoluteString
            }
            let kept = state.withLock { state -> Bool in
                guard state.uses[key] != nil else { return false }
                state.images[key] = image
                if let uri { state.files[key] = uri }
                return true
            }
            // No alarm needs it any more (dropped while it was drawn): nor its file.
            if !kept, uri != nil { removeFile(of: key) }
        }
    }
}
