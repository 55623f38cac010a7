import AlarmAgent
import Dispatch
import ReveilledCLI

#if canImport(Glibc)
import Glibc
#endif

// `reveilled`: the Reveille agent (ReveilledCLI).
// Every task of the agent runs on its own worker pool, installed before the first task exists:
// libdispatch's workers would wake the idle agent every second (see `AgentExecutors`).
AgentExecutors.install()
Task {
    await ReveilledCommand.main()
    exit(0)
}
dispatchMain()
