// reveille-bench: prints Reveille's performance numbers.
//
//   swift run -c release reveille-bench            every benchmark
//   swift run -c release reveille-bench engine     the engine and store only

let arguments = Array(CommandLine.arguments.dropFirst())
let selected = Set(arguments)
if selected.isEmpty || selected.contains("engine") {
    try await EngineBenchmark.run()
}
