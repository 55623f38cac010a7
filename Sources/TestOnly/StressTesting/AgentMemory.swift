/// How the fuzz and load runs make the agent's resident memory a measure of what it keeps.
package enum AgentMemory {
    /// Environment for the agent: glibc's allocator gives blocks of 64 KiB and more back to the
    /// system when they are freed, and trims its heaps, instead of keeping them for later.
    ///
    /// Without it, one burst of mebibyte messages leaves its peak in `VmRSS` for good (the
    /// allocator keeps freed memory), and growth between two readings says little about leaks.
    /// With it, memory the agent still holds is what stays resident, so steady growth is a leak.
    package static let environment = [
        "GLIBC_TUNABLES": "glibc.malloc.mmap_threshold=65536:glibc.malloc.trim_threshold=65536"
    ]
}
