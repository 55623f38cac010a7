import Synchronization
import Testing
import TestRequirements

import AgentRuntime
@testable import AlarmCore
import AlarmModel

/// The address of a local variable of the caller's frame: the stack grows down, so a smaller one
/// is deeper.
@inline(never)
func stackAddress() -> Int {
    var local = 0
    return withUnsafeMutablePointer(to: &local) { Int(bitPattern: $0) }
}

@Suite("CallbackSlot: a handler set on one thread and called on others", .onItsOwnThread)
struct CallbackSlotTests {
    @Test("calls nothing while empty, then the latest handler with its argument")
    func callsLatest() {
        let slot = CallbackSlot<Int>()
        let heard = Mutex<[String]>([])
        slot.call(1)
        slot.set { number in heard.withLock { $0.append("first \(number)") } }
        slot.call(2)
        slot.set { number in heard.withLock { $0.append("second \(number)") } }
        slot.call(3)
        #expect(heard.withLock { $0 } == ["first 2", "second 3"])
    }

    @Test("the ten-thousandth call runs as deep in the stack as the first")
    func staysShallow() {
        let slot = CallbackSlot<Void>()
        let depths = Mutex<[Int]>([])
        slot.set { depths.withLock { $0.append(stackAddress()) } }
        for _ in 0..<10_000 { slot.call(()) }
        let seen = depths.withLock { $0 }
        #expect(seen.count == 10_000)
        #expect(seen.first! - seen.min()! < 1_024, "the last calls ran \(seen.first! - seen.min()!) bytes deeper")
    }
}
