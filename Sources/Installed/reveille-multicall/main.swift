import Dispatch
import LinuxSystem
import ReveilleCLI
import ReveilledCLI
import SearchProviders

#if canImport(Glibc)
import Glibc
#endif

// The program the package installs, once, under three names: started as `reveilled` (the name the
// user unit, D-Bus activation and the command start it by) it is the agent; as `reveille-search`
// (the name the search providers' D-Bus activation starts it by) the desktop's search providers;
// by any other name, the command. One file carries the Swift runtime and Foundation Essentials
// once, for all three.
//
// The name decides only what the program does, never whom the agent trusts: the agent knows a
// caller by its executable's path (`/proc/PID/exe`), which for a hard link is the name the file was
// started by, and trusts `reveille` and `reveille-search` beside itself. Whatever a process started
// by one of those paths says its name is, it runs this program, which acts only as the person's
// command or search would; a copy or a hard link of the file elsewhere is not beside the agent and
// is an app (a symbolic link runs the installed file, which the kernel names by its own path).
let name = CommandLine.arguments.first.map { $0.split(separator: "/").last.map(String.init) ?? $0 } ?? ""
if name == "reveilled" {
    // The agent: its signals blocked, its worker pool installed, and this thread serving its event
    // loop, before any other thread starts (`ReveilledCommand.runAsProcessMain()`).
    ReveilledCommand.runAsProcessMain()
} else {
    // The file's capabilities are the agent's (CAP_WAKE_ALARM, for wake timers): the command and
    // the search providers (which answer any caller on the bus) give them up before they start a
    // thread, and are then ordinary processes of their user, whose executable the agent, or any
    // program of the person's, can read.
    do {
        try Capabilities.dropFileCapabilities()
    } catch {
        FileDescriptor.standardError.write(
            "\(name == "reveille-search" ? name : "reveille"): cannot give up the capabilities of \(CommandLine.arguments[0]): \(error)\n")
        exit(1)
    }
    Task {
        if name == "reveille-search" {
            exit(await ReveilleSearch.main())
        }
        await ReveilleCommand.main()
        exit(0)
    }
}
dispatchMain()
