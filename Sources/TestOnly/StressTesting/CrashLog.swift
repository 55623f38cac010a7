/// The part of a crashed Swift program's standard error that says what happened: the fatal error
/// line and the crashed thread's frames, without the registers and images around them.
package enum CrashLog {
    /// The crash in `standardError`, or its last `limit` characters when there is no crash report.
    package static func summary(of standardError: String, limit: Int = 2_000) -> String {
        let lines = standardError.split(separator: "\n", omittingEmptySubsequences: false)
        var kept: [Substring] = []
        var inCrashedThread = false
        for line in lines {
            if line.contains("Fatal error") || line.contains("Program crashed") || line.contains("*** Signal") {
                kept.append(line)
            }
            if line.contains(" crashed:") { inCrashedThread = true }
            if inCrashedThread {
                if line.isEmpty || line.hasPrefix("...") { inCrashedThread = false } else { kept.append(line) }
            }
        }
        let text = kept.isEmpty ? String(standardError.suffix(limit)) : kept.joined(separator: "\n")
        return text.count > limit * 2 ? String(text.prefix(limit * 2)) : text
    }
}
