import ReveilledCLI

// `reveilled`: the Reveille agent (ReveilledCLI), run from the main thread, which then serves its
// event loop.
ReveilledCommand.runAsProcessMain()
