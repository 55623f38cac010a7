import Foundation
import Testing
import TestRequirements

import AgentRuntime
@testable import AlarmCore
import AlarmModel
import TestSupport

/// An actor on a `ThreadExecutor`: records which thread runs each call.
private actor OnOwnThread {
    private let executor = ThreadExecutor(name: "test-executor")
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
    private(set) var order: [Int] = []
    private(set) var threadNames: Set<String> = []

    func record(_ number: Int) {
        order.append(number)
        threadNames.insert(currentThreadName())
    }

    deinit { executor.finish() }
}

@Suite("ThreadExecutor: an actor on a thread of its own", .onItsOwnThread)
struct ThreadExecutorTests {
    @Test("calls from many tasks all run on the executor's thread, each once, and one caller's in order")
    func ownThreadInOrder() async {
        let actor = OnOwnThread()
        await withTaskGroup(of: Void.self) { group in
            for caller in 0..<8 {
                group.addTask {
                    for step in 0..<250 { await actor.record(caller * 1_000 + step) }
                }
            }
        }
        let order = await actor.order
        #expect(order.count == 2_000)
        #expect(Set(order).count == 2_000)
        for caller in 0..<8 {
            let mine = order.filter { $0 / 1_000 == caller }
            #expect(mine == mine.sorted(), "caller \(caller)'s calls ran out of order")
        }
        let names = await actor.threadNames
        #expect(names == ["test-executor"], "\(names)")
    }
}
