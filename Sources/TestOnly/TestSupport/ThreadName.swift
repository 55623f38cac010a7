import Foundation

/// The calling thread's name as the kernel keeps it (`/proc/thread-self/comm`): what `top -H`,
/// `ps -L` and debuggers show.
package func currentThreadName() -> String {
    let text = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
    return text.hasSuffix("\n") ? String(text.dropLast()) : text
}
