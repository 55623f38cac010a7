import Foundation

/// How many desktop sandboxes live at once in one process, and the wait for a place.
///
/// Each sandbox is an X server, a bus, a notification server and, in the agent tests, the agent:
/// started all at once, the suite's hundred-odd sandboxes made a load of 60 on two cores, and
/// replies that take milliseconds on a quiet machine took longer than their time limits. A
/// sandbox takes a place before it starts anything and gives it back once its teardown has
/// ended everything (`DesktopSandbox.stop()`, or its `deinit`).
enum SandboxSlots {
    /// `REVEILLE_TEST_SANDBOXES` when set to a positive number, else twice the processor count
    /// (at least 4).
    static let limit: Int = {
        if let text = ProcessInfo.processInfo.environment["REVEILLE_TEST_SANDBOXES"], let value = Int(text), value > 0 {
            return value
        }
        return max(4, 2 * ProcessInfo.processInfo.activeProcessorCount)
    }()

    private static let places = DispatchSemaphore(value: limit)

    /// Waits for a place. Blocks the calling thread: sandboxes are made off the cooperative pool
    /// (`offPool`, or a test on its own thread), never on it.
    static func take() { places.wait() }

    /// Gives a place back.
    static func give() { places.signal() }
}
