/// The subcommands of `checkout`, in the order `checkout --help` lists them.
enum CommandList {
    static var all: [any CLICommand.Type] {
        [
            DemoCommand.self,
            MethodsCommand.self,
            CardCommand.self,
            PayCommand.self,
            RouteCommand.self,
            LedgerCommand.self,
            VaultCommand.self,
            ThemeCommand.self,
            LayoutCommand.self,
            PreviewCommand.self,
            NewMethodCommand.self,
        ]
    }
}
