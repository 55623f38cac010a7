import AlarmKit
import ArgumentParser
import Foundation

/// `reveille`: schedule and manage alarms and timers with the Reveille agent.
@main
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
        version: CLIVersion.current,
        subcommands: [
            AddCommand.self, TimerCommand.self, ListCommand.self, ShowCommand.self,
            CancelCommand.self, PauseCommand.self, ResumeCommand.self, StopCommand.self, SnoozeCommand.self,
            WatchCommand.self, StatusCommand.self, HistoryCommand.self, AuthCommand.self,
        ])
}
