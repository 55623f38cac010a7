import AlarmKit
import AlarmProtocol
import CommandLineText
import ArgumentParser
import FoundationEssentials
import Localization

/// The `reveille` command, for the programs that are it: `reveille`, and the installed program
/// when it is started by that name.
package enum ReveilleCommand {
    /// Parses the command line and runs the command; a failure ends the process with its status.
    package static func main() async {
        await Reveille.main()
    }
}

/// `reveille`: schedule and manage alarms and timers with the Reveille agent.
struct Reveille: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reveille",
        abstract: "Schedule and manage alarms and timers.",
        discussion: """
            Alarms ring at a clock time (following the time zone) or at an instant; timers ring after a \
            duration. The agent, reveilled, rings them through suspend, restarts and do-not-disturb; \
            this command starts it when it is not running.

            Exit status: 0 done; 64 bad usage or input; 65 the agent refused; 69 the agent could not be \
            reached or started; 1 anything else.
            """,
        version: ReveilleVersion.current,
        subcommands: [
            AddCommand.self, TimerCommand.self, EditCommand.self, ListCommand.self, ShowCommand.self,
            CancelCommand.self, PauseCommand.self, ResumeCommand.self, StopCommand.self, SnoozeCommand.self,
            SkipCommand.self, UnskipCommand.self, OffCommand.self, OnCommand.self,
            WatchCommand.self, StatusCommand.self, HistoryCommand.self, SoundsCommand.self, AuthCommand.self,
        ])

    /// Parses the command line and runs the command, after refusing a group of short options.
    ///
    /// The only short option is `-h`. Swift Argument Parser reads any word that starts with one
    /// `-` as a group of short options and shows the help when an `h` is among them, so
    /// `reveille timer '-x h'` printed the help and exited 0 instead of refusing `-x h`.
    static func main() async {
        let words = CommandLine.arguments.dropFirst().prefix { $0 != "--" }
        if let group = words.first(where: isShortOptionGroup) {
            exit(withError: ValidationError(Translation.format("Unknown option %s", QuotedText.quote(group))))
        }
        await main(nil)
    }

    /// Whether a word is `-` and two or more characters other than a second `-`.
    static func isShortOptionGroup(_ word: String) -> Bool {
        word.hasPrefix("-") && !word.hasPrefix("--") && word.count > 2
    }
}
