import FoundationEssentials
import LinuxSystem

/// What a person's setting was before Reveille changed it, and what Reveille set it to: written to
/// disk (and `fsync`ed) before anything is changed, removed once it is put back, and replayed
/// when the agent starts after a crash.
package struct RestoreEntry: Codable, Sendable, Hashable {
    /// Whose setting: a desktop (`dunst`, `gnome`, ...) or `mixer`.
    package var owner: String
    /// The setting, as a person would look it up.
    package var setting: String
    /// The person's value, to put back.
    package var saved: DoNotDisturbValue
    /// The value Reveille set: the setting is put back only while it still holds this.
    package var lifted: DoNotDisturbValue
    /// When it was changed.
    package var changedAt: Date

    /// Creates an entry.
    package init(owner: String, setting: String, saved: DoNotDisturbValue, lifted: DoNotDisturbValue, changedAt: Date = Date()) {
        self.owner = owner
        self.setting = setting
        self.saved = saved
        self.lifted = lifted
        self.changedAt = changedAt
    }
}

/// One journal file (such as `dnd-restore.json` in the store's folder) holding at most one entry.
///
/// `record` replaces the file durably (`DurableFile`), so after a crash the journal is either the
/// old one or the new one, whole.
package struct RestoreJournal: Sendable {
    /// The journal's file.
    package let url: URL

    /// A journal at `url`.
    package init(url: URL) { self.url = url }

    /// The entry on disk, or `nil` (none, or unreadable: an unreadable journal is set aside as
    /// `<name>.unreadable` and reported by the caller).
    package func load() -> RestoreEntry? {
        guard let data = try? Data(contentsOf: url) else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        if let entry = try? decoder.decode(RestoreEntry.self, from: data) { return entry }
        try? FileManager.default.removeItem(at: url.appendingPathExtension("unreadable"))
        try? FileManager.default.moveItem(at: url, to: url.appendingPathExtension("unreadable"))
        return nil
    }

    /// Writes `entry` durably; returns once it is on disk.
    package func record(_ entry: RestoreEntry) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        try DurableFile.replace(url, with: try encoder.encode(entry))
    }

    /// Removes the journal (the setting is back, or the person took it over).
    package func clear() {
        guard (try? FileSystem.unlink(url.path)) != nil else { return }
        DurableFile.syncFolder(url.deletingLastPathComponent())
    }
}

extension DoNotDisturbValue {
    // The journal's form: {"flag": true}, {"level": 50}, {"modes": ["a"]}, {"unmuted": false, "volume": 0}.
    private enum CodingKeys: String, CodingKey { case flag, level, modes, unmuted, volume }

    /// Reads the journal's form.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let flag = try container.decodeIfPresent(Bool.self, forKey: .flag) {
            self = .flag(flag)
        } else if let level = try container.decodeIfPresent(UInt32.self, forKey: .level) {
            self = .level(level)
        } else if let modes = try container.decodeIfPresent([String].self, forKey: .modes) {
            self = .modes(modes)
        } else if let unmuted = try container.decodeIfPresent(Bool.self, forKey: .unmuted) {
            self = .output(unmuted: unmuted, volume: try container.decode(Int.self, forKey: .volume))
        } else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "no flag, level or modes"))
        }
    }

    /// Writes the journal's form.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .flag(let flag): try container.encode(flag, forKey: .flag)
        case .level(let level): try container.encode(level, forKey: .level)
        case .modes(let modes): try container.encode(modes, forKey: .modes)
        case .output(let unmuted, let volume):
            try container.encode(unmuted, forKey: .unmuted)
            try container.encode(volume, forKey: .volume)
        }
    }
}
