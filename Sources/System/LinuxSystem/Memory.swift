import CLinux

/// The process's heap, as the C library's allocator keeps it.
package enum Memory {
    /// Gives the allocator's free memory back to the system (`malloc_trim(3)`, every arena), so
    /// that what a passing piece of work used no longer counts as the process's resident memory.
    /// Returns whether any memory was given back. Costs a walk over the heap: call it after work,
    /// never on a path that is timed.
    @discardableResult
    package static func returnFreeMemory() -> Bool {
        malloc_trim(0) == 1
    }
}
