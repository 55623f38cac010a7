import AlarmModel
import FoundationEssentials

/// Why a sound was refused or could not be played.
package enum SoundError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No file at the path given.
    case fileNotFound(path: String)
    /// The path names something that is not a regular file (a folder, say).
    case notAFile(path: String)
    /// libsndfile could not open or decode the file; `reason` is its message (`sf_strerror`).
    case undecodable(path: String, reason: String)
    /// The file decodes but holds no audio, or a layout Reveille does not play.
    case unsupported(path: String, reason: String)
    /// A file path that is not absolute: the agent does not know the caller's folder.
    case relativePath(path: String)
    /// A sound-theme name found in no installed theme (nor with its last `-part` dropped).
    case unknownThemeSound(name: String)
    /// The sound could not be read within `limit` (a file system that does not answer).
    case tooSlow(name: String, limit: Duration)

    /// A path as shown in a message: whole up to 4,096 bytes (a path can be that long), cut short
    /// and escaped beyond.
    package static func shown(_ path: String) -> String {
        path.utf8.count <= 4_096 && !path.unicodeScalars.contains { $0.properties.generalCategory == .control }
            ? path : QuotedText.quote(path, limit: 200)
    }

    package var description: String {
        switch self {
        case .fileNotFound(let path): "sound file not found: \(Self.shown(path))"
        case .notAFile(let path): "not a sound file (not a regular file): \(Self.shown(path))"
        case .undecodable(let path, let reason): "cannot decode sound file \(Self.shown(path)): \(reason)"
        case .unsupported(let path, let reason): "unsupported sound file \(Self.shown(path)): \(reason)"
        case .relativePath(let path): "the sound file's path must be absolute: \(Self.shown(path))"
        case .unknownThemeSound(let name):
            "no sound named \(QuotedText.quote(name, limit: 200)) among Reveille's sounds or the sound theme's (reveille sounds lists them; or give a file path)"
        case .tooSlow(let name, let limit):
            "the sound could not be read within \(DurationFormat.units(limit / .seconds(1))) (a file system that does not answer?): \(Self.shown(name))"
        }
    }
}
