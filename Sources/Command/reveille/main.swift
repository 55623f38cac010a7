import ReveilleCLI

// `reveille`: schedule and manage alarms and timers with the Reveille agent (ReveilleCLI).
await ReveilleCommand.main()
