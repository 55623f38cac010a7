import AlarmAgent
import Dispatch
import LinuxSystem
import ReveilleCLI
import ReveilledCLI

#if canImport(Glibc)
import Glibc
#endif

// The program the package installs, once, under both names: started as `reveilled` (the name the
// user unit, D-Bus activation and the command start it by) it is the agent; by any other name, the
// command. One file carries the Swift runtime and Foundation Essentials once, for both.
let name = CommandLine.arguments.first.map { $0.split(separator: "/").last.map(String.init) ?? $0 } ?? ""
if name == "reveilled" {
    // Every task of the agent runs on its own worker pool, installed before the first task exists
    // (see `AgentExecutors`).
    AgentExecutors.install()
    Task {
        await ReveilledCommand.main()
        exit(0)
    }
} else {
    // The file's capabilities are the agent's (CAP_WAKE_ALARM, for wake timers): the command gives
    // them up before it starts a thread, and is then an ordinary process of its user, whose
    // executable the agent can read to know it for the person's own command.
    do {
        try Capabilities.dropFileCapabilities()
    } catch {
        FileDescriptor.standardError.write("reveille: cannot give up the capabilities of \(CommandLine.arguments[0]): \(error)\n")
        exit(1)
    }
    Task {
        await ReveilleCommand.main()
        exit(0)
    }
}
dispatchMain()
