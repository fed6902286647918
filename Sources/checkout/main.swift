import CheckoutCLI
import Foundation

// The whole command line lives in CheckoutCLI (so tests run it in-process); this is only the process's end of it.
exit(await CheckoutProgram.run(Array(CommandLine.arguments.dropFirst()), output: .process()))
