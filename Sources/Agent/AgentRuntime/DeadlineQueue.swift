import AlarmModel
/// The earliest of many deadlines, one per key, without a timer for each.
///
/// A binary min-heap with lazy removal: changing or removing a key's deadline leaves the old entry
/// in the heap, and stale entries are skipped (and, when they outnumber live ones, compacted away).
/// `earliest` is O(1) after the skip; updates are O(log n).
package struct DeadlineQueue<Key: Hashable, Value: Comparable> {
    /// An empty queue.
    package init() {}

    private var current: [Key: Value] = [:]
    private var heap: [(value: Value, key: Key)] = []

    /// The number of keys with a deadline.
    package var count: Int { current.count }

    /// Sets, moves or removes (`nil`) the deadline of a key.
    package mutating func set(_ key: Key, _ value: Value?) {
        guard current[key] != value else { return }
        current[key] = value
        if let value { push((value, key)) }
        if heap.count > 64 && heap.count > 2 * current.count { compact() }
    }

    /// The key with the earliest deadline, and that deadline.
    package mutating func earliest() -> (key: Key, value: Value)? {
        while let top = heap.first {
            if current[top.key] == top.value { return (top.key, top.value) }
            popTop()
        }
        return nil
    }

    /// Removes every key.
    package mutating func removeAll() {
        current.removeAll()
        heap.removeAll()
    }

    private mutating func compact() {
        heap = current.map { ($0.value, $0.key) }
        guard heap.count > 1 else { return }
        for index in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
    }

    private mutating func push(_ entry: (value: Value, key: Key)) {
        heap.append(entry)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].value < heap[parent].value else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func popTop() {
        heap.swapAt(0, heap.count - 1)
        heap.removeLast()
        if !heap.isEmpty { siftDown(0) }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < heap.count && heap[left].value < heap[smallest].value { smallest = left }
            if right < heap.count && heap[right].value < heap[smallest].value { smallest = right }
            if smallest == parent { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}

extension DeadlineQueue: Sendable where Key: Sendable, Value: Sendable {}
