/// The subcommands of `checkout`, in the order `checkout --help` lists them.
enum CommandList {
    static var all: [any CLICommand.Type] {
        [
            DemoCommand.self,
            MethodsCommand.self,
            CardCommand.self,
            PayCommand.self,
            CaptureCommand.self,
            VoidCommand.self,
            RefundCommand.self,
            RouteCommand.self,
            LedgerCommand.self,
            WebhooksCommand.self,
            VaultCommand.self,
            ThemeCommand.self,
            LayoutCommand.self,
            PreviewCommand.self,
            ServeCommand.self,
            NewMethodCommand.self,
        ]
    }
}
