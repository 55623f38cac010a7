import Foundation

/// Why a sound was refused or could not be played.
public enum SoundError: Error, Sendable, Equatable, CustomStringConvertible {
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

    public var description: String {
        switch self {
        case .fileNotFound(let path): "sound file not found: \(path)"
        case .notAFile(let path): "not a sound file (not a regular file): \(path)"
        case .undecodable(let path, let reason): "cannot decode sound file \(path): \(reason)"
        case .unsupported(let path, let reason): "unsupported sound file \(path): \(reason)"
        case .relativePath(let path): "the sound file's path must be absolute: \(path)"
        case .unknownThemeSound(let name):
            "no sound named \"\(name)\" in the sound theme (give a file path or a freedesktop sound name)"
        }
    }
}
