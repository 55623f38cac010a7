import AlarmAgent
import FoundationEssentials
import Dispatch

#if canImport(Glibc)
import Glibc
#endif

// Every task of the agent runs on its own worker pool, installed before the first task exists:
// libdispatch's workers would wake the idle agent every second (see `AgentExecutors`).
AgentExecutors.install()
Task {
    await Reveilled.main()
    exit(0)
}
dispatchMain()
